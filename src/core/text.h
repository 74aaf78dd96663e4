#pragma once
// Small text helpers shared by error messages and reports.
#include <string>
#include <string_view>
#include <vector>

namespace kselect {

// "a, b, c": the items in order with `separator` between them ("" for none).
inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace kselect
