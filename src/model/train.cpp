#include "model/train.h"

#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "core/error.h"
#include "data/where.h"
#include "model/classify.h"
#include "model/feature_spec.h"
#include "model/train_artifacts.h"
#include "model/train_checks.h"
#include "model/train_classify.h"
#include "model/train_cv.h"
#include "model/train_data.h"
#include "model/train_fit.h"
#include "model/train_neighbours.h"
#include "model/train_prior.h"
#include "model/train_shortlist.h"
#include "ops/operation.h"

namespace kselect::model {

double default_colsample(const std::string& op) {
  return find_operation(op).capabilities().default_colsample;
}

std::unique_ptr<features::FeatureEngine> training_engine(
    const std::vector<data::Measurement>& measurements, const TrainOptions& options) {
  nlohmann::json state;
  return make_train_engine(measurements, options, nullptr, state);
}

namespace {

// What every target of one training shares.
struct Run {
  const TrainOptions& o;
  const features::FeatureEngine& engine;
  const features::Schema& schema;
  const Dataset& d;
  const FeatureSpec* continued;  // the warm start's model; null for a fresh one
  bool cv;                       // cross-validation before the final model
};

// Regression, ranking and efficiency: one booster scoring every row of the target.
TargetResult train_row_scorer(const Run& run, const std::string& target, FeatureSpec& spec,
                              RoundProgress& progress) {
  const TrainOptions& o = run.o;
  const Dataset& d = run.d;
  TargetResult tr;
  tr.target = target;
  auto rows = target_rows(d.rows, target);
  tr.rows = rows.size();
  auto labels = make_labels(d, rows, target, spec);
  const std::vector<bool> trains = training_mask(d, rows, target, o);
  const auto column = prior_column(o, run.engine, run.schema, run.continued, target);
  if (run.cv) cross_validate(d, rows, labels, trains, target, spec, o, column, progress, tr);
  std::vector<std::size_t> final_rows;
  std::vector<float> final_labels;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (trains[i]) final_rows.push_back(rows[i]), final_labels.push_back(labels[i]);
  const std::optional<RowPrior> prior =
      final_prior(d, final_rows, final_labels, column, run.continued, target);
  if (prior) spec.priors[target] = {run.schema.features[prior->column], prior->scale};
  set_final_shortlist(spec, d, rows, target, o, run.continued);
  fit_final(d, final_rows, final_labels, target, run.schema.features, o, prior, progress, tr);
  return tr;
}

// The classify objective: the per-context kernel classifier (model/train_classify.h).
TargetResult train_classify_target(const Run& run, const std::string& target, FeatureSpec& spec,
                                   RoundProgress& progress) {
  const long start = progress.done();
  return train_classifier(
      {run.d.rows, run.d.groups}, run.engine, target, run.o, spec,
      [&](long rounds, const std::string& what) { progress.reach(start + rounds, what); });
}

// The ranges of the problems trained on (a warm start's widened), for extrapolation warnings.
void record_training_ranges(FeatureSpec& spec, const Dataset& d, const FeatureSpec* continued) {
  if (continued) spec.training_ranges = continued->training_ranges;
  std::set<std::string> problems;
  for (const data::Measurement* row : d.rows) problems.insert(row->problem);
  widen_training_ranges(spec.training_ranges, {problems.begin(), problems.end()});
}

// A warm start trains on the continued model's schema, dtype and targets; returns its spec.
FeatureSpec load_warm_start(TrainOptions& o) {
  FeatureSpec previous = FeatureSpec::load(o.warm_start);
  if (o.schema.empty()) o.schema = previous.schema;
  if (o.dtype.empty() && previous.dtype != "any") o.dtype = previous.dtype;
  o.targets = previous.targets;
  if (o.add_trees < 1) throw InputError("", 0, "add-trees", "a warm start needs --add-trees >= 1");
  return previous;
}

// Boosting rounds the progress line counts over every target.
long total_rounds(const TrainOptions& o, bool cv) {
  const long trees = o.boosting.trees;
  long per_target = cv ? long(o.folds + 1) * trees : o.warm_start.empty() ? trees : o.add_trees;
  return per_target * long(o.targets.size());
}

// train() once each row's time is the chosen statistic.
TrainResult train_on_times(const std::vector<data::Measurement>& measurements,
                           const TrainOptions& options) {
  TrainOptions o = options;
  check_options(o);
  if (o.data_op.empty()) o.data_op = o.op;
  FeatureSpec previous;
  if (!o.warm_start.empty()) previous = load_warm_start(o);
  const FeatureSpec* continued = o.warm_start.empty() ? nullptr : &previous;
  std::string target_note;
  if (o.targets.empty()) o.targets = {default_target(measurements, o, target_note)};
  nlohmann::json engine_state;
  auto engine = make_train_engine(measurements, o, continued, engine_state);
  if (o.schema.empty()) o.schema = engine->default_schema();
  const features::Schema& schema = engine->schema(o.schema);
  if (continued) check_warm_start(previous, schema, engine->feature_revisions(), o);
  for (const auto& t : o.targets) target_value({}, t);  // validates the names
  // The classifier reads the problem's features alone; refused before the rows are built when
  // the engine has no such columns.
  const bool classify = o.objective == Objective::kClassify;
  const std::vector<std::string> features =
      classify ? ProblemFeatures::names_of(*engine) : schema.features;

  Dataset d = build_dataset(measurements, o, *engine, schema, !classify);
  if (continued) check_warm_start_dtype(previous, d.dtype);
  std::filesystem::create_directories(o.out_dir);

  FeatureSpec spec = training_spec(o, d.dtype, *engine, schema, features, engine_state, continued);
  record_training_ranges(spec, d, continued);
  const bool cv = !continued && o.folds > 0;
  if (!cv) remove_cv_files(o);
  RoundProgress progress(o, total_rounds(o, cv));
  TrainResult result;
  result.dir = o.out_dir;
  result.target_note = target_note;
  result.data_rows = d.data_rows;
  result.valid_rows = d.rows.size();
  result.unique_shapes = d.unique_shapes;
  const Run run{o, *engine, schema, d, continued, cv};
  for (const auto& target : o.targets) {
    TargetResult tr = classify ? train_classify_target(run, target, spec, progress)
                               : train_row_scorer(run, target, spec, progress);
    if (cv) write_cv_metrics(tr, o);
    result.targets.push_back(std::move(tr));
  }
  if (!classify) write_neighbours(d, ordering_target(o.targets), schema.features, o, cv);
  spec.save(o.out_dir);
  write_manifest(result, o, d, spec);
  progress.finish();
  return result;
}

}  // namespace

TrainResult train(const std::vector<data::Measurement>& measurements, const TrainOptions& given) {
  TrainOptions options = given;
  if (options.boosting.colsample < 0) options.boosting.colsample = default_colsample(options.op);
  if (options.time_statistic == data::TimeStatistic::kMedian && options.where.empty())
    return train_on_times(measurements, options);
  const data::ProblemWhere where(options.where);
  std::vector<data::Measurement> rows;
  for (const auto& m : measurements)
    if (where.matches(m.problem)) rows.push_back(m);
  data::use_time_statistic(rows, options.time_statistic);
  return train_on_times(rows, options);
}

}  // namespace kselect::model
