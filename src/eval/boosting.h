#pragma once
// Small building blocks of the evaluation protocols that train their own models per fold
// (listed_protocol, transfer): feature rows from the generic engine and a gradient-boosted
// model fitted for a fixed number of rounds through XGBoost.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/progress.h"
#include "model/xgboost.h"
#include "ops/generic/features.h"

namespace kselect::eval {

// Appends feature rows (every feature of the engine) for a problem and a kernel list; the
// parsed kernel lists are cached, as protocols extract the same candidate list many times.
class RowBuilder {
 public:
  explicit RowBuilder(const generic::GenericFeatureEngine& engine);
  std::size_t cols() const { return columns_.size(); }
  void append(const std::string& problem, const std::vector<std::string>& kernels,
              std::vector<float>& x);

 private:
  const generic::GenericFeatureEngine& engine_;
  std::vector<int> columns_;
  std::map<std::string, std::unique_ptr<features::KernelBlock>> blocks_;
};

struct Dataset {
  std::vector<float> x, labels;
  std::vector<unsigned> groups;  // query sizes (ranking objectives)
  std::size_t rows() const { return labels.size(); }
};

struct BoostParams {
  std::string objective = "reg:squarederror";
  int trees = 200;
  double eta = 0.15;
  int max_leaves = 63;
  int max_depth = 10;
  int threads = 2;
  int seed = 0;
  double min_child_weight = 5;
  int num_class = 0;  // multi:softprob
};

// XGBoost's settings for an evaluation protocol's `params` (objective included; num_class is
// set apart). Not `kselect train`'s: model::training_booster_settings reads TrainOptions.
std::map<std::string, std::string> protocol_booster_settings(const BoostParams& params);
// Boosts `params.trees` rounds on `d` (`cols` columns), advancing `progress` by one per round.
std::unique_ptr<model::xgb::Booster> fit_booster(const Dataset& d, std::size_t cols,
                                                 const BoostParams& params, Progress& progress,
                                                 long& done);
// Predictions for row-major `x` (`cols` columns); empty for empty input.
std::vector<float> predict_rows(const model::xgb::Booster& b, const std::vector<float>& x,
                                std::size_t cols, int threads);

}  // namespace kselect::eval
