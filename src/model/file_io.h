#pragma once
// Whole-file reads and writes for model directories. Reads accept gzip-compressed files
// transparently (detected by the gzip magic bytes, not the name), so `model_tflops.json.gz`
// loads as is.
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kselect::model {

// Throws StorageError when the file is missing, unreadable or a corrupt gzip stream.
std::string read_file(const std::filesystem::path& path);
// Writes through a temporary file and a rename, so readers never see half a file.
void write_file(const std::filesystem::path& path, const std::string& bytes);
void write_gzip(const std::filesystem::path& path, const std::string& bytes);
// read_file + JSON parse; a parse error is a StorageError naming the file.
nlohmann::json read_json(const std::filesystem::path& path);
void write_json(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace kselect::model
