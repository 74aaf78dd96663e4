#pragma once
// `kselect train --objective classify`: the per-context kernel classifier of model/classify.h
// trained, cross-validated and written into a model directory (docs/model-format.md). Called
// by model::train(), which prepares the rows, the feature engine and the spec.
#include <functional>
#include <span>
#include <string>

#include "data/measurement.h"
#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/train.h"

namespace kselect::model {

// The valid rows of the training data, a problem's rows adjacent, and each row's CV group key.
struct ClassifyData {
  std::span<const data::Measurement* const> rows;
  std::span<const std::string> groups;
};

// Reports the boosting rounds done so far for this target (of (folds + 1) x trees, or trees
// without cross-validation) and what is running.
using RoundsDone = std::function<void(long rounds, const std::string& what)>;

// Trains on every problem with a valid row of positive `target`, the winner being its best row
// (highest TFLOPS or bandwidth, lowest latency). With o.folds > 0: grouped folds as the other
// objectives (model/folds.h), early stopping per fold and context, out-of-fold scores in
// oof_<target>.csv and the fold metrics in the result. Then the final classifier on every
// problem: its model files, feature_importances_<target>.json, and spec.classifier.
TargetResult train_classifier(const ClassifyData& data, const features::FeatureEngine& engine,
                              const std::string& target, const TrainOptions& o, FeatureSpec& spec,
                              const RoundsDone& progress);

}  // namespace kselect::model
