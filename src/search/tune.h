#pragma once
// Tuning with few measurements (`kselect tune`): strategies that choose which configurations
// of a recorded cache to measure next, and the study that compares them over many seeds by
// the fraction of the cache's optimum each has found after n measurements.
//   random, de, annealing, genetic   search/strategy.h, the measured speed as objective
//   model         model-guided: measures `initial` random configurations, then repeatedly
//                 fits a small bootstrap ensemble of XGBoost models to the log speeds measured
//                 so far and measures the `batch` unmeasured configurations of the highest
//                 mean + kappa x spread of the ensemble's predictions (speed against
//                 uncertainty), until the budget is spent
//   model-prior   the same with a prior: the configurations' relative speeds on other devices
//                 (--prior) are features of the models, and the first measurements are the
//                 best configurations of each other device in turn
// Model-guided runs may stop before the budget: TuneOptions::min_gain, when the ensemble's
// largest expected improvement over the best measured speed falls below it.
// Measurements come from a MeasurementSource: a recorded cache here, real runs of an op's
// kernels on this machine in search/live.h.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/recorded.h"

namespace kselect::select {
class Ranker;
}

namespace kselect::search {

// What other measurements (other devices) say of each configuration: per problem of theirs,
// a column, its log relative speed there, log(speed / best speed of that problem); a failed
// configuration counts as kFailedRelativeSpeed of the best, one never measured there is NaN.
// Columns, not their mean: the tuning model learns which device's landscape the new one
// resembles.
inline constexpr double kFailedRelativeSpeed = 0.01;
struct Prior {
  std::vector<std::string> problems;                     // the columns
  std::map<std::string, std::vector<double>> by_kernel;  // kernel -> a value per column
  bool empty() const { return problems.empty(); }
};
// The prior from `data`'s problems other than `exclude` (the problem being tuned).
Prior relative_speed_prior(const RecordedData& data, const std::string& exclude);
// Adds a column to `prior`: a trained model's score of each of the target's configurations for
// its problem (a model of other hardware, or of the same machine's other problems), labelled
// "model <label>". InputError when the model cannot score them (another op or dtype).
void add_model_column(Prior& prior, const TuningTarget& target, const std::string& label,
                      const select::Ranker& ranker);

// Where a tuning run's measurements come from.
class MeasurementSource {
 public:
  virtual ~MeasurementSource() = default;
  // Speeds (1 / time in ms; 0 when the configuration failed) of `configs` (domain indices,
  // none measured before by this run), in order.
  virtual std::vector<double> measure(std::span<const std::size_t> configs) = 0;
};

// A recorded cache's speeds (TuningTarget::speed).
class RecordedSource : public MeasurementSource {
 public:
  explicit RecordedSource(const TuningTarget& target) : target_(target) {}
  std::vector<double> measure(std::span<const std::size_t> configs) override;

 private:
  const TuningTarget& target_;
};

struct TuneOptions {
  std::size_t budget = 100;  // measurements per run
  std::size_t seeds = 50;
  std::uint64_t first_seed = 1;
  std::vector<std::string> strategies = {"random", "de", "annealing", "genetic", "model"};
  // Model-guided tuning.
  std::size_t initial = 10, batch = 5, ensemble = 5;
  double kappa = 1.0;
  int trees = 30;
  // Stop a model-guided run once no unmeasured configuration is expected to beat the best
  // measured speed by this fraction (the ensemble's expected improvement, its spread taken as
  // a normal spread of the log speed), checked at each refit after `initial` + `batch`
  // measurements; 0: spend the whole budget.
  double min_gain = 0;
  // Reported fractions of the optimum after these many measurements (those within budget).
  std::vector<std::size_t> checkpoints = {25, 50, 100, 200};
  double target_fraction = 0.95;
  bool progress = false;
};

// The tuning strategies' names; "model-prior" needs a prior.
std::vector<std::string> tune_strategy_names();

struct TuningRun {
  std::vector<std::size_t> measured;  // domain indices, in the order measured
  std::vector<double> speed;          // their speeds, as the source gave them
  // Ended before the budget because the largest expected gain fell below min_gain.
  bool stopped = false;
  double expected_gain = -1;  // the largest expected gain at the last refit (-1: no refit)
};

// One run: at most `budget` configurations of `target`'s domain, measured by `source`.
// `prior`: null for none; InputError for an unknown strategy or model-prior without a prior.
TuningRun tuning_run(const TuningTarget& target, const std::string& strategy, const Prior* prior,
                     const TuneOptions& options, std::uint64_t seed, MeasurementSource& source);
// The same on the target's recorded speeds: the configurations measured, in order.
std::vector<std::size_t> tuning_run(const TuningTarget& target, const std::string& strategy,
                                    const Prior* prior, const TuneOptions& options,
                                    std::uint64_t seed);

struct StrategyOutcome {
  std::string strategy;
  std::map<std::size_t, double> mean_fraction;  // by checkpoint: mean best / optimum
  double mean_final_fraction = 0;               // after the whole budget
  double fraction_seeds_ge_target = 0;          // seeds reaching target_fraction in budget
  std::map<std::size_t, double> fraction_seeds_ge_target_after;  // the same by checkpoint
  // Median over seeds of the measurements needed to reach the target; -1 when fewer than
  // half of the seeds reach it.
  double median_measurements_to_target = -1;
  double mean_measurements = 0;  // spent per run: the budget, or fewer where min_gain stopped it
  double fraction_stopped = 0;   // runs that min_gain stopped before the budget
};

struct TargetOutcome {
  std::string problem;
  std::size_t configurations = 0, failed = 0, within_target = 0;
  double optimum_ms = 0;
  std::vector<StrategyOutcome> strategies;
};

struct TuneReport {
  std::string cache;
  std::vector<std::string> priors;
  TuneOptions options;
  std::vector<TargetOutcome> targets;
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Tunes every problem of the cache with every strategy over `seeds` seeds; `priors`: stores or
// caches of other devices, or model directories (model-prior runs when any is given; the
// tuned problem itself is left out of its prior).
TuneReport tune_study(const std::string& cache, const std::vector<std::string>& priors,
                      const TuneOptions& options);

}  // namespace kselect::search
