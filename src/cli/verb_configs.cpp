// kselect configs: the kernel names (or all fields, --json) of a named rule set.
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "core/text.h"
#include "ops/operation.h"
#include "rules/sets.h"

namespace kselect::cli {

namespace {

struct ConfigsArgs {
  std::string op{default_operation().name()}, rules = "default", rules_file, arch, dtype, layout,
                                              filter;
  bool json = false;
};

KeyValues make_filter(const ConfigsArgs& a) {
  KeyValues filter = KeyValues::parse(a.filter, "--filter");
  if (!a.dtype.empty()) filter.set("dtype", a.dtype);
  if (!a.layout.empty()) filter.set("layout", a.layout);
  return filter;
}

// A user rule file, or a built-in one for another target (--arch), goes straight through the
// rule engine: its kernels are listed, not built.
int run_file(const ConfigsArgs& a, rules::RuleFile file) {
  rules::RuleSets sets(std::move(file));
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

// The built-in rule file of `op` for target `arch` (e.g. conv for gfx950).
rules::RuleFile target_rules(const Operation& op, const std::string& arch) {
  auto stem = rules::RuleFile::embedded_stem(op.name(), arch);
  if (!stem) {
    const auto targets = rules::RuleFile::embedded_targets(op.name());
    throw UsageError("configs: no built-in " + std::string(op.name()) + " rule file for --arch " +
                     arch + " (targets: " + join(targets) + ")");
  }
  return rules::RuleFile::embedded(*stem);
}

int run(const ConfigsArgs& a) {
  if (!a.rules_file.empty()) {
    if (!a.arch.empty()) throw UsageError("configs: --arch and --rules-file exclude each other");
    return run_file(a, rules::RuleFile::load(a.rules_file));
  }
  const Operation& op = find_operation(a.op);
  if (!a.arch.empty() && a.arch != rules::kNativeTarget)
    return run_file(a, target_rules(op, a.arch));
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
  cmd->add_option("--arch", a->arch,
                  "the op's kernels for this target: cpu (the default, the kernels kselect runs) "
                  "or a GPU whose CK kernels are listed but not runnable here (conv: gfx942, "
                  "gfx950)");
  cmd->add_option("--dtype", a->dtype, "only this dtype (fp32, bf16; fp16 on GPU targets)");
  cmd->add_option("--layout", a->layout, "only this layout (rcr, rrr, crr, ccr)");
  cmd->add_option("--filter", a->filter,
                  "only kernels with these fields, e.g. pipeline=mem,persistent=true");
  cmd->add_flag("--json", a->json, "an array of objects with every field");
  return [a]() { return run(*a); };
}

RegisterVerb reg("configs", setup);

}  // namespace

}  // namespace kselect::cli
