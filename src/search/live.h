#pragma once
// Tuning on this machine (`kselect tune --problem`): a tuning run whose measurements are real
// runs of an op's kernels (select/measure.h: one warm-up, the fastest of `repeats` runs) on
// one problem, over the configurations of a rule set that support it. The model-guided
// strategies may start from trained models as prior (their scores are features, and half of
// the first measurements are each model's best) and stop early (TuneOptions::min_gain).
// With `exhaustive` every configuration is measured after the run, so the run's best can be
// judged against the best there is.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/tune.h"
#include "select/measure.h"

namespace kselect::search {

struct LiveTuneOptions {
  std::string op = "gemm";
  std::string problem;             // key=value text
  std::string space = "profiler";  // a set of the op's rule file, or a rule file's path
  std::string strategy = "model";
  std::vector<std::string> priors;  // model directories (model-prior)
  TuneOptions tune;                 // budget, the model-guided settings, min_gain
  std::uint64_t seed = 1;
  select::MeasureOptions measure;
  bool exhaustive = false;
  bool progress = false;
};

struct LiveMeasurement {
  std::string kernel;
  double ms = 0;      // fastest repeat; NaN when the kernel failed
  std::string error;  // why it failed
};

struct LiveTuneResult {
  LiveTuneOptions options;
  std::string problem;  // canonical
  std::size_t space_size = 0, candidates = 0;
  std::vector<LiveMeasurement> measured;  // the tuning run's, in order
  bool stopped = false;                   // min_gain ended it before the budget
  double expected_gain = -1;              // at the last refit (-1: none)
  std::size_t best = 0;                   // index into `measured` of the fastest
  // With `exhaustive`: every other configuration measured too.
  std::vector<LiveMeasurement> rest;
  double exhaustive_best_ms = 0;
  std::string exhaustive_best_kernel;
  // Measurements of the run after which its best was within 1% / 5% of the exhaustive best
  // (0: never).
  std::size_t measurements_to_99 = 0, measurements_to_95 = 0;

  double best_ms() const { return measured.empty() ? 0 : measured[best].ms; }
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// InputError for an unknown op, set, strategy or prior, a problem no configuration supports,
// model-prior without a model, or a prior model of another op or dtype.
LiveTuneResult live_tune(const LiveTuneOptions& options);

}  // namespace kselect::search
