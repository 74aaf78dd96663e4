#pragma once
// An input file for the importers, read through a fixed-size buffer whatever its size, and
// decompressed on the fly when it is gzip or bzip2 (detected from the magic bytes, not the
// name). Concatenated (multi-stream) .gz and .bz2 files are read to the end.
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

namespace kselect::importers {

class InputFile {
 public:
  // Opens `path`; throws InputError naming it when it is missing, a directory or unreadable.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The decompressed bytes. A corrupt or truncated compressed stream throws InputError (naming
  // the file) out of the read that reaches it; the stream's badbit exception is enabled so the
  // error is never mistaken for a normal end of file.
  std::istream& stream();

  const std::string& path() const;
  std::string_view compression() const;  // "gzip", "bzip2" or "none"
  std::uint64_t file_size() const;       // bytes on disk (compressed)
  // Bytes of the file consumed so far: with file_size() the progress fraction of a read.
  std::uint64_t compressed_bytes_read() const;

  class Buffer;

 private:
  std::string path_;
  std::uint64_t file_size_ = 0;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::istream> stream_;
};

}  // namespace kselect::importers
