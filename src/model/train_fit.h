#pragma once
// Boosting train()'s XGBoost models (private to model/): the progress line over every round,
// a fold's fit with early stopping, and a target's final model.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/progress.h"
#include "model/train.h"
#include "model/train_data.h"
#include "model/xgboost.h"

namespace kselect::model {

// Counts boosting rounds for the progress line (rate and ETA on stderr).
class RoundProgress {
 public:
  RoundProgress(const TrainOptions& options, long total);
  void step(const std::string& what) { line_.update(++done_, what); }
  // Rounds that early stopping made unnecessary count as done.
  void skip(long rounds) { done_ += rounds; }
  long done() const { return done_; }
  void reach(long done, const std::string& what);
  void finish() { line_.finish(); }

 private:
  kselect::Progress line_;
  long done_ = 0;
};

struct FoldFit {
  std::vector<float> predictions;
  int best_trees = 0;
};

// Boosts on `train` with early stopping on `valid`; predicts `valid` with the best prefix.
FoldFit fit_fold(const xgb::Matrix& train, const xgb::Matrix& valid, const TrainOptions& o,
                 RoundProgress& progress, const std::string& label);

// Continues boosting a warm-start model, or fits a fresh final model on every row (as many
// rounds as final_rounds() of result.folds), and writes it (save_booster); sets result.trees
// and result.previous_trees.
void fit_final(const Dataset& d, const std::vector<std::size_t>& rows,
               const std::vector<float>& labels, const std::string& target,
               const std::vector<std::string>& names, const TrainOptions& o,
               const std::optional<RowPrior>& prior, RoundProgress& progress, TargetResult& result);

}  // namespace kselect::model
