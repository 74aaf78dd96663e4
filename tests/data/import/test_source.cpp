#include "data/import/source.h"

#include <filesystem>
#include <iterator>

#include <gtest/gtest.h>

#include "../temp_dir.h"
#include "compressed_bytes.h"
#include "core/error.h"

namespace kselect::importers {
namespace {

using kselect::testing::bzip2_bytes;
using kselect::testing::gzip_bytes;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;

// istreambuf_iterator, not `out << rdbuf()`: the latter swallows exceptions from the buffer.
std::string read_all(InputFile& file) {
  return std::string(std::istreambuf_iterator<char>(file.stream()), {});
}

// Several MB of varied text: larger than every internal buffer, so refills are exercised.
std::string big_text() {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "line " + std::to_string(i * 7919 % 100003) + ",x\n";
  return text;
}

TEST(InputFile, PlainFileIsReadAsIs) {
  TempDir dir;
  write_bytes(dir.file("a.csv"), "a,b\n1,2\n");
  InputFile file(dir.file("a.csv"));
  EXPECT_EQ(file.compression(), "none");
  EXPECT_EQ(file.file_size(), 8u);
  EXPECT_EQ(read_all(file), "a,b\n1,2\n");
  EXPECT_EQ(file.compressed_bytes_read(), 8u);
}

TEST(InputFile, EmptyFileIsAnEmptyStream) {
  TempDir dir;
  write_bytes(dir.file("empty"), "");
  InputFile file(dir.file("empty"));
  EXPECT_EQ(file.compression(), "none");
  std::string line;
  EXPECT_FALSE(std::getline(file.stream(), line));
}

TEST(InputFile, GzipIsDetectedByMagicAndDecompressed) {
  TempDir dir;
  const std::string text = big_text();
  const std::string packed = gzip_bytes(text);
  write_bytes(dir.file("data.txt"), packed);  // no .gz suffix on purpose
  InputFile file(dir.file("data.txt"));
  EXPECT_EQ(file.compression(), "gzip");
  EXPECT_EQ(read_all(file), text);
  EXPECT_EQ(file.compressed_bytes_read(), packed.size());
  EXPECT_EQ(file.file_size(), packed.size());
}

TEST(InputFile, Bzip2IsDetectedByMagicAndDecompressed) {
  TempDir dir;
  const std::string text = big_text();
  write_bytes(dir.file("data.bz2"), bzip2_bytes(text));
  InputFile file(dir.file("data.bz2"));
  EXPECT_EQ(file.compression(), "bzip2");
  EXPECT_EQ(read_all(file), text);
}

TEST(InputFile, ConcatenatedStreamsAreAllRead) {
  TempDir dir;
  write_bytes(dir.file("multi.gz"), gzip_bytes("first\n") + gzip_bytes("second\n"));
  write_bytes(dir.file("multi.bz2"), bzip2_bytes("one\n") + bzip2_bytes("two\n"));
  InputFile gz(dir.file("multi.gz"));
  EXPECT_EQ(read_all(gz), "first\nsecond\n");
  InputFile bz(dir.file("multi.bz2"));
  EXPECT_EQ(read_all(bz), "one\ntwo\n");
}

// Truncation anywhere inside the stream must give an error naming the file, never a hang,
// a crash or a silently shorter result.
TEST(InputFile, TruncatedCompressedDataIsAnError) {
  TempDir dir;
  const std::string text = big_text();
  for (const std::string& packed : {gzip_bytes(text), bzip2_bytes(text)}) {
    for (std::size_t keep : {std::size_t(3), packed.size() / 2, packed.size() - 1}) {
      const std::string path = dir.file("cut");
      write_bytes(path, packed.substr(0, keep));
      InputFile file(path);
      try {
        read_all(file);
        ADD_FAILURE() << "no error for " << file.compression() << " cut at " << keep;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      }
    }
  }
}

TEST(InputFile, CorruptCompressedDataIsAnError) {
  TempDir dir;
  const std::string text = big_text();
  for (std::string packed : {gzip_bytes(text), bzip2_bytes(text)}) {
    for (std::size_t i = packed.size() / 3; i < packed.size() / 3 + 64; ++i) packed[i] ^= 0x5a;
    write_bytes(dir.file("bad"), packed);
    InputFile file(dir.file("bad"));
    EXPECT_THROW(read_all(file), InputError) << file.compression();
  }
}

TEST(InputFile, ErrorsPropagateThroughGetline) {
  TempDir dir;
  const std::string packed = gzip_bytes(big_text());
  write_bytes(dir.file("cut.gz"), packed.substr(0, packed.size() / 2));
  InputFile file(dir.file("cut.gz"));
  std::string line;
  long lines = 0;
  EXPECT_THROW(while (std::getline(file.stream(), line))++ lines, InputError);
  EXPECT_GT(lines, 0);
}

TEST(InputFile, MissingFileOrDirectoryIsAnError) {
  TempDir dir;
  EXPECT_THROW(InputFile(dir.file("absent.csv")), InputError);
  std::filesystem::create_directory(dir.file("sub"));
  EXPECT_THROW(InputFile(dir.file("sub")), InputError);
}

long count_lines(InputFile& file) {
  long lines = 0;
  std::string line;
  while (std::getline(file.stream(), line)) ++lines;
  return lines;
}

TEST(InputFile, ShippedMiopenFindDbBzip2) {
  const std::string path =
      std::string(KSELECT_SHARED_DATA_DIR) + "/miopen/gfx90a68.HIP.fdb.txt.bz2";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  InputFile file(path);
  EXPECT_EQ(file.compression(), "bzip2");
  EXPECT_EQ(count_lines(file), 193590);  // datasets.md
  EXPECT_EQ(file.compressed_bytes_read(), file.file_size());
}

TEST(InputFile, ShippedKernelTunerGzip) {
  const std::string path =
      std::string(KSELECT_SHARED_DATA_DIR) + "/kernel-tuner/convolution_milo_A100.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  InputFile file(path);
  EXPECT_EQ(file.compression(), "gzip");
  std::string text = read_all(file);
  EXPECT_EQ(text.rfind("{", 0), 0u);
  EXPECT_NE(text.find("\"device_name\": \"NVIDIA A100-PCIE-40GB\""), std::string::npos);
  EXPECT_EQ(file.compressed_bytes_read(), file.file_size());
}

}  // namespace
}  // namespace kselect::importers
