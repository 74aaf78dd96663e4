#pragma once
// feature_spec.json: the contract between training and selection in a model directory
// (docs/model-format.md). Columns of a model are matched to a feature engine by name.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "model/objective.h"

namespace kselect::model {

// The newest model format this kselect reads and writes (docs/model-format.md, "Versioning").
inline constexpr int kModelFormatVersion = 6;

// A regression model's prior (docs/model-format.md, "Priors"): its trees learn the label's
// residual over prior_margin(scale, row[feature]) (model/forest.h), the feature engine's own
// throughput estimate (FeatureEngine::throughput_prior), and every prediction starts from that
// margin instead of XGBoost's constant base_score (XGBoost's per-row base_margin).
struct Prior {
  std::string feature;  // a column of the model's feature list
  double scale = 1;     // label units per unit of the feature, fitted on the training rows
};

// A member of a blend (docs/model-format.md, "Blends"): a model directory, relative to the
// blend's, and the weight of its relative log speeds in the blend's score.
struct BlendMember {
  std::string model;
  double weight = 1;
};

// The smallest and largest value of a numeric problem field in the training data.
struct FieldRange {
  double min = 0, max = 0;
};

// A problem field whose value lies outside the training range of its model.
struct OutOfRange {
  std::string field;
  double value = 0;
  FieldRange range;
};

struct FeatureSpec {
  int format_version = kModelFormatVersion;
  std::string op;     // "gemm"
  std::string dtype;  // "fp32", "bf16", or "any" when trained on several
  // The problems the model was trained on, by field values (data/where.h); "" = every problem
  // of its op and dtype. Evaluation defaults to the same problems.
  std::string where;
  HardwareProfile hardware;
  std::string schema;                    // name of the feature list the model was trained on
  std::vector<std::string> features;     // model column order
  std::vector<std::string> categorical;  // category-code features (numeric splits in XGBoost)
  std::vector<std::string> targets;      // "tflops", "latency", "bandwidth"
  std::vector<std::string> log_targets;  // targets trained as log1p(value * scale)
  // Unit change before log1p, per target (1 when absent). CPU TFLOPS are mostly < 1, where
  // log1p is nearly linear, so TFLOPS are trained as GFLOPS and latency as microseconds.
  std::map<std::string, double> target_scales;
  // What the model's outputs mean (model/objective.h); a blend's members are in `blend`.
  Objective objective = Objective::kRegression;
  nlohmann::json params;  // training parameters
  // The fitted state of an engine that learns its features from the data (the generic op's
  // vocabulary, docs/generic-op.md); null for fixed-schema engines and older models.
  nlohmann::json engine_state;
  // The op of the training data when it differs from `op` (gemm data through --op generic).
  std::string data_op;
  // The classify objective's contexts, classes and model files (KernelClassifier::save); null
  // for the other objectives, whose model is model_<target>.json.
  nlohmann::json classifier;
  // The statistic of the repeats that was each training row's time (data::TimeStatistic):
  // "median" (also for models written before it was recorded) or "min".
  std::string time_statistic = "median";
  // Revisions of the model's features whose formula changed (FeatureEngine::feature_revisions)
  // at training time; absent names (and every name of older models) are revision 1.
  std::map<std::string, int> feature_revisions;
  // Priors by target (regression models of targets whose engine estimates them); absent for
  // models trained without one (--prior off, other objectives, older models).
  std::map<std::string, Prior> priors;
  // The kernels selection ranks (docs/model-format.md, `shortlist`): those within
  // `shortlist_tolerance` of the best measured speed of at least one training problem, sorted.
  // Empty: rank every candidate (--shortlist off, classify and generic models, older models).
  std::vector<std::string> shortlist;
  double shortlist_tolerance = 0;
  // The blend objective's members (`kselect blend`); empty for the other objectives. A blend
  // directory holds no model file: its other fields are its first member's.
  std::vector<BlendMember> blend;
  // How many candidates the blend's later members score: the first member's best this many
  // (the others rank after them, in the first member's order); 0: every candidate.
  std::size_t blend_survivors = 0;
  // The route objective's members (`kselect route`): model directories relative to the
  // route's, each taking the problems its own `where` matches, the first match winning; empty
  // for the other objectives. Its other fields are its first member's.
  std::vector<std::string> route;
  // The range of each numeric problem field over the training problems ("m": [1, 4096]), so
  // a problem outside it is known to be an extrapolation; empty for models trained before
  // kselect recorded it (older readers ignore the field).
  std::map<std::string, FieldRange> training_ranges;

  const Prior* prior(const std::string& target) const;
  bool is_log(const std::string& target) const;
  double scale(const std::string& target) const;
  // Measured value -> training label, and model output -> value (the inverse).
  double encode(const std::string& target, double value) const;
  // For the efficiency objective, decode gives the predicted efficiency, exp(prediction).
  double decode(const std::string& target, double prediction) const;
  // Reads <dir>/feature_spec.json (kselect's, or CK Tile's {op_type, dtype, arch,
  // feature_names, ...}: a regression of log1p of each target); StorageError when missing or
  // malformed (an unknown objective included), naming the field.
  static FeatureSpec load(const std::filesystem::path& dir);
  void save(const std::filesystem::path& dir) const;
};

// Whether a larger measured value of `target` is better (tflops, bandwidth; not latency).
bool higher_is_better(const std::string& target);

// Widens `ranges` to cover `more` as well (a combined model predicts inside what all its
// members saw).
void widen_ranges(std::map<std::string, FieldRange>& ranges,
                  const std::map<std::string, FieldRange>& more);
// The shortlist of a model combining `members` (a blend, a route): the union of theirs at the
// largest tolerance, or none (rank every candidate) when a member has none.
void combine_shortlists(FeatureSpec& combined, const std::vector<FeatureSpec>& members);
// +1 when a larger model output means a better kernel, -1 when a smaller one does (a regression
// on latency). Ranking scores and predicted efficiencies are always larger-is-better.
double score_sign(Objective objective, const std::string& target);
// A decoded prediction as a speed, larger is faster, in a ratio scale (TFLOPS, GB/s, 1/ms or
// the efficiency fraction), so two kernels' speeds compare as "x% faster"; NaN for ranking and
// classify models, whose scores have no such scale.
double predicted_speed(Objective objective, const std::string& target, double decoded);

// The format version a directory with this spec is written with: 3 for a model with a prior
// (a version-2 reader would predict without it), 2 for a classify model (its models are
// per-context files that a version-1 reader would not find), else 1, so every other model
// stays readable by kselect versions that know only format 1.
int required_format_version(const FeatureSpec& spec);

// The model's features that `engine` computes with another formula than the model was trained
// on (their revisions differ): predictions still run, but on inputs the trees never saw.
std::vector<std::string> stale_features(const FeatureSpec& spec,
                                        const std::map<std::string, int>& engine_revisions);
// The revisions to record for a model of `features` (those of `engine_revisions` it uses).
std::map<std::string, int> revisions_of(const std::vector<std::string>& features,
                                        const std::map<std::string, int>& engine_revisions);

// The numeric fields of `problems` (key=value text) with their ranges: the fields whose value
// is a number in every problem. `into` (a warm start's ranges) is widened, not replaced.
void widen_training_ranges(std::map<std::string, FieldRange>& into,
                           const std::vector<std::string>& problems);
// The fields of `problem` outside the spec's training ranges (fields it records only).
std::vector<OutOfRange> outside_training_ranges(const FeatureSpec& spec,
                                                const std::string& problem);

void to_json(nlohmann::json& j, const FeatureSpec& s);
void from_json(const nlohmann::json& j, FeatureSpec& s);

// Path of a target's model in `dir`: model_<target>.json, else the first of .json.gz, .txt,
// .txt.gz, .lgbm, .lgbm.gz that exists (the last four: LightGBM text models, CK's). Empty when
// none exists.
std::filesystem::path model_file(const std::filesystem::path& dir, const std::string& target);

}  // namespace kselect::model
