#pragma once
// One call for a two-member blend whose members order different kernels (model/blend.h): a
// regression of every row, an efficiency model of each problem's near-best rows, and their
// blend (model/blend.h), written as one model directory:
//
//   <out>/feature_spec.json   the blend (objective "blend", members "regression" and "near")
//   <out>/regression/         the regression, trained with the given options
//   <out>/near/               the efficiency model of the rows within min_efficiency of best
//
// `kselect train --blend-near F` calls it; the members are ordinary model directories (their
// out-of-fold files let `kselect eval` score the blend out of fold).
#include <filesystem>
#include <vector>

#include "data/measurement.h"
#include "model/feature_spec.h"
#include "model/train.h"

namespace kselect::model {

struct NearBlendResult {
  std::filesystem::path dir;  // the blend's (TrainOptions::out_dir)
  TrainResult regression, near;
  FeatureSpec blend;
  nlohmann::json to_json() const;  // {"dir", "blend": {...}, "members": [regression, near]}
};

// Trains both members into <options.out_dir>/regression and /near (the near member: objective
// efficiency on tflops, TrainOptions::min_efficiency = `min_efficiency`, the other options as
// given) and writes their blend (equal weights, kDefaultBlendSurvivors) into options.out_dir.
// InputError before any training when the options cannot make such a blend: an objective other
// than regression, the generic op, a warm start, targets without tflops, `min_efficiency`
// outside (0, 1), or an out_dir holding a trained model; train()'s errors otherwise, which
// leave a blend written there before, and its members, as they were.
NearBlendResult train_near_blend(const std::vector<data::Measurement>& measurements,
                                 const TrainOptions& options, double min_efficiency);

}  // namespace kselect::model
