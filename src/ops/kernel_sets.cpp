#include "ops/kernel_sets.h"

#include <set>

#include "core/error.h"
#include "core/text.h"

namespace kselect {

namespace {

std::string field_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

}  // namespace

void throw_unknown_set(std::string_view set, const std::vector<std::string>& known) {
  throw InputError("", 0, "rules",
                   "unknown rule set '" + std::string(set) + "' (known: " + join(known) + ")");
}

std::vector<std::string> union_of_sets(
    std::string_view sets,
    const std::function<std::vector<std::string>(std::string_view)>& one_set) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  while (true) {
    const auto plus = sets.find('+');
    for (auto& name : one_set(sets.substr(0, plus)))
      if (seen.insert(name).second) names.push_back(std::move(name));
    if (plus == std::string_view::npos) return names;
    sets.remove_prefix(plus + 1);
  }
}

void check_filter_keys(const nlohmann::json& fields, const KeyValues& filter, std::string_view op) {
  for (const auto& [key, value] : filter.items())
    if (!fields.contains(key))
      throw InputError("", 0, key, "unknown " + std::string(op) + " kernel field in filter");
}

bool fields_match(const nlohmann::json& fields, const KeyValues& filter) {
  for (const auto& [key, value] : filter.items())
    if (lower(field_text(fields.at(key))) != lower(value)) return false;
  return true;
}

std::vector<std::string> order_by_cost(std::vector<std::string> kernels,
                                       const std::function<double(const std::string&)>& cost) {
  std::vector<std::pair<double, std::string>> keyed;
  for (auto& name : kernels) keyed.emplace_back(cost(name), std::move(name));
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ordered;
  for (auto& entry : keyed) ordered.push_back(std::move(entry.second));
  return ordered;
}

std::uint64_t splitmix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

float operand_value(std::uint64_t seed, std::uint64_t index) {
  return float(int(splitmix(seed * 0x9E3779B97F4A7C15ull + index) % 5) - 2);
}

}  // namespace kselect
