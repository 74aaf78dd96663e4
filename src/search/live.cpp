#include "search/live.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <span>

#include "core/error.h"
#include "core/progress.h"
#include "core/text.h"
#include "ops/operation.h"
#include "search/problem_domain.h"
#include "select/ranker.h"

namespace kselect::search {

namespace {

double speed_of(const LiveMeasurement& m) {
  return std::isfinite(m.ms) && m.ms > 0 ? 1.0 / m.ms : 0.0;
}

// Real runs of the catalogue's kernels, logged in the order measured.
class LiveSource : public MeasurementSource {
 public:
  LiveSource(const Operation& op, const KernelCatalogue& catalogue, const std::string& problem,
             const select::MeasureOptions& options, std::vector<LiveMeasurement>& log,
             Progress& progress, long& done)
      : op_(op),
        catalogue_(catalogue),
        problem_(problem),
        options_(options),
        log_(log),
        progress_(progress),
        done_(done) {}

  std::vector<double> measure(std::span<const std::size_t> configs) override {
    const std::vector<std::uint32_t> kernels(configs.begin(), configs.end());
    std::vector<double> speeds;
    for (const auto& m : select::measure_kernels(op_, catalogue_, problem_, kernels, options_)) {
      const bool ran = m.error.empty() && std::isfinite(m.ms) && m.ms > 0;
      log_.push_back({catalogue_.name(m.kernel), ran ? m.ms : std::nan(""), m.error});
      speeds.push_back(speed_of(log_.back()));
      progress_.update(++done_, log_.back().kernel);
    }
    return speeds;
  }

 private:
  const Operation& op_;
  const KernelCatalogue& catalogue_;
  const std::string& problem_;
  const select::MeasureOptions& options_;
  std::vector<LiveMeasurement>& log_;
  Progress& progress_;
  long& done_;
};

// The first run measurement after which the best so far is within `fraction` of `best_speed`;
// 0 when none is.
std::size_t measurements_to(const std::vector<LiveMeasurement>& run, double best_speed,
                            double fraction) {
  double best = 0;
  for (std::size_t i = 0; i < run.size(); ++i)
    if ((best = std::max(best, speed_of(run[i]))) >= fraction * best_speed) return i + 1;
  return 0;
}

void check_options(const LiveTuneOptions& o) {
  const auto known = tune_strategy_names();
  if (std::find(known.begin(), known.end(), o.strategy) == known.end())
    throw InputError("", 0, "strategy",
                     "unknown strategy '" + o.strategy + "' (known: " + join(known) + ")");
  if (o.strategy == "model-prior" && o.priors.empty())
    throw InputError("", 0, "prior", "model-prior needs --prior: a trained model directory");
  if (o.tune.budget == 0) throw InputError("", 0, "budget", "must be at least 1");
  if (o.measure.repeats < 1) throw InputError("", 0, "repeats", "must be at least 1");
  if (o.measure.threads < 1) throw InputError("", 0, "threads", "must be at least 1");
}

nlohmann::json measurement_json(const LiveMeasurement& m) {
  nlohmann::json j = {{"kernel", m.kernel},
                      {"ms", std::isfinite(m.ms) ? nlohmann::json(m.ms) : nlohmann::json()}};
  if (!m.error.empty()) j["error"] = m.error;
  return j;
}

}  // namespace

LiveTuneResult live_tune(const LiveTuneOptions& o) {
  check_options(o);
  const Operation& op = find_operation(o.op);
  LiveTuneResult r;
  r.options = o;
  r.problem = op.canonical_problem(o.problem, "--problem");
  ProblemDomain space = problem_domain(op, o.space, r.problem);
  r.space_size = space.space_size;
  TuningTarget target{r.problem, std::move(space.domain), {}, 0};
  r.candidates = target.configurations();
  std::vector<std::string> names;
  for (std::size_t c = 0; c < target.configurations(); ++c) names.push_back(target.domain.name(c));
  const auto catalogue = op.catalogue(names);

  Prior prior;
  for (const auto& path : o.priors) {
    const select::Ranker ranker = select::Ranker::load(path);
    if (ranker.spec().op != op.name())
      throw InputError(
          path, 0, "op",
          "the model is for '" + ranker.spec().op + "', not '" + std::string(op.name()) + "'");
    add_model_column(prior, target, path, ranker);
  }

  const std::size_t budget = std::min(o.tune.budget, target.configurations());
  Progress progress("tune", long(o.exhaustive ? target.configurations() : budget), std::cerr,
                    o.progress);
  long done = 0;
  LiveSource source(op, *catalogue, r.problem, o.measure, r.measured, progress, done);
  const TuningRun run =
      tuning_run(target, o.strategy, prior.empty() ? nullptr : &prior, o.tune, o.seed, source);
  r.stopped = run.stopped;
  r.expected_gain = run.expected_gain;
  for (std::size_t i = 0; i < r.measured.size(); ++i)
    if (speed_of(r.measured[i]) > speed_of(r.measured[r.best])) r.best = i;

  if (o.exhaustive) {
    std::vector<bool> measured(target.configurations(), false);
    for (std::size_t c : run.measured) measured[c] = true;
    std::vector<std::size_t> rest;
    for (std::size_t c = 0; c < measured.size(); ++c)
      if (!measured[c]) rest.push_back(c);
    LiveSource rest_source(op, *catalogue, r.problem, o.measure, r.rest, progress, done);
    rest_source.measure(rest);
    const LiveMeasurement* best = &r.measured[r.best];
    for (const auto& m : r.rest)
      if (speed_of(m) > speed_of(*best)) best = &m;
    r.exhaustive_best_ms = best->ms;
    r.exhaustive_best_kernel = best->kernel;
    r.measurements_to_99 = measurements_to(r.measured, speed_of(*best), 0.99);
    r.measurements_to_95 = measurements_to(r.measured, speed_of(*best), 0.95);
  }
  progress.finish();
  return r;
}

nlohmann::json LiveTuneResult::to_json() const {
  nlohmann::json out = {
      {"op", options.op},
      {"problem", problem},
      {"space", options.space},
      {"strategy", options.strategy},
      {"seed", options.seed},
      {"priors", options.priors},
      {"budget", options.tune.budget},
      {"min_gain", options.tune.min_gain},
      {"space_size", space_size},
      {"candidates", candidates},
      {"stopped", stopped},
      {"expected_gain", expected_gain < 0 ? nlohmann::json() : nlohmann::json(expected_gain)},
      {"measurements", measured.size()},
      {"best", measured.empty() ? nlohmann::json() : measurement_json(measured[best])},
      {"measured", nlohmann::json::array()}};
  for (const auto& m : measured) out["measured"].push_back(measurement_json(m));
  if (options.exhaustive) {
    out["exhaustive"] = {{"measured", measured.size() + rest.size()},
                         {"best", {{"kernel", exhaustive_best_kernel}, {"ms", exhaustive_best_ms}}},
                         {"fraction_of_best", exhaustive_best_ms / best_ms()},
                         {"measurements_to_99", measurements_to_99},
                         {"measurements_to_95", measurements_to_95}};
  }
  return out;
}

std::string LiveTuneResult::to_text() const {
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line, "%s: %s over '%s' (%zu of %zu configurations support the problem)\n",
      problem.c_str(), options.strategy.c_str(), options.space.c_str(), candidates, space_size);
  out += line;
  const char* why = stopped ? "stopped: expected gain below min gain" : "budget spent";
  std::snprintf(line, sizeof line, "%zu measurements (%s); best %.4g ms  %s\n", measured.size(),
                measured.size() < candidates ? why : "every configuration measured", best_ms(),
                measured.empty() ? "" : measured[best].kernel.c_str());
  out += line;
  if (options.exhaustive) {
    std::snprintf(
        line, sizeof line,
        "exhaustive best %.4g ms  %s\n  the run found %.1f%% of its speed; within 1%% "
        "after %s, within 5%% after %s measurements (of %zu)\n",
        exhaustive_best_ms, exhaustive_best_kernel.c_str(), 100 * exhaustive_best_ms / best_ms(),
        measurements_to_99 ? std::to_string(measurements_to_99).c_str() : "never",
        measurements_to_95 ? std::to_string(measurements_to_95).c_str() : "never", candidates);
    out += line;
  }
  return out;
}

}  // namespace kselect::search
