#pragma once
// train()'s rows (private to model/): the feature engine of the options, the valid rows of the
// op (and dtype) grouped by problem with their feature rows, each target's usable rows, and
// the matrices XGBoost trains on (labels, weights, base margins, query groups).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/train.h"
#include "model/xgboost.h"

namespace kselect::model {

// Valid rows of one op (and dtype), grouped by problem, with their feature rows (unless built
// without them).
struct Dataset {
  std::size_t cols = 0;
  std::vector<float> x;  // rows.size() x cols, row-major; empty when built without features
  std::vector<const data::Measurement*> rows;
  std::vector<std::string> groups;  // CV group key per row
  std::size_t data_rows = 0, unique_shapes = 0;
  std::string dtype;
};

// The engine for `o.op`: fitted on the training rows when the op learns its features, or, for
// a warm start of such a model (`previous`), the previous model's state (so its category codes
// are kept) extended with the configurations of kernels new in this data. `state` receives the
// engine's state (null for engines that fit nothing).
std::unique_ptr<features::FeatureEngine> make_train_engine(
    const std::vector<data::Measurement>& all, const TrainOptions& o, const FeatureSpec* previous,
    nlohmann::json& state);

// The target when none is given: tflops unless the op's data may lack FLOPs and no row has
// TFLOPS (only times were imported); `note` says why for the latter kind of op.
std::string default_target(const std::vector<data::Measurement>& all, const TrainOptions& o,
                           std::string& note);

// `with_features` false leaves d.x empty: the classify objective reads the rows and groups only
// (its classifier extracts problem features itself), which saves the memory and time of every
// row's features on a large import.
Dataset build_dataset(const std::vector<data::Measurement>& all, const TrainOptions& options,
                      const features::FeatureEngine& engine, const features::Schema& schema,
                      bool with_features);

// Indices of `rows` with a usable value of `target` (has_usable_target); InputError when there
// is none. Every objective trains and scores these rows, so their folds match.
std::vector<std::size_t> target_rows(std::span<const data::Measurement* const> rows,
                                     const std::string& target);

// Each row's efficiency within its problem: value / best (best / value for times). `rows`
// hold whole problems (folds never split one), so the best is the problem's best.
std::vector<double> within_problem_efficiency(const Dataset& d,
                                              const std::vector<std::size_t>& rows,
                                              const std::string& target);

// Labels of `rows` for one target: log1p(value) for regression; log(efficiency within the
// problem) for the efficiency objective; for ranking, relevance grades 0..30 from that
// efficiency (XGBoost's NDCG wants small integers).
std::vector<float> make_labels(const Dataset& d, const std::vector<std::size_t>& rows,
                               const std::string& target, const FeatureSpec& spec);

// Per row of `rows`, whether it trains (TrainOptions::min_efficiency): its kernel reaches that
// fraction of its problem's best. `rows` hold whole problems, as within_problem_efficiency needs.
std::vector<bool> training_mask(const Dataset& d, const std::vector<std::size_t>& rows,
                                const std::string& target, const TrainOptions& o);

// A base margin per row from one feature column (TrainOptions::prior, model/train_prior.h):
// the column of the prior's feature and the scale in use.
struct RowPrior {
  std::size_t column = 0;
  double scale = 1;
};

// The XGBoost matrix of `rows`: their feature rows named `names`, `labels`, the prior's base
// margins, and query groups (ranking) or near-best weights (the other objectives).
std::unique_ptr<xgb::Matrix> make_matrix(const Dataset& d, const std::vector<std::size_t>& rows,
                                         const std::vector<float>& labels,
                                         const std::string& target,
                                         const std::vector<std::string>& names,
                                         const TrainOptions& options,
                                         const std::optional<RowPrior>& prior);

}  // namespace kselect::model
