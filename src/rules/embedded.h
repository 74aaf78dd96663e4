#pragma once
// Rule files from rules/*.json, compiled into the library (see cmake/embed_rules.cmake).
#include <map>
#include <string>

namespace kselect::rules {

// Maps a rule file's stem (e.g. "gemm_cpu") to its JSON text.
const std::map<std::string, std::string>& embedded_rule_files();

}  // namespace kselect::rules
