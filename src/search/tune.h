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
#include <cstdint>
#include <map>
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

struct TuneOptions {
  std::size_t budget = 100;  // measurements per run
  std::size_t seeds = 50;
  std::uint64_t first_seed = 1;
  std::vector<std::string> strategies = {"random", "de", "annealing", "genetic", "model"};
  // Model-guided tuning.
  std::size_t initial = 10, batch = 5, ensemble = 5;
  double kappa = 1.0;
  int trees = 30;
  // Reported fractions of the optimum after these many measurements (those within budget).
  std::vector<std::size_t> checkpoints = {25, 50, 100, 200};
  double target_fraction = 0.95;
  bool progress = false;
};

// The tuning strategies' names; "model-prior" needs a prior.
std::vector<std::string> tune_strategy_names();

// The configurations (domain indices) one run measures, in order: at most `budget`.
// `prior`: null for none; InputError for an unknown strategy or model-prior without a prior.
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
