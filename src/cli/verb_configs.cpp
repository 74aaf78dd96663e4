// kselect configs: the kernel names (or all fields, --json) of a named rule set.
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "ops/operation.h"
#include "rules/sets.h"

namespace kselect::cli {

namespace {

struct ConfigsArgs {
  std::string op{default_operation().name()}, rules = "default", rules_file, dtype, layout, filter;
  bool json = false;
};

KeyValues make_filter(const ConfigsArgs& a) {
  KeyValues filter = KeyValues::parse(a.filter, "--filter");
  if (!a.dtype.empty()) filter.set("dtype", a.dtype);
  if (!a.layout.empty()) filter.set("layout", a.layout);
  return filter;
}

// A user rule file goes straight through the rule engine.
int run_file(const ConfigsArgs& a) {
  rules::RuleSets sets(rules::RuleFile::load(a.rules_file));
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t c : sets.matching(a.rules, make_filter(a))) {
    if (a.json)
      out.push_back(sets.space().fields(c));
    else
      std::cout << sets.space().name(c) << "\n";
  }
  if (a.json) std::cout << out.dump(2) << "\n";
  return kExitOk;
}

int run(const ConfigsArgs& a) {
  if (!a.rules_file.empty()) return run_file(a);
  const Operation& op = find_operation(a.op);
  auto names = op.kernel_names(a.rules, make_filter(a));
  if (!a.json) {
    for (const auto& n : names) std::cout << n << "\n";
    return kExitOk;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : names) out.push_back(op.kernel_fields(n));
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<ConfigsArgs>();
  auto* cmd = app.add_subcommand("configs", "list the kernels of a rule set");
  cmd->add_option("--op", a->op, "operation")->capture_default_str();
  cmd->add_option("--rules", a->rules, "rule set: full, profiler, tests, full-tests, tiny, default")
      ->capture_default_str();
  cmd->add_option("--rules-file", a->rules_file, "use this rule file instead of the built-in one");
  cmd->add_option("--dtype", a->dtype, "only this dtype (fp32, bf16)");
  cmd->add_option("--layout", a->layout, "only this layout (rcr, rrr, crr, ccr)");
  cmd->add_option("--filter", a->filter,
                  "only kernels with these fields, e.g. pipeline=mem,persistent=true");
  cmd->add_flag("--json", a->json, "an array of objects with every field");
  return [a]() { return run(*a); };
}

RegisterVerb reg("configs", setup);

}  // namespace

}  // namespace kselect::cli
