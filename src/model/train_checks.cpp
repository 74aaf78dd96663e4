#include "model/train_checks.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/text.h"

namespace kselect::model {

namespace {

// What --objective classify cannot do.
void check_classify_options(const TrainOptions& o) {
  if (o.targets.size() > 1)
    throw InputError("", 0, "target",
                     "the classify objective learns which kernel is fastest by one target: give "
                     "one target");
  if (!o.warm_start.empty())
    throw InputError("", 0, "warm-start",
                     "a classify model cannot be continued (its classes would change with the "
                     "new data's winners): train it again on all the data");
}

}  // namespace

void check_options(const TrainOptions& o) {
  if (o.objective == Objective::kBlend)
    throw InputError("", 0, "objective",
                     "a blend is made of trained models (kselect blend, or kselect train "
                     "--blend-near): train regression, ranking, efficiency or classify");
  if (o.objective == Objective::kRoute)
    throw InputError("", 0, "objective",
                     "a route is made of trained models (kselect route): train regression, "
                     "ranking, efficiency or classify");
  if (o.objective == Objective::kEfficiency && o.targets.size() > 1)
    throw InputError("", 0, "target",
                     "the efficiency objective learns a kernel's fraction of its problem's best, "
                     "which is the same for tflops, latency and bandwidth: give one target");
  if (o.objective == Objective::kClassify) check_classify_options(o);
  if (o.out_dir.empty()) throw InputError("", 0, "out", "no output model directory given");
  if (!(o.near_best_weight >= 0 && o.near_best_weight <= 16))
    throw InputError("", 0, "near-best-weight", "must be in 0..16");
  if (!(o.min_efficiency >= 0 && o.min_efficiency < 1))
    throw InputError("", 0, "min-efficiency",
                     "must be a fraction of the problem's best in [0, 1) (0: every row trains)");
  if (o.min_efficiency > 0 && o.objective == Objective::kClassify)
    throw InputError("", 0, "min-efficiency",
                     "the classify objective learns each problem's winner from all its rows");
  if (!(o.shortlist < 1))  // also NaN; negative values mean off
    throw InputError("", 0, "shortlist", "must be a fraction below 1 (0.01: within 1%) or off");
  if (o.neighbours < 0) throw InputError("", 0, "neighbours", "must be >= 0 (0: off)");
  if (o.neighbours > 0 && o.objective != Objective::kRegression &&
      o.objective != Objective::kEfficiency)
    throw InputError("", 0, "neighbours",
                     "blends the neighbours' efficiencies with a predicted speed: regression or "
                     "efficiency models only");
  if (o.neighbours > 0 && !o.warm_start.empty())
    throw InputError("", 0, "neighbours",
                     "a warm start keeps its model's neighbours; train afresh to change them");
  if (!(o.neighbour_gate >= 0 && o.neighbour_gate <= 1))
    throw InputError("", 0, "neighbour-gate",
                     "must be a quantile in (0, 1] (0.8: the farthest fifth use the model alone), "
                     "or 0: no gate");
  if (!(o.neighbour_power >= 0 && o.neighbour_power <= 8))
    throw InputError("", 0, "neighbour-power",
                     "must be in [0, 8] (0: every neighbour weighs the same)");
  if (!(o.neighbour_weight >= 0 && o.neighbour_weight < 1))
    throw InputError("", 0, "neighbour-weight",
                     "must be the model's share in [0, 1) (0.8: the neighbours weigh 0.2)");
  check_boosting(o.boosting);
  if (o.final_trees < 0 || o.folds == 1 || o.folds < 0)
    throw InputError("", 0, "", "--final-trees must be >= 0, --folds 0 (no CV) or >= 2");
}

void check_warm_start(const FeatureSpec& previous, const features::Schema& schema,
                      const std::map<std::string, int>& revisions, const TrainOptions& o) {
  std::string where = (o.warm_start / "feature_spec.json").string();
  if (previous.op != o.op)
    throw InputError(where, 0, "op", "model is for '" + previous.op + "', not '" + o.op + "'");
  if (previous.objective != o.objective)
    throw InputError(where, 0, "objective",
                     "model was trained with '" + to_string(previous.objective) + "', not '" +
                         to_string(o.objective) + "'");
  if (previous.time_statistic != data::to_string(o.time_statistic))
    throw InputError(where, 0, "time_statistic",
                     "model was trained on each kernel's " + previous.time_statistic +
                         " time, not its " + data::to_string(o.time_statistic) +
                         " (--time-statistic " + previous.time_statistic + ")");
  if (previous.features != schema.features) {
    std::string only_model, only_engine;
    for (const auto& f : previous.features)
      if (std::find(schema.features.begin(), schema.features.end(), f) == schema.features.end())
        only_model += " " + f;
    for (const auto& f : schema.features)
      if (std::find(previous.features.begin(), previous.features.end(), f) ==
          previous.features.end())
        only_engine += " " + f;
    throw InputError(where, 0, "feature_names",
                     "warm start needs the same feature list as the model (schema '" +
                         previous.schema + "' vs '" + schema.name +
                         "'; only in the model:" + (only_model.empty() ? " -" : only_model) +
                         "; only in the new data:" + (only_engine.empty() ? " -" : only_engine) +
                         (only_model.empty() && only_engine.empty() ? "; order differs" : "") +
                         ")");
  }
  // Trees added on new formulas would sum with trees fitted on the old ones.
  const std::vector<std::string> stale = stale_features(previous, revisions);
  if (!stale.empty())
    throw InputError(where, 0, "feature_revisions",
                     "the model was trained on older formulas of " + join(stale) +
                         ": train a fresh model instead of continuing it");
}

void check_warm_start_dtype(const FeatureSpec& previous, const std::string& dtype) {
  if (previous.dtype != "any" && dtype != previous.dtype)
    throw InputError("", 0, "dtype",
                     "warm start model is for " + previous.dtype + ", data is " + dtype);
}

}  // namespace kselect::model
