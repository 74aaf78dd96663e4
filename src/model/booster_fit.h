#pragma once
// Fitting gradient-boosted models through XGBoost: the one path `kselect train`, the
// classifier and the evaluation protocols that train their own models per fold share. Settings
// come from BoostingParams alone (model/boosting_params.h).
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "features/engine.h"
#include "model/boosting_params.h"
#include "model/xgboost.h"

namespace kselect::model {

// Sets `params`' XGBoost settings for `loss` on `booster` (booster_settings).
void set_boosting_params(xgb::Booster& booster, const BoostingParams& params, Loss loss);

// Appends feature rows (every feature of the engine, in all_features() order) for a problem
// and a kernel list; the prepared kernel lists are cached, as a protocol extracts the same
// candidate list for many problems. `engine` must outlive the builder.
class RowBuilder {
 public:
  explicit RowBuilder(const features::FeatureEngine& engine);
  std::size_t cols() const { return columns_.size(); }
  void append(const std::string& problem, const std::vector<std::string>& kernels,
              std::vector<float>& x);

 private:
  const features::FeatureEngine& engine_;
  std::vector<int> columns_;
  std::map<std::string, std::unique_ptr<features::KernelBlock>> blocks_;
};

// Feature rows (row-major) with a label each, for a booster of a fixed number of rounds.
struct LabelledRows {
  std::vector<float> x, labels;
  std::vector<unsigned> groups;  // query sizes, in row order (Loss::kPairwise)
  std::size_t rows() const { return labels.size(); }
};

// Boosts params.trees rounds of `loss` on `rows` (`cols` columns), calling `round_done` after
// each round.
std::unique_ptr<xgb::Booster> fit_booster(const LabelledRows& rows, std::size_t cols,
                                          const BoostingParams& params, Loss loss,
                                          const std::function<void()>& round_done = {});
// Predictions for row-major `x` (`cols` columns); empty for empty input.
std::vector<float> predict_rows(const xgb::Booster& booster, const std::vector<float>& x,
                                std::size_t cols, int threads);

}  // namespace kselect::model
