#include "core/key_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace kselect {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<std::int64_t> parse_int(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

KeyValues KeyValues::parse(std::string_view text, const std::string& source) {
  KeyValues kv;
  kv.source_ = source;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw InputError(source, 0, std::string(item), "expected key=value");
    std::string key(trim(item.substr(0, eq)));
    if (key.empty()) throw InputError(source, 0, "", "empty key in '" + std::string(item) + "'");
    if (kv.has(key)) throw InputError(source, 0, key, "given twice");
    kv.items_.emplace_back(key, std::string(trim(item.substr(eq + 1))));
  }
  return kv;
}

void KeyValues::set(std::string key, std::string value) {
  for (auto& [k, v] : items_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(key), std::move(value));
}

bool KeyValues::has(std::string_view key) const {
  return get(key).has_value();
}

std::optional<std::string> KeyValues::get(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  return std::nullopt;
}

std::string KeyValues::require(std::string_view key) const {
  auto v = get(key);
  if (!v) throw InputError(source_, 0, std::string(key), "missing");
  return *v;
}

std::int64_t KeyValues::require_int(std::string_view key) const {
  std::string v = require(key);
  auto parsed = parse_int(v);
  if (!parsed) throw InputError(source_, 0, std::string(key), "not an integer: '" + v + "'");
  return *parsed;
}

std::int64_t KeyValues::get_int(std::string_view key, std::int64_t fallback) const {
  return has(key) ? require_int(key) : fallback;
}

double KeyValues::require_double(std::string_view key) const {
  std::string v = require(key);
  auto parsed = parse_double(v);
  if (!parsed || !std::isfinite(*parsed))
    throw InputError(source_, 0, std::string(key), "not a finite number: '" + v + "'");
  return *parsed;
}

std::vector<std::string> KeyValues::unknown_keys(const std::vector<std::string>& known) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_)
    if (std::find(known.begin(), known.end(), k) == known.end()) out.push_back(k);
  return out;
}

std::string KeyValues::to_string() const {
  std::string out;
  for (const auto& [k, v] : items_) {
    if (!out.empty()) out += ',';
    out += k + "=" + v;
  }
  return out;
}

}  // namespace kselect
