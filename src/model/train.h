#pragma once
// Training API: measurements in, model directory out (docs/model-format.md).
//
//   model::TrainOptions opt;
//   opt.out_dir = "models/gemm_fp32";
//   model::TrainResult r = model::train(measurements, opt);
//
// For each target: GroupKFold cross-validation keyed on the problem shape (early stopping per
// fold), out-of-fold predictions written to oof_<target>.csv, then a final model on all rows.
// With warm_start set, boosting continues from that directory's models on the new data instead
// (no cross-validation).
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "data/measurement.h"
#include "features/engine.h"
#include "model/boosting_params.h"
#include "model/feature_spec.h"
#include "model/objective.h"
#include "ops/operation.h"

namespace kselect::model {

struct TrainOptions {
  // The op whose feature engine the model uses (an op that learns from any op's data can take
  // another op's measurements, data_op).
  std::string op = std::string(default_operation().name());
  std::string data_op;  // the op of the measurements to train on; "" = op
  std::string dtype;    // train on this dtype only; "" = every dtype in the data
  // Train on the problems with these field values only (data/where.h, "dir=fwd,layout=nhwgc");
  // "" = every problem. Recorded in the model (FeatureSpec::where), so eval picks the same.
  std::string where;
  std::string schema;  // feature schema; "" = the engine's default (kselect)
  // tflops, latency, bandwidth; empty = tflops, except for generic data in which no row has
  // TFLOPS > 0 (imported data often has only times): latency.
  std::vector<std::string> targets;
  // Any but Objective::kBlend (model/objective.h). Classify reads the problem's features alone,
  // which only engines that keep them apart have (model/classify.h, ProblemFeatures::names_of).
  Objective objective = Objective::kRegression;
  // Each row's time (and TFLOPS, bandwidth) before training: the sweep's median or the fastest
  // repeat (data::use_time_statistic); recorded in feature_spec.json for kselect eval.
  data::TimeStatistic time_statistic = data::TimeStatistic::kMedian;
  // Every XGBoost setting; boosting.trees rounds at most per fold, boosting.colsample < 0: the
  // op's default_colsample.
  BoostingParams boosting;
  int folds = 5;            // 0: no cross-validation (final model only, no OOF file)
  int early_stopping = 50;  // rounds without improvement on the held-out fold
  // Rounds of the final model: 0 = from cross-validation (the folds' mean best round count,
  // scaled by folds / (folds - 1) for the larger training set, at most boosting.trees);
  // without cross-validation boosting.trees. Fewer trees also make selection faster.
  int final_trees = 0;
  // Regression rows weigh efficiency^near_best_weight (efficiency within the problem, 0: all
  // rows weigh 1): capacity goes to ordering the fast kernels, which decide the pick, rather
  // than to fitting the speed of slow ones, which never do.
  double near_best_weight = 2;
  // Only rows whose kernel reaches this fraction of its problem's best train (0: every row);
  // cross-validation still predicts and scores every row of a held-out fold. A model of the
  // near-best rows alone learns the fine order among a problem's contenders but nothing of the
  // slow kernels, so it is meant as a member of a blend (kselect blend) with a regression of
  // every row, which rules those out.
  double min_efficiency = 0;
  // Regression on tflops starts each row from the feature engine's own throughput estimate
  // (FeatureEngine::throughput_prior; FeatureSpec::Prior) and the trees learn the residual:
  // trees are step functions, and the estimate carries most of the smooth part of the target,
  // so the trees spend their splits on what the estimate gets wrong.
  // Engines and schemas without such a feature (generic, ck55, ck72) train without one.
  bool prior = true;
  // Selection ranks only the kernels within this fraction of the best measured speed of at
  // least one training problem (FeatureSpec::shortlist); each fold's out-of-fold rows say
  // whether the fold's own shortlist held them. < 0: off. Not for classify or generic models,
  // whose candidates come from the model already.
  double shortlist = 0.01;
  // Nearest training problems blended into selection (model/neighbours.h, neighbours.json):
  // each kernel's mean log efficiency on the `neighbours` nearest training problems that
  // measured it, weighing 1 - neighbour_weight against the model's log predicted speed; 0:
  // off. Regression and efficiency models of a fresh training only.
  int neighbours = 0;
  double neighbour_weight = 0.8;
  // The neighbours' gate (model/neighbours.h): problems whose neighbours lie farther than this
  // quantile of the training problems' own neighbour distances are ranked by the model alone;
  // 0: no gate.
  double neighbour_gate = 0;
  // Each neighbour weighs 1 / (distance^neighbour_power + 0.1); 0: equally.
  double neighbour_power = 0;
  bool compress = false;  // write model_<target>.json.gz
  std::filesystem::path out_dir;
  std::filesystem::path warm_start;            // model directory to continue from
  int add_trees = 0;                           // rounds added by a warm start
  std::string data_source;                     // recorded in train_manifest.json
  HardwareProfile hardware = host_hardware();  // fills the hw_* features
  // Generic op: each kernel's parameters (Store::kernel_configs) and the category-code order
  // of its fitted features ("target" or "alphabetical", docs/generic-op.md).
  std::map<std::string, nlohmann::json> kernel_configs;
  std::string encoding = "target";
  bool progress = false;  // progress line with ETA on stderr
};

struct FoldResult {
  int fold = 0;
  std::size_t train_rows = 0, valid_rows = 0, valid_shapes = 0;
  int best_trees = 0;
  double rmse = 0, r2 = 0;  // target scale; NaN for ranking and classify
  double mean_efficiency = 0, p10_efficiency = 0;
  double top1 = 0;  // share of problems whose pick is a best kernel (efficiency 1)
  // valid_shapes and the pick metrics from per-problem pick efficiencies (pick_efficiencies).
  void set_picks(const std::vector<double>& efficiencies);
};

struct TargetResult {
  std::string target;
  std::vector<FoldResult> folds;
  FoldResult overall;  // over all out-of-fold predictions
  int trees = 0;       // of the final model
  int previous_trees = 0;
  std::size_t rows = 0;
};

// The feature sampling of an op's trees when --colsample is not given: 0.5 for gemm, 0.8 for
// the others (each op's rate is the one its training data was tuned with; the generic data
// keeps the earlier default).
double default_colsample(const std::string& op);

struct TrainResult {
  std::filesystem::path dir;
  std::string target_note;  // why the targets were chosen when none were given
  std::size_t data_rows = 0, valid_rows = 0, unique_shapes = 0;
  std::vector<TargetResult> targets;
  nlohmann::json to_json() const;
};

// Throws InputError for unusable data (no rows for the op or dtype, a target without valid
// rows, fewer shapes than folds, warm start from a different feature list) and StorageError
// when the model directory cannot be read or written.
TrainResult train(const std::vector<data::Measurement>& measurements, const TrainOptions& options);

// The feature engine a fresh `train` with these options builds (op, data_op, dtype, hardware,
// and for the generic op kernel_configs and encoding, fitted on the valid training rows):
// `kselect features` writes the rows of that engine.
std::unique_ptr<features::FeatureEngine> training_engine(
    const std::vector<data::Measurement>& measurements, const TrainOptions& options);

// XGBoost's loss for a trained objective (not kBlend).
Loss training_loss(Objective objective);

// Whether a row can train or score `target`: its value is finite and > 0. Every objective's
// rows (and so its folds) are the rows of the dataset for which this holds.
bool has_usable_target(const data::Measurement& m, const std::string& target);

// Boosting rounds of a fresh final model (TrainOptions::final_trees): --final-trees when given;
// else the mean of `fold_rounds` (the best round counts of cross-validation's folds) scaled by
// folds / (folds - 1) for the larger training set, in 1..trees; --trees without fold rounds.
int final_rounds(const TrainOptions& options, std::span<const int> fold_rounds);

// oof_<target>.csv (docs/model-format.md): one line per out-of-fold prediction, written by
// every objective's cross-validation.
class OofCsv {
 public:
  // `shortlist`: the file gets a `shortlisted` column (whether the fold's shortlist held the
  // row's kernel, TrainOptions::shortlist).
  explicit OofCsv(std::string target, bool shortlist = false);
  // The row's problem, kernel, fold, prediction and measured target value.
  void add(const data::Measurement& row, int fold, double predicted, bool shortlisted = true);
  // Writes <dir>/oof_<target>.csv; StorageError when it cannot.
  void write(const std::filesystem::path& dir) const;

 private:
  std::string target_, csv_;
  bool shortlist_ = false;
};

// The measured value of `target` ("tflops", "latency" = median ms, "bandwidth" = GB/s).
double target_value(const data::Measurement& m, const std::string& target);
// Unit change applied before log1p (see FeatureSpec::target_scales).
double default_scale(const std::string& target);
const std::vector<std::string>& target_names();

}  // namespace kselect::model
