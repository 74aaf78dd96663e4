#pragma once
// "key=value,key=value" text, the form problems take on the command line and in stores.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kselect {

class KeyValues {
 public:
  KeyValues() = default;
  // Parses "a=1,b=x"; whitespace around keys and values is ignored. Throws InputError naming
  // `source` when an item has no '=' or a key repeats.
  static KeyValues parse(std::string_view text, const std::string& source = "");

  void set(std::string key, std::string value);
  bool has(std::string_view key) const;
  std::optional<std::string> get(std::string_view key) const;
  // Typed getters throw InputError naming the key when the value is missing or malformed.
  std::string require(std::string_view key) const;
  std::int64_t require_int(std::string_view key) const;
  std::int64_t get_int(std::string_view key, std::int64_t fallback) const;
  double require_double(std::string_view key) const;
  // Keys present here but absent from `known` (to reject typos such as "mm=128").
  std::vector<std::string> unknown_keys(const std::vector<std::string>& known) const;

  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  std::string to_string() const;  // canonical: insertion order, no spaces

 private:
  std::vector<std::pair<std::string, std::string>> items_;
  std::string source_;
};

// Strict integer/double parsing of a whole string (no trailing garbage); nullopt when invalid.
std::optional<std::int64_t> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);

}  // namespace kselect
