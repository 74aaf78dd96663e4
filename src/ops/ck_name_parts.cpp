#include "ops/ck_name_parts.h"

#include <algorithm>
#include <cctype>

#include "core/key_values.h"
#include "core/text.h"

namespace kselect::ck {

std::optional<std::int64_t> parse_dim(std::string_view text, std::int64_t min) {
  auto value = parse_int(text);
  if (!value || *value < min || *value > kMaxDim) return std::nullopt;
  return value;
}

bool is_word(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '+';
  });
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::optional<std::array<std::int64_t, 3>> parse_triple(std::string_view text) {
  auto parts = split(text, 'x');
  if (parts.size() != 3) return std::nullopt;
  std::array<std::int64_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (!all_digits(parts[i])) return std::nullopt;
    auto value = parse_dim(parts[i]);
    if (!value) return std::nullopt;
    out[i] = *value;
  }
  return out;
}

void put_triple(nlohmann::json& config, const std::string& prefix,
                const std::array<std::int64_t, 3>& values) {
  config[prefix + "m"] = values[0];
  config[prefix + "n"] = values[1];
  config[prefix + "k"] = values[2];
}

std::string format_triple(const nlohmann::json& config, const std::string& prefix) {
  return config.at(prefix + "m").dump() + "x" + config.at(prefix + "n").dump() + "x" +
         config.at(prefix + "k").dump();
}

std::optional<int> parse_flag(std::string_view text) {
  std::string word = lower(text);
  if (word == "true" || word == "1" || word == "t") return 1;
  if (word == "false" || word == "0" || word == "f") return 0;
  return std::nullopt;
}

std::string join_parts(const std::vector<std::string_view>& parts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) out.append(i == begin ? "" : "_").append(parts[i]);
  return out;
}

Tokens::Tokens(std::string_view name) : parts_(split(name, '_')) {}

}  // namespace kselect::ck
