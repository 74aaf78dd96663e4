#pragma once
// What train() writes into the model directory besides the out-of-fold file (private to
// model/; docs/model-format.md): the model files and feature importances of a target, its
// cross-validation metrics, the feature spec's description of the training, and the manifest.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/train.h"
#include "model/train_data.h"
#include "model/xgboost.h"

namespace kselect::model {

// model_<target>.json (.gz with o.compress, the other form removed) and
// feature_importances_<target>.json, which names the features `names`.
void save_booster(const xgb::Booster& booster, const std::string& target,
                  const std::vector<std::string>& names, const TrainOptions& o);

// cv_metrics_<target>.json: the objective, each fold's metrics and the out-of-fold overall.
void write_cv_metrics(const TargetResult& result, const TrainOptions& o);

// Removes each target's oof_<target>.csv and cv_metrics_<target>.json, for a training without
// cross-validation: an earlier training's files there would pass for this model's out-of-fold
// results.
void remove_cv_files(const TrainOptions& o);

// The feature spec before the targets train (they add priors, a shortlist or the classifier):
// the op, data, `features` of `schema` with their revisions and the categorical among them,
// target encoding, objective and parameters. A warm start (`continued`) encodes the labels as
// its continued model did.
FeatureSpec training_spec(const TrainOptions& o, const std::string& dtype,
                          const features::FeatureEngine& engine, const features::Schema& schema,
                          const std::vector<std::string>& features,
                          const nlohmann::json& engine_state, const FeatureSpec* continued);

// train_manifest.json: trees per target, the data's row and shape counts, version, time, source.
void write_manifest(const TrainResult& r, const TrainOptions& o, const Dataset& d,
                    const FeatureSpec& spec);

}  // namespace kselect::model
