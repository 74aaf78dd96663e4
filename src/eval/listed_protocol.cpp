#include "eval/listed_protocol.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <set>

#include "core/error.h"
#include "core/hardware.h"
#include "core/progress.h"
#include "eval/listed_problem.h"
#include "model/folds.h"
#include "ops/operation.h"

namespace kselect::eval {

namespace {

// The problem counts of the report's header line.
void count_data(const std::vector<ListedProblem>& problems, ListedReport& report) {
  report.problems = long(problems.size());
  std::set<std::string> kernels;
  for (const auto& p : problems) {
    report.rows += long(p.listed.size());
    for (const auto& l : p.listed) kernels.insert(l.kernel);
  }
  report.kernels = long(kernels.size());
}

// Each problem's cross-validation fold, grouped on its geometry (the engine's group key).
std::vector<int> assign_folds(const std::vector<ListedProblem>& problems,
                              const std::map<std::string, nlohmann::json>& kernel_configs,
                              int folds) {
  std::vector<const data::Measurement*> all;
  for (const auto& p : problems) all.insert(all.end(), p.rows.begin(), p.rows.end());
  auto keys = imported_data_operation().fitted_feature_engine(host_hardware(), all, kernel_configs);
  std::vector<std::string> groups;
  for (const auto& p : problems) groups.push_back(keys->group_key(p.text));
  return model::group_k_fold(groups, folds);
}

ListedOutcome judge(const ListedProblem& p, const std::string& pick, double tie_band) {
  ListedOutcome o;
  o.context = p.context;
  double ms = pick.empty() ? std::nan("") : p.time_of(pick);
  o.unlisted = std::isnan(ms);
  if (o.unlisted) ms = p.slowest_ms;  // upper bound of the efficiency
  o.hit = !o.unlisted && ms <= p.best_ms;
  o.tie = !o.unlisted && ms <= p.best_ms * (1 + tie_band);
  o.efficiency = p.best_ms / ms;
  o.slowdown = ms / p.best_ms - 1;
  o.pick = {.problem = p.text,
            .picked = pick,
            .best = p.listed.front().kernel,
            .unlisted = o.unlisted,
            .efficiency = o.efficiency,
            .context = p.context,
            .fold = 0,
            .listed = p.listed.size(),
            .baseline = {}};
  return o;
}

}  // namespace

ListedReport evaluate_listed(const std::vector<data::Measurement>& rows,
                             const std::map<std::string, nlohmann::json>& kernel_configs,
                             const ListedOptions& o) {
  if (o.folds < 2) throw InputError("", 0, "folds", "the strict protocol needs at least 2 folds");
  model::check_boosting(o.boosting);
  auto start = std::chrono::steady_clock::now();
  ListedReport report;
  report.method = o.method;
  report.folds = o.folds;
  report.tie_band = o.tie_band;
  std::vector<ListedProblem> problems = collect_listed_problems(rows, report.skipped_no_time);
  count_data(problems, report);
  std::vector<int> fold_of = assign_folds(problems, kernel_configs, o.folds);

  int models = o.method == ListedMethod::kApplicability ? 2 : 1;
  Progress progress("eval", long(o.folds) * models * o.boosting.trees, std::cerr, o.progress);
  long done = 0;
  std::vector<ListedOutcome> outcomes, baseline;
  for (int fold = 0; fold < o.folds; ++fold) {
    std::vector<const ListedProblem*> train, test;
    for (std::size_t i = 0; i < problems.size(); ++i)
      (fold_of[i] == fold ? test : train).push_back(&problems[i]);
    if (test.empty()) continue;
    FoldSelector selector(train, kernel_configs, o.method, o.boosting, progress, done);
    std::vector<std::string> picks, baseline_picks;
    selector.pick(test, picks, baseline_picks);
    for (std::size_t i = 0; i < test.size(); ++i) {
      outcomes.push_back(judge(*test[i], picks[i], o.tie_band));
      baseline.push_back(judge(*test[i], baseline_picks[i], o.tie_band));
      ListedPick& pick = outcomes.back().pick;
      pick.fold = fold;
      pick.baseline = baseline_picks[i];
    }
  }
  progress.finish();
  summarize_outcomes(outcomes, baseline, report);
  report.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kselect::eval
