#include "model/file_io.h"

#include <zlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace kselect::model {

namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::filesystem::path& path) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw StorageError("zlib init failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = uInt(bytes.size());
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof(buffer);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw StorageError(path.string() + ": corrupt or truncated gzip data");
  return out;
}

std::string gzip(const std::string& bytes) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw StorageError("zlib init failed");
  std::string out(deflateBound(&zs, uLong(bytes.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = uInt(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw StorageError("gzip compression failed");
  return out;
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StorageError(path.string() + ": cannot open");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw StorageError(path.string() + ": cannot write");
  }
  std::filesystem::rename(tmp, path);
}

void write_gzip(const std::filesystem::path& path, const std::string& bytes) {
  write_file(path, gzip(bytes));
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
    throw StorageError(path.string() + ": not valid JSON (" + e.what() + ")");
  }
}

void write_json(const std::filesystem::path& path, const nlohmann::json& value) {
  write_file(path, value.dump(2) + "\n");
}

}  // namespace kselect::model
