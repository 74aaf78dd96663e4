// GEMM rule sets: rules/gemm_cpu.json run through the generic rule engine (src/rules/), each
// configuration converted to a GemmConfig. Generated once, on first use.
#include "ops/gemm/rule_sets.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"
#include "rules/sets.h"

namespace kselect::gemm {

namespace {

struct GemmRuleSets {
  std::vector<std::string> names;
  std::map<std::string, std::vector<GemmConfig>, std::less<>> sets;
};

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

GemmRuleSets generate() {
  rules::RuleSets generated(rules::RuleFile::embedded("gemm_cpu"));
  const rules::Space& space = generated.space();
  std::vector<GemmConfig> all;
  all.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) all.push_back(to_config(space, i));
  GemmRuleSets out;
  out.names = generated.names();
  for (const auto& name : out.names) {
    auto& configs = out.sets[name];
    for (std::size_t index : generated.get(name)) configs.push_back(all[index]);
  }
  return out;
}

const GemmRuleSets& cached() {
  static const GemmRuleSets sets = generate();  // thread-safe initialisation
  return sets;
}

}  // namespace

const std::vector<GemmConfig>& rule_set(std::string_view set) {
  const auto& all = cached();
  auto it = all.sets.find(set);
  if (it == all.sets.end()) {
    throw InputError(
        "", 0, "rules",
        "unknown rule set '" + std::string(set) + "' (known: " + join(all.names) + ")");
  }
  return it->second;
}

std::vector<std::string> rule_set_names() {
  return cached().names;
}

}  // namespace kselect::gemm
