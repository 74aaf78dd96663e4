// kselect compare: CK's acceptance rule between two `kselect eval --json` reports
// (docs/evaluation.md). Exit 0 when the candidate is accepted, 1 when rejected.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/verb.h"
#include "core/error.h"
#include "eval/compare.h"

namespace kselect::cli {
namespace {

struct CompareArgs {
  std::string baseline, candidate;
  eval::CompareOptions options;
  bool json = false;
};

int run(const CompareArgs& a) {
  eval::CompareResult r =
      eval::compare(eval::load_run(a.baseline), eval::load_run(a.candidate), a.options);
  if (a.json)
    std::cout << nlohmann::json(r).dump(2) << "\n";
  else
    std::cout << eval::format_comparison(r);
  return r.accepted ? kExitOk : kExitFailure;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Accept or reject a candidate model against a baseline (exit 0 / 1)");
  cmd->add_option("--baseline", a->baseline, "Baseline report (kselect eval --json)")->required();
  cmd->add_option("--candidate", a->candidate, "Candidate report (kselect eval --json)")
      ->required();
  cmd->add_option("--mean-points", a->options.mean_points, "Allowed drop of the mean")
      ->capture_default_str();
  cmd->add_option("--median-points", a->options.median_points, "Allowed drop of the median")
      ->capture_default_str();
  cmd->add_option("--p10-points", a->options.p10_points, "Allowed drop of P10")
      ->capture_default_str();
  cmd->add_option("--drop-points", a->options.drop_points, "Allowed drop of any one problem")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the verdict as JSON");
  return [a] { return run(*a); };
}

RegisterVerb reg("compare", setup);

}  // namespace
}  // namespace kselect::cli
