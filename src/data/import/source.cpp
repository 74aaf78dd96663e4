#include "data/import/source.h"

#include <bzlib.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace kselect::importers {

namespace {
constexpr std::size_t kInputBytes = 64 * 1024;    // read from the file at a time
constexpr std::size_t kOutputBytes = 256 * 1024;  // decompressed bytes handed to the parser

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;
}  // namespace

// Owns the open file and hands out decoded bytes; one subclass per compression.
class InputFile::Buffer : public std::streambuf {
 public:
  Buffer(FilePtr file, std::string path)
      : file_(std::move(file)), path_(std::move(path)), out_(kOutputBytes) {}
  virtual std::string_view compression() const = 0;
  std::uint64_t consumed() const { return consumed_; }

 protected:
  // Writes up to `capacity` decoded bytes to `out`; 0 only at the end of the data.
  virtual std::size_t decode(char* out, std::size_t capacity) = 0;

  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    std::size_t n = decode(out_.data(), out_.size());
    if (n == 0) return traits_type::eof();
    setg(out_.data(), out_.data(), out_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

  std::size_t read_raw(char* data, std::size_t capacity) {
    std::size_t n = std::fread(data, 1, capacity, file_.get());
    if (n < capacity && std::ferror(file_.get()))
      fail(std::string("read error: ") + std::strerror(errno));
    consumed_ += n;
    return n;
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, 0, "", what); }

 private:
  FilePtr file_;
  std::string path_;
  std::vector<char> out_;
  std::uint64_t consumed_ = 0;
};

namespace {

class PlainBuffer : public InputFile::Buffer {
 public:
  using Buffer::Buffer;
  std::string_view compression() const override { return "none"; }

 protected:
  std::size_t decode(char* out, std::size_t capacity) override { return read_raw(out, capacity); }
};

// Shared by the gzip and bzip2 decoders: refills the compressed input and walks through
// concatenated streams. Trailing bytes that do not start another stream are ignored, as
// gzip and bzip2 themselves do.
class CompressedBuffer : public InputFile::Buffer {
 public:
  using Buffer::Buffer;

 protected:
  // Decompresses into [out, out+capacity) from next_in(); returns bytes written and whether
  // the current stream ended.
  struct Step {
    std::size_t written;
    bool stream_end;
  };
  virtual Step step(char* out, std::size_t capacity) = 0;
  virtual void start_stream() = 0;
  virtual bool is_stream_start(unsigned char first) const = 0;
  virtual const char* name() const = 0;

  const char* next_in() const { return next_in_; }
  std::size_t avail_in() const { return avail_in_; }
  void consume(std::size_t n) {
    next_in_ += n;
    avail_in_ -= n;
  }

  std::size_t decode(char* out, std::size_t capacity) override {
    std::size_t written = 0;
    while (written == 0 && !finished_) {
      if (avail_in_ == 0) refill();
      if (avail_in_ == 0) {
        if (in_stream_)
          fail(std::string("truncated ") + name() + " data (the file ends inside a stream)");
        finished_ = true;
        break;
      }
      if (!in_stream_) {
        if (!is_stream_start(static_cast<unsigned char>(*next_in_))) {
          finished_ = true;  // trailing padding or garbage after the last stream
          break;
        }
        start_stream();
        in_stream_ = true;
      }
      Step s = step(out, capacity);
      written = s.written;
      if (s.stream_end) in_stream_ = false;
    }
    return written;
  }

 private:
  void refill() {
    next_in_ = in_.data();
    avail_in_ = read_raw(in_.data(), in_.size());
  }

  std::array<char, kInputBytes> in_{};
  const char* next_in_ = in_.data();
  std::size_t avail_in_ = 0;
  bool in_stream_ = false, finished_ = false;
};

class GzipBuffer : public CompressedBuffer {
 public:
  GzipBuffer(FilePtr file, std::string path) : CompressedBuffer(std::move(file), std::move(path)) {
    // 16 + MAX_WBITS: gzip wrapper only.
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) fail("cannot start the gzip decoder");
  }
  ~GzipBuffer() override { inflateEnd(&z_); }
  std::string_view compression() const override { return "gzip"; }

 protected:
  const char* name() const override { return "gzip"; }
  bool is_stream_start(unsigned char first) const override { return first == 0x1f; }
  void start_stream() override { inflateReset(&z_); }
  Step step(char* out, std::size_t capacity) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next_in()));
    z_.avail_in = uInt(avail_in());
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = uInt(capacity);
    int rc = inflate(&z_, Z_NO_FLUSH);
    consume(avail_in() - z_.avail_in);
    std::size_t written = capacity - z_.avail_out;
    // Z_BUF_ERROR with input left and room for output means no progress is possible.
    if (rc == Z_BUF_ERROR && z_.avail_in > 0) fail("corrupt gzip data (decoder stuck)");
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      fail(std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : zError(rc)));
    return {written, rc == Z_STREAM_END};
  }

 private:
  z_stream z_{};
};

class Bzip2Buffer : public CompressedBuffer {
 public:
  using CompressedBuffer::CompressedBuffer;
  ~Bzip2Buffer() override {
    if (started_) BZ2_bzDecompressEnd(&bz_);
  }
  std::string_view compression() const override { return "bzip2"; }

 protected:
  const char* name() const override { return "bzip2"; }
  bool is_stream_start(unsigned char first) const override { return first == 'B'; }
  void start_stream() override {
    if (started_) BZ2_bzDecompressEnd(&bz_);
    bz_ = bz_stream{};
    started_ = BZ2_bzDecompressInit(&bz_, 0, 0) == BZ_OK;
    if (!started_) fail("cannot start the bzip2 decoder");
  }
  Step step(char* out, std::size_t capacity) override {
    bz_.next_in = const_cast<char*>(next_in());
    bz_.avail_in = unsigned(avail_in());
    bz_.next_out = out;
    bz_.avail_out = unsigned(capacity);
    int rc = BZ2_bzDecompress(&bz_);
    consume(avail_in() - bz_.avail_in);
    if (rc != BZ_OK && rc != BZ_STREAM_END)
      fail("corrupt bzip2 data (libbz2 error " + std::to_string(rc) + ")");
    return {capacity - bz_.avail_out, rc == BZ_STREAM_END};
  }

 private:
  bz_stream bz_{};
  bool started_ = false;
};

enum class Compression { kNone, kGzip, kBzip2 };

Compression sniff(std::FILE* file) {
  unsigned char magic[4] = {};
  std::size_t n = std::fread(magic, 1, sizeof magic, file);
  std::rewind(file);
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return Compression::kGzip;
  // "BZh" + block-size digit; a bare "BZh" is a bzip2 file cut short, reported as truncated.
  if (n >= 3 && std::memcmp(magic, "BZh", 3) == 0 &&
      (n == 3 || (magic[3] >= '1' && magic[3] <= '9')))
    return Compression::kBzip2;
  return Compression::kNone;
}

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw InputError(path, 0, "", "no such file");
  if (std::filesystem::is_directory(status)) throw InputError(path, 0, "", "is a directory");
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InputError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
  if (std::filesystem::is_regular_file(status)) file_size_ = std::filesystem::file_size(path, ec);
  switch (sniff(file.get())) {
    case Compression::kGzip:
      buffer_ = std::make_unique<GzipBuffer>(std::move(file), path);
      break;
    case Compression::kBzip2:
      buffer_ = std::make_unique<Bzip2Buffer>(std::move(file), path);
      break;
    case Compression::kNone:
      buffer_ = std::make_unique<PlainBuffer>(std::move(file), path);
      break;
  }
  stream_ = std::make_unique<std::istream>(buffer_.get());
  stream_->exceptions(std::ios::badbit);
}

InputFile::~InputFile() = default;

std::istream& InputFile::stream() {
  return *stream_;
}

const std::string& InputFile::path() const {
  return path_;
}

std::string_view InputFile::compression() const {
  return buffer_->compression();
}

std::uint64_t InputFile::file_size() const {
  return file_size_;
}

std::uint64_t InputFile::compressed_bytes_read() const {
  return buffer_->consumed();
}

}  // namespace kselect::importers
