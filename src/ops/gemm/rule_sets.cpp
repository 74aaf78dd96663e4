// GEMM rule sets: rules/gemm_cpu.json run through the generic rule engine (src/rules/), each
// configuration converted to a GemmConfig. Generated once, on first use.
#include "ops/gemm/rule_sets.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
#include "ops/kernel_sets.h"
#include "rules/sets.h"

namespace kselect::gemm {

namespace {

// The rule file's axes are GemmConfig's JSON fields, and its name template is GemmConfig's
// name format; a configuration that does not round-trip is a bug in the rule file.
GemmConfig to_config(const rules::Space& space, std::size_t index) {
  nlohmann::json fields = space.fields(index);
  GemmConfig config = fields.get<GemmConfig>();
  if (config.name() != space.name(index) || GemmConfig::parse_name(space.name(index)) != config)
    throw InputError(space.rules().source(), 0, "name",
                     "configuration '" + space.name(index) +
                         "' does not round-trip through "
                         "GemmConfig (it becomes '" +
                         config.name() + "')");
  return config;
}

const NamedConfigSets<GemmConfig>& cached() {
  static const NamedConfigSets<GemmConfig> sets("gemm_cpu", to_config);  // thread-safe
  return sets;
}

}  // namespace

const std::vector<GemmConfig>& rule_set(std::string_view set) {
  return cached().get(set);
}

std::vector<std::string> rule_set_names() {
  return cached().names();
}

}  // namespace kselect::gemm
