#include "ops/kernel_sets.h"

#include <set>

#include "core/error.h"
#include "core/text.h"
#include "ops/cpu_gemm_core/bf16.h"

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

void check_operands(const std::vector<std::string>& names, std::span<void* const> operands) {
  if (operands.size() != names.size()) {
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    throw InputError("", 0, "operands",
                     "expected " + std::to_string(names.size()) + " (" + list + "), got " +
                         std::to_string(operands.size()));
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!operands[i]) throw InputError("", 0, names[i], "the operand's pointer is null");
}

void fill_operand(void* storage, std::size_t count, bool bf16, std::uint64_t seed) {
  if (!bf16) {
    auto* values = static_cast<float*>(storage);
    for (std::size_t i = 0; i < count; ++i) values[i] = operand_value(seed, i);
    return;
  }
  auto* bits = static_cast<std::uint16_t*>(storage);
  for (std::size_t i = 0; i < count; ++i) bits[i] = kernels::float_to_bf16(operand_value(seed, i));
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
