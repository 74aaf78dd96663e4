#include "model/train_fit.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include "core/error.h"
#include "model/booster_fit.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "model/train_artifacts.h"

namespace kselect::model {

Loss training_loss(Objective objective) {
  switch (objective) {
    case Objective::kRanking:
      return Loss::kPairwise;
    case Objective::kClassify:
      return Loss::kSoftprob;
    case Objective::kRegression:
    case Objective::kEfficiency:
      return Loss::kSquaredError;
    case Objective::kBlend:
    case Objective::kRoute:
      break;
  }
  throw std::logic_error("model::training_loss: a blend or route is not trained");
}

int final_rounds(const TrainOptions& o, std::span<const int> fold_rounds) {
  if (o.final_trees > 0) return o.final_trees;
  if (fold_rounds.empty()) return o.boosting.trees;
  double mean_best = 0;
  for (int rounds : fold_rounds) mean_best += rounds;
  mean_best /= double(fold_rounds.size());
  const double scale = o.folds > 1 ? double(o.folds) / double(o.folds - 1) : 1.0;
  return std::clamp(int(std::lround(mean_best * scale)), 1, o.boosting.trees);
}

RoundProgress::RoundProgress(const TrainOptions& options, long total)
    : line_("train", total, std::cerr, options.progress) {}

void RoundProgress::reach(long done, const std::string& what) {
  line_.update(done_ = std::max(done_, done), what);
}

namespace {

void set_params(xgb::Booster& b, const TrainOptions& o) {
  b.set_param("eval_metric", o.objective == Objective::kRanking ? "ndcg@3" : "rmse");
  set_boosting_params(b, o.boosting, training_loss(o.objective));
}

}  // namespace

FoldFit fit_fold(const xgb::Matrix& train, const xgb::Matrix& valid, const TrainOptions& o,
                 RoundProgress& progress, const std::string& label) {
  xgb::Booster booster({&train, &valid});
  set_params(booster, o);
  bool maximize = o.objective == Objective::kRanking;
  double best = 0;
  int best_round = -1;
  const int trees = o.boosting.trees;
  for (int round = 0; round < trees; ++round) {
    booster.update(round, train);
    double value = booster.evaluate(round, valid, "valid");
    if (best_round < 0 || (maximize ? value > best : value < best))
      best = value, best_round = round;
    progress.step(label + " round " + std::to_string(round + 1) + "/" + std::to_string(trees));
    if (round - best_round >= o.early_stopping) {
      progress.skip(trees - round - 1);
      break;
    }
  }
  return {booster.predict(valid, best_round + 1), best_round + 1};
}

void fit_final(const Dataset& d, const std::vector<std::size_t>& rows,
               const std::vector<float>& labels, const std::string& target,
               const std::vector<std::string>& names, const TrainOptions& o,
               const std::optional<RowPrior>& prior, RoundProgress& progress,
               TargetResult& result) {
  auto all = make_matrix(d, rows, labels, target, names, o, prior);
  xgb::Booster booster({all.get()});
  std::vector<int> fold_rounds;
  for (const FoldResult& f : result.folds) fold_rounds.push_back(f.best_trees);
  int rounds = final_rounds(o, fold_rounds);
  if (!o.warm_start.empty()) {
    auto file = model_file(o.warm_start, target);
    if (file.empty())
      throw StorageError((o.warm_start / ("model_" + target + ".json")).string() + ": missing");
    booster.load(read_file(file));
    result.previous_trees = booster.boosted_rounds();
    rounds = o.add_trees;
  } else {
    progress.skip(
        std::max(o.boosting.trees - rounds, 0));  // the total counted `trees` final rounds
  }
  set_params(booster, o);
  for (int i = 0; i < rounds; ++i) {
    booster.update(result.previous_trees + i, *all);
    progress.step(target + " final model round " + std::to_string(i + 1) + "/" +
                  std::to_string(rounds));
  }
  result.trees = booster.boosted_rounds();
  save_booster(booster, target, names, o);
}

}  // namespace kselect::model
