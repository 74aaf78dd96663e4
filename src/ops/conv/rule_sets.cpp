// Conv rule sets: rules/conv_cpu.json run through the generic rule engine (src/rules/), each
// configuration converted to a ConvConfig. Generated once, on first use.
#include "ops/conv/rule_sets.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
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

}  // namespace

const std::vector<ConvConfig>& rule_set(std::string_view set) {
  return cached().get(set);
}

std::vector<std::string> rule_set_names() {
  return cached().names();
}

}  // namespace kselect::conv
