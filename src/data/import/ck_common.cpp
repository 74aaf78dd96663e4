#include "data/import/ck_common.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <istream>
#include <sstream>

#include "core/error.h"

namespace kselect::importers::ck {

std::optional<std::string> word(std::string_view text) {
  if (!kselect::ck::is_word(text)) return std::nullopt;
  return lower(text);
}

std::optional<std::int64_t> json_dim(const nlohmann::json& value, std::int64_t min) {
  std::int64_t out = 0;
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(kMaxDim))
      return std::nullopt;
    out = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    double d = value.get<double>();
    if (!(d >= double(min) && d <= double(kMaxDim)) || d != std::floor(d)) return std::nullopt;
    out = static_cast<std::int64_t>(d);
  } else {
    return std::nullopt;
  }
  if (out < min || out > kMaxDim) return std::nullopt;
  return out;
}

std::optional<double> json_number(const nlohmann::json& object, const std::string& key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nan("");
  if (!it->is_number()) return std::nullopt;
  return it->get<double>();
}

nlohmann::json flat_config(const nlohmann::json& object) {
  nlohmann::json out = nlohmann::json::object();
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items()) {
    if (key == "name") continue;
    if (value.is_boolean()) {
      out[key] = value.get<bool>() ? 1 : 0;
    } else if (value.is_string()) {
      std::string text = value.get<std::string>();
      std::string word = lower(text);
      if (word == "true" || word == "false")
        out[key] = word == "true" ? 1 : 0;
      else
        out[key] = text;
    } else if (value.is_number()) {
      out[key] = value;
    }
  }
  return out;
}

}  // namespace kselect::importers::ck
