#pragma once
// gzip and bzip2 bytes made in memory, for tests of compressed input files.
#include <bzlib.h>
#include <zlib.h>

#include <string>

#include <gtest/gtest.h>

namespace kselect::testing {

inline std::string gzip_bytes(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, uLong(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = uInt(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

inline std::string bzip2_bytes(const std::string& text) {
  std::string out(text.size() + text.size() / 100 + 600, '\0');
  unsigned size = unsigned(out.size());
  EXPECT_EQ(BZ2_bzBuffToBuffCompress(out.data(), &size, const_cast<char*>(text.data()),
                                     unsigned(text.size()), 9, 0, 0),
            BZ_OK);
  out.resize(size);
  return out;
}

}  // namespace kselect::testing
