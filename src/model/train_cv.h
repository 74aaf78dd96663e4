#pragma once
// Shape-grouped cross-validation of train() (private to model/): the folds every objective
// shares, each fold's fit and scores, and the out-of-fold predictions with their metrics.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/feature_spec.h"
#include "model/train.h"
#include "model/train_data.h"
#include "model/train_fit.h"

namespace kselect::model {

// The fold of each of `rows` (indices into `groups`, each row's CV group key): group_k_fold
// over their groups. Every objective splits its usable rows (target_rows) this way, so their
// out-of-fold results compare problem for problem.
std::vector<int> fold_of_rows(std::span<const std::string> groups,
                              const std::vector<std::size_t>& rows, int folds);

// The pick metrics (FoldResult::set_picks) of rows scored `score`, of `problems`, measuring
// `measured` on `target`; no fit metrics (NaN).
FoldResult pick_result(const std::vector<std::string>& problems, const std::vector<double>& score,
                       const std::vector<double>& measured, const std::string& target);

// Fits o.folds models, each early-stopped on its held-out fold, on `rows` (whose `trains`
// rows train; a held-out fold scores all of its rows). Writes oof_<target>.csv into o.out_dir
// and fills result.folds and result.overall. Each fold fits its own prior scale (on
// `prior_column`) and shortlist on its training rows alone, like everything else it learns.
void cross_validate(const Dataset& d, const std::vector<std::size_t>& rows,
                    const std::vector<float>& labels, const std::vector<bool>& trains,
                    const std::string& target, const FeatureSpec& spec, const TrainOptions& o,
                    std::optional<std::size_t> prior_column, RoundProgress& progress,
                    TargetResult& result);

}  // namespace kselect::model
