#pragma once
// Small text helpers shared by error messages, reports and the parsers of names and files.
#include <concepts>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

namespace kselect {

std::string trim(std::string_view text);  // without leading/trailing blanks, tabs, CR, LF
std::string lower(std::string_view text);

// The parts of `text` between `sep` characters (one empty part for empty text).
std::vector<std::string_view> split(std::string_view text, char sep);

// "a, b, c": the items in order with `separator` between them ("" for none).
inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// As join() above, each item written as format(item) first: join(kernels, name_of).
template <std::ranges::input_range Range,
          std::invocable<const std::ranges::range_value_t<Range>&> Format>
std::string join(const Range& items, Format format, std::string_view separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += format(item);
    first = false;
  }
  return out;
}

}  // namespace kselect
