#include "data/import/csv_fields.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "data/import/common.h"

namespace kselect::importers {

ParsedNumber parse_number(std::string_view text) {
  const std::string t = trim(text);
  ParsedNumber out;
  std::string_view digits = t;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // from_chars refuses '+'
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.value);
  if (t.empty())
    out.error = "empty";
  else if (ec == std::errc::result_out_of_range)
    out.error = "number out of range '" + t + "'";
  else if (ec != std::errc() || ptr != digits.data() + digits.size())
    out.error = "not a number '" + t + "'";
  return out;
}

namespace {
// Integral doubles up to 2^53 are printed as integers (exactly representable).
constexpr double kMaxExactInteger = 9007199254740992.0;

std::string shortest(double value) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}
}  // namespace

std::optional<std::string> canonical_value(std::string_view text, std::string& why) {
  std::string t = trim(text);
  if (t.empty()) {
    why = "empty value";
    return std::nullopt;
  }
  if (t.find_first_of(",=") != std::string::npos) {
    why = "value '" + t + "' contains ',' or '='";
    return std::nullopt;
  }
  ParsedNumber number = parse_number(t);
  if (!number.error.empty() || !std::isfinite(number.value)) return t;
  if (number.value == std::floor(number.value) && std::fabs(number.value) <= kMaxExactInteger)
    return std::to_string(static_cast<long long>(number.value));
  return shortest(number.value);
}

nlohmann::json typed_value(std::string_view text) {
  const std::string t = trim(text);
  if (auto integer = parse_int(t)) return *integer;
  ParsedNumber number = parse_number(t);
  if (number.error.empty() && std::isfinite(number.value)) return number.value;
  const std::string folded = lower(t);
  if (folded == "true") return true;
  if (folded == "false") return false;
  return t;
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string folded = lower(trim(text));
  if (folded == "1" || folded == "true" || folded == "yes") return true;
  if (folded == "0" || folded == "false" || folded == "no") return false;
  return std::nullopt;
}

nlohmann::json parse_kernel_name(std::string_view name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = std::min(name.find('_', start), name.size());
    std::string_view piece = name.substr(start, end - start);
    if (parts.empty() || piece.find('=') != std::string_view::npos)
      parts.emplace_back(piece);
    else
      parts.back().append("_").append(piece);
    start = end + 1;
  }
  nlohmann::json config = nlohmann::json::object();
  for (const std::string& part : parts) {
    std::size_t eq = part.find('=');
    if (eq == std::string::npos) {
      if (!part.empty()) config["base"] = part;
      continue;
    }
    std::string key = lower(trim(part.substr(0, eq)));
    if (!key.empty()) config[key] = typed_value(part.substr(eq + 1));
  }
  return config;
}

namespace {
std::optional<double> field(const KeyValues& problem, std::string_view key) {
  auto text = problem.get(key);
  if (!text) return std::nullopt;
  ParsedNumber number = parse_number(*text);
  if (!number.error.empty() || !std::isfinite(number.value) || number.value <= 0)
    return std::nullopt;
  return number.value;
}

std::optional<double> product(const KeyValues& problem, std::initializer_list<const char*> keys) {
  double out = 1;
  for (const char* key : keys) {
    auto value = field(problem, key);
    if (!value) return std::nullopt;
    out *= *value;
  }
  return out;
}
}  // namespace

std::optional<double> problem_flops(const KeyValues& problem) {
  if (auto conv = product(problem, {"n", "c", "k", "ho", "wo", "y", "x"})) {
    double groups = field(problem, "g").value_or(1);
    double depth = field(problem, "do").value_or(1) * field(problem, "z").value_or(1);
    return 2 * *conv / groups * depth;
  }
  if (auto gemm = product(problem, {"m", "n", "k"})) return 2 * *gemm;
  return std::nullopt;
}

}  // namespace kselect::importers
