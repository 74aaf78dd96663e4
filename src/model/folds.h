#pragma once
// Group-aware cross-validation folds and the fold metrics of training.
#include <string>
#include <vector>

namespace kselect::model {

// GroupKFold: every row of a group lands in the same fold; groups go, largest first, to the
// fold with the fewest rows so far (deterministic, ties by key). Returns the fold of each row.
// Throws InputError when there are fewer distinct groups than folds.
std::vector<int> group_k_fold(const std::vector<std::string>& groups, int folds);

// Per-problem efficiency of picking the best-scored row: measured(pick) / best measured when
// higher is better, best / measured(pick) otherwise. `problems` names each row's problem.
std::vector<double> pick_efficiencies(const std::vector<std::string>& problems,
                                      const std::vector<double>& score,
                                      const std::vector<double>& measured, bool higher_is_better);

// Summary of per-problem pick efficiencies: mean, P10 and top-1 (the share of problems whose
// pick is a best kernel, efficiency 1); NaN when there are none.
struct PickStats {
  double mean = 0, p10 = 0, top1 = 0;
};
PickStats pick_stats(const std::vector<double>& efficiencies);

}  // namespace kselect::model
