// Conv rule sets: rules/conv_cpu.json run through the generic rule engine (src/rules/), each
// configuration converted to a ConvConfig. Generated once, on first use.
#include "ops/conv/rule_sets.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
#include "ops/conv/ck_names.h"
#include "ops/kernel_sets.h"
#include "rules/sets.h"

namespace kselect::conv {

namespace {

// The rule file's name template is ConvConfig's name format (its optional suffixes are one
// "suffix" axis), so a configuration is read back from its name; one that does not round-trip
// is a bug in the rule file.
ConvConfig to_config(const rules::Space& space, std::size_t index) {
  const std::string name = space.name(index);
  std::string why;
  auto config = ConvConfig::from_name(name, &why);
  if (!config)
    throw InputError(space.rules().source(), 0, "name",
                     "configuration '" + name + "' is not a ConvConfig name: " + why);
  nlohmann::json fields = space.fields(index), parsed = *config;
  for (const char* key : {"tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "warp_k", "warp_tile_m",
                          "warp_tile_n", "warp_tile_k", "vec_a", "vec_b", "vec_c", "pipeline",
                          "epilogue", "scheduler", "dtype", "layout", "ndim"})
    if (fields.at(key) != parsed.at(key))
      throw InputError(space.rules().source(), 0, key,
                       "configuration '" + name + "' reads back with another " + key);
  if (fields.at("direction") != parsed.at("dir"))
    throw InputError(space.rules().source(), 0, "direction",
                     "configuration '" + name + "' reads back with another direction");
  return *config;
}

const NamedConfigSets<ConvConfig>& cached() {
  static const NamedConfigSets<ConvConfig> sets("conv_cpu", to_config);  // thread-safe
  return sets;
}

// Whether the rule axis value `axis` (an optional-suffix axis holds "" or "_<text>") states
// the parsed field `parsed`, whose default is `fallback`.
bool suffix_states(const std::string& axis, const nlohmann::json& parsed,
                   const nlohmann::json& fallback) {
  if (axis.empty()) return parsed == fallback;
  if (parsed.is_number()) return parsed != 0;
  const std::string text = parsed.get<std::string>();
  return axis.size() > text.size() &&
         axis.compare(axis.size() - text.size(), text.size(), text) == 0 &&
         axis[axis.size() - text.size() - 1] == '_';
}

// The differences between a configuration's rule fields and its parsed CK name.
std::string ck_name_problem(const nlohmann::json& fields, const CkKernelName& parsed) {
  const std::string& name = fields.at("name").get_ref<const std::string&>();
  if (parsed.config.empty() || !parsed.dir) return "does not parse as a CK grouped-conv name";
  if (format_ck_kernel_name(parsed) != name)
    return "formats back as '" + format_ck_kernel_name(parsed) + "'";
  if (fields.value("direction", "") != ck_direction(*parsed.dir))
    return "reads back with direction " + std::string(ck_direction(*parsed.dir));
  if (fields.value("dtype", "") != parsed.dtype) return "reads back with dtype " + parsed.dtype;
  const nlohmann::json defaults = ck_long_defaults();
  for (const auto& [key, value] : parsed.config.items()) {
    const nlohmann::json fallback = defaults.value(key, nlohmann::json());
    if (!fields.contains(key)) {
      if (value != fallback) return "sets " + key + " = " + value.dump() + ", which no axis states";
      continue;
    }
    const nlohmann::json& axis = fields.at(key);
    const bool suffix_axis =
        axis.is_string() && (axis.get<std::string>().empty() || axis.get<std::string>()[0] == '_');
    if (suffix_axis ? !suffix_states(axis.get<std::string>(), value, fallback) : axis != value)
      return "reads back with " + key + " = " + value.dump() + " (the rules say " + axis.dump() +
             ")";
  }
  return "";
}

}  // namespace

std::vector<std::string> check_ck_names(const rules::RuleSets& sets) {
  const rules::Space& space = sets.space();
  std::vector<std::string> problems;
  for (std::size_t c = 0; c < space.size() && problems.size() < 20; ++c) {
    const std::string why = ck_name_problem(space.fields(c), parse_ck_kernel_name(space.name(c)));
    if (!why.empty())
      problems.push_back(sets.rules().source() + ": '" + space.name(c) + "' " + why);
  }
  return problems;
}

const std::vector<ConvConfig>& rule_set(std::string_view set) {
  return cached().get(set);
}

std::vector<std::string> rule_set_names() {
  return cached().names();
}

}  // namespace kselect::conv
