// kselect rules check|list|explain: the rule files' consistency, their named sets, and why a
// configuration is or is not valid.
#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/error.h"
#include "core/text.h"
#include "ops/operation.h"
#include "rules/check.h"

namespace kselect::cli {

namespace {

struct RulesArgs {
  std::string rules_file, builtin, constants, name;
  bool json = false;
};

// The rule files a command works on: --rules-file, --builtin, or every built-in file.
std::vector<std::unique_ptr<rules::RuleSets>> load(const RulesArgs& a) {
  KeyValues overrides = KeyValues::parse(a.constants, "--constant");
  std::vector<std::unique_ptr<rules::RuleSets>> out;
  if (!a.rules_file.empty()) {
    out.push_back(
        std::make_unique<rules::RuleSets>(rules::RuleFile::load(a.rules_file, overrides)));
    return out;
  }
  std::vector<std::string> stems = rules::RuleFile::embedded_names();
  if (!a.builtin.empty()) stems = {a.builtin};
  for (const auto& stem : stems)
    out.push_back(std::make_unique<rules::RuleSets>(rules::RuleFile::embedded(stem, overrides)));
  return out;
}

int run_check(const RulesArgs& a) {
  nlohmann::json all = nlohmann::json::array();
  bool ok = true;
  for (const auto& sets : load(a)) {
    rules::CheckReport report = rules::check(*sets);
    // A built-in file for the native target also feeds its operation: the operation must list
    // the same kernels. One for another target (a GPU's CK kernels) must name them in the
    // op's codec of that target's names.
    if (a.rules_file.empty() && a.constants.empty()) {
      const Operation& op = find_operation(sets->rules().op());
      auto extra = sets->rules().native()
                       ? rules::check_against(*sets,
                                              [&](const std::string& set) {
                                                return op.kernel_names(set, KeyValues{});
                                              })
                       : op.check_target_rules(*sets);
      report.problems.insert(report.problems.end(), extra.begin(), extra.end());
    }
    ok = ok && report.ok();
    if (a.json)
      all.push_back(report.to_json());
    else
      std::cout << report.to_text();
    for (const auto& p : report.problems) std::cerr << "kselect: rules check: " << p << "\n";
  }
  if (a.json) std::cout << all.dump(2) << "\n";
  return ok ? kExitOk : kExitFailure;
}

int run_list(const RulesArgs& a) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& sets : load(a)) {
    rules::CheckReport report = rules::check(*sets);
    if (a.json) {
      all.push_back(report.to_json());
      continue;
    }
    std::cout << sets->rules().source() << " (op " << sets->rules().op() << ", target "
              << sets->rules().target() << ")\n";
    for (const auto& s : report.sets)
      std::cout << "  " << s.name << "\t" << s.total << "\t" << s.doc << "\n";
  }
  if (a.json) std::cout << all.dump(2) << "\n";
  return kExitOk;
}

int run_explain(const RulesArgs& a) {
  auto loaded = load(a);
  rules::Explanation e;
  // The first rule file whose name template reads the name explains it.
  for (const auto& sets : loaded) {
    e = rules::explain(*sets, a.name);
    if (rules::NameParser(sets->rules()).parse(a.name)) break;
  }
  if (a.json) {
    std::cout << nlohmann::json{{"name", e.name},
                                {"valid", e.problems.empty()},
                                {"fields", e.fields},
                                {"problems", e.problems},
                                {"sets", e.sets}}
                     .dump(2)
              << "\n";
  } else if (e.problems.empty()) {
    std::cout << e.name << ": valid; in sets: " << join(e.sets) << "\n";
  } else {
    std::cout << e.name << ": not valid\n";
    for (const auto& p : e.problems) std::cout << "  " << p << "\n";
  }
  return e.problems.empty() ? kExitOk : kExitFailure;
}

void add_common(CLI::App* sub, RulesArgs& a) {
  sub->add_option("--rules-file", a.rules_file, "a rule file to use instead of the built-in ones");
  sub->add_option("--builtin", a.builtin, "only this built-in rule file (e.g. gemm_cpu)");
  sub->add_option("--constant", a.constants, "override constants, e.g. l1_kib=32,l2_kib=512");
  sub->add_flag("--json", a.json, "JSON on stdout");
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<RulesArgs>();
  auto* cmd = app.add_subcommand("rules", "check, list and explain the configuration rule sets");
  cmd->require_subcommand(1);
  auto* check =
      cmd->add_subcommand("check", "generate every set and verify its relations and sizes");
  auto* list = cmd->add_subcommand("list", "the named sets and their sizes");
  auto* explain = cmd->add_subcommand("explain", "which constraints a configuration name violates");
  explain->add_option("name", args->name, "kernel name")->required();
  for (auto* sub : {check, list, explain}) add_common(sub, *args);
  return [args, check, list]() {
    if (check->parsed()) return run_check(*args);
    if (list->parsed()) return run_list(*args);
    return run_explain(*args);
  };
}

RegisterVerb reg("rules", setup);

}  // namespace

}  // namespace kselect::cli
