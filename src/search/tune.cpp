#include "search/tune.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <numbers>
#include <numeric>
#include <set>

#include "core/error.h"
#include "core/key_values.h"
#include "core/progress.h"
#include "core/text.h"
#include "model/booster_fit.h"
#include "search/random.h"
#include "search/strategy.h"
#include "select/ranker.h"

namespace kselect::search {

namespace {

const std::vector<std::string> kModelStrategies = {"model", "model-prior"};

double log_relative(double speed, double best) {
  return std::log(std::max(speed, kFailedRelativeSpeed * best) / best);
}

// A feature row per configuration: ordered genes by their value, others by their value's
// index, and the prior (NaN, missing to XGBoost, where it has no value).
std::vector<float> feature_rows(const TuningTarget& target, const Prior* prior, std::size_t& cols) {
  const Domain& domain = target.domain;
  const auto& genes = domain.genes();
  const std::size_t columns = prior ? prior->problems.size() : 0;
  cols = genes.size() + columns;
  std::vector<float> x;
  x.reserve(domain.size() * cols);
  for (std::size_t c = 0; c < domain.size(); ++c) {
    for (std::size_t g = 0; g < genes.size(); ++g) {
      const std::uint16_t v = domain.genome(c)[g];
      x.push_back(genes[g].ordered ? float(parse_double(genes[g].values[v]).value_or(v))
                                   : float(v));
    }
    auto known = prior ? prior->by_kernel.find(domain.name(c)) : decltype(prior->by_kernel.end()){};
    for (std::size_t p = 0; p < columns; ++p)
      x.push_back(known == prior->by_kernel.end() ? std::nanf("") : float(known->second[p]));
  }
  return x;
}

model::BoostingParams ensemble_params(const TuneOptions& o, int member) {
  model::BoostingParams p;
  p.trees = o.trees;
  p.eta = 0.3;
  p.max_leaves = 8;
  p.max_depth = 4;
  p.min_child_weight = 1;
  p.subsample = 1;  // the bootstrap resample is the ensemble's diversity
  p.colsample = 1;
  p.alpha = 0;
  p.seed = member;
  p.threads = 1;  // many tiny fits: threads would cost more than they gain
  return p;
}

// Expected improvement of a normal guess (mean, spread) over 0, the best log speed so far.
double expected_improvement(double mean, double spread) {
  if (spread <= 0) return std::max(mean, 0.0);
  const double z = mean / spread;
  const double density = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  const double below = 0.5 * std::erfc(-z / std::sqrt(2.0));
  return mean * below + spread * density;
}

struct Proposal {
  std::vector<std::size_t> configs;  // the next ones to measure, best acquisition first
  double expected_gain = 0;  // the largest expected improvement of an unmeasured one (fraction)
};

// The next `count` configurations to measure: the highest mean + kappa x spread of a
// bootstrap ensemble fitted to the measurements so far (log speed relative to the best
// measured one; a failure counts as kFailedRelativeSpeed of it).
// The expected gain takes the model's own error into account, not only the members' spread:
// trees never predict above the best label, and bootstrap members agree where they have seen
// nothing, so their spread alone calls an unexplored landscape mapped. Each member's error on
// the measurements its resample left out (out of bag), over the better half of them (the
// region a gain would come from), widens every guess.
Proposal propose(const std::vector<float>& x, std::size_t cols,
                 const std::vector<std::size_t>& measured, const std::vector<double>& speed,
                 const std::vector<bool>& is_measured, std::size_t count, const TuneOptions& o,
                 Random& random) {
  double best = 0;
  for (double v : speed) best = std::max(best, v);
  std::vector<float> labels;
  for (double v : speed) labels.push_back(float(best > 0 ? log_relative(v, best) : 0));
  std::vector<float> sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  const float better_half = sorted.empty() ? 0.f : sorted[sorted.size() / 2];
  std::vector<std::size_t> open;
  for (std::size_t c = 0; c < is_measured.size(); ++c)
    if (!is_measured[c]) open.push_back(c);
  std::vector<float> open_x, measured_x;
  open_x.reserve(open.size() * cols);
  for (std::size_t c : open) open_x.insert(open_x.end(), &x[c * cols], &x[(c + 1) * cols]);
  for (std::size_t c : measured)
    measured_x.insert(measured_x.end(), &x[c * cols], &x[(c + 1) * cols]);
  std::vector<double> sum(open.size(), 0), sum_sq(open.size(), 0);
  double oob_sq = 0;
  std::size_t oob_count = 0;
  for (std::size_t e = 0; e < o.ensemble; ++e) {
    model::LabelledRows rows;
    std::vector<bool> in_bag(measured.size(), false);
    for (std::size_t i = 0; i < measured.size(); ++i) {
      const std::size_t pick = random.index(measured.size());
      in_bag[pick] = true;
      const std::size_t c = measured[pick];
      rows.x.insert(rows.x.end(), &x[c * cols], &x[(c + 1) * cols]);
      rows.labels.push_back(labels[pick]);
    }
    const auto booster =
        model::fit_booster(rows, cols, ensemble_params(o, int(e)), model::Loss::kSquaredError);
    const auto predicted = model::predict_rows(*booster, open_x, cols, 1);
    for (std::size_t i = 0; i < open.size(); ++i) {
      sum[i] += predicted[i];
      sum_sq[i] += double(predicted[i]) * predicted[i];
    }
    if (o.min_gain <= 0) continue;  // the error only serves the stop rule
    const auto fitted = model::predict_rows(*booster, measured_x, cols, 1);
    for (std::size_t i = 0; i < measured.size(); ++i)
      if (!in_bag[i] && labels[i] >= better_half) {
        oob_sq += double(fitted[i] - labels[i]) * (fitted[i] - labels[i]);
        ++oob_count;
      }
  }
  const double n = double(o.ensemble);
  // No out-of-bag row: nothing says how wrong the model is, so nothing says to stop.
  const double model_error =
      oob_count ? std::sqrt(oob_sq / double(oob_count)) : std::numeric_limits<double>::infinity();
  std::vector<double> acquisition(open.size());
  Proposal out;
  for (std::size_t i = 0; i < open.size(); ++i) {
    const double mean = sum[i] / n;
    const double spread = std::sqrt(std::max(0.0, sum_sq[i] / n - mean * mean));
    acquisition[i] = mean + o.kappa * spread;
    const double doubt = std::hypot(spread, model_error);
    out.expected_gain = std::max(out.expected_gain, expected_improvement(mean, doubt));
  }
  out.expected_gain = std::expm1(out.expected_gain);  // log speed -> fraction
  std::vector<std::size_t> order(open.size());
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, order.size());
  std::partial_sort(
      order.begin(), order.begin() + long(count), order.end(), [&](std::size_t a, std::size_t b) {
        return acquisition[a] > acquisition[b] || (acquisition[a] == acquisition[b] && a < b);
      });
  for (std::size_t i = 0; i < count; ++i) out.configs.push_back(open[order[i]]);
  return out;
}

// The prior's best configurations: the best of each column in turn, so a device whose
// landscape differs from the new one's costs a share of the first measurements, not all.
std::vector<std::size_t> best_of_prior(const TuningTarget& target, const Prior& prior,
                                       std::size_t count) {
  const std::size_t size = target.configurations();
  std::vector<std::vector<std::size_t>> orders;
  for (std::size_t p = 0; p < prior.problems.size(); ++p) {
    auto value = [&](std::size_t c) {
      auto it = prior.by_kernel.find(target.domain.name(c));
      const double v = it == prior.by_kernel.end() ? std::nan("") : it->second[p];
      return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
    };
    std::vector<std::size_t> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return value(a) > value(b); });
    orders.push_back(std::move(order));
  }
  std::vector<std::size_t> out;
  std::vector<bool> taken(size, false);
  for (std::size_t rank = 0; out.size() < count && rank < size; ++rank)
    for (const auto& order : orders)
      if (out.size() < count && !taken[order[rank]])
        taken[order[rank]] = true, out.push_back(order[rank]);
  return out;
}

// The first measurements: half the prior's best configurations, the rest (all without a
// prior) distinct random draws, so that the first model sees how far the prior holds on the
// new device, and a prior from devices unlike it misleads only half of them.
std::vector<std::size_t> initial_configs(const TuningTarget& target, const Prior* prior,
                                         std::size_t count, Random& random) {
  const std::size_t size = target.configurations();
  count = std::min(count, size);
  std::vector<std::size_t> out =
      prior ? best_of_prior(target, *prior, (count + 1) / 2) : std::vector<std::size_t>{};
  std::vector<bool> taken(size, false);
  for (std::size_t c : out) taken[c] = true;
  while (out.size() < count) {
    const std::size_t c = random.index(size);
    if (!taken[c]) taken[c] = true, out.push_back(c);
  }
  return out;
}

// Measures `configs` into the run.
void measure_into(TuningRun& run, std::vector<bool>& is_measured, MeasurementSource& source,
                  const std::vector<std::size_t>& configs) {
  const std::vector<double> speeds = source.measure(configs);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    run.measured.push_back(configs[i]);
    run.speed.push_back(speeds[i]);
    is_measured[configs[i]] = true;
  }
}

TuningRun model_guided(const TuningTarget& target, const Prior* prior, const TuneOptions& o,
                       std::uint64_t seed, MeasurementSource& source) {
  Random random(seed);
  const std::size_t budget = std::min(o.budget, target.configurations());
  std::size_t cols = 0;
  const std::vector<float> x = feature_rows(target, prior, cols);
  TuningRun run;
  std::vector<bool> is_measured(target.configurations(), false);
  measure_into(run, is_measured, source,
               initial_configs(target, prior, std::min(o.initial, budget), random));
  while (run.measured.size() < budget) {
    const std::size_t count = std::min(o.batch, budget - run.measured.size());
    Proposal next = propose(x, cols, run.measured, run.speed, is_measured, count, o, random);
    run.expected_gain = next.expected_gain;
    // The first refit sees the initial draws alone; from the second on the ensemble has seen
    // its own proposals measured, and its expected gain says what the rest may still give.
    if (o.min_gain > 0 && run.measured.size() >= o.initial + o.batch &&
        next.expected_gain < o.min_gain) {
      run.stopped = true;
      break;
    }
    measure_into(run, is_measured, source, next.configs);
  }
  return run;
}

// Best speed found after each number of measurements, as a fraction of the optimum.
std::vector<double> best_fractions(const TuningTarget& target, const TuningRun& run) {
  std::vector<double> out;
  double best = 0;
  for (double speed : run.speed) out.push_back((best = std::max(best, speed)) / target.optimum);
  return out;
}

double fraction_after(const std::vector<double>& fractions, std::size_t n) {
  if (fractions.empty()) return 0;
  return fractions[std::min(n, fractions.size()) - 1];
}

StrategyOutcome study_strategy(const TuningTarget& target, const std::string& strategy,
                               const Prior* prior, const TuneOptions& o,
                               const std::function<void()>& seed_done) {
  StrategyOutcome out;
  out.strategy = strategy;
  std::vector<double> to_target;
  for (std::size_t s = 0; s < o.seeds; ++s) {
    RecordedSource source(target);
    const TuningRun run = tuning_run(target, strategy, prior, o, o.first_seed + s, source);
    const auto fractions = best_fractions(target, run);
    out.mean_measurements += double(run.measured.size()) / double(o.seeds);
    out.fraction_stopped += run.stopped ? 1.0 / double(o.seeds) : 0.0;
    for (std::size_t n : o.checkpoints) {
      if (n > o.budget) continue;
      out.mean_fraction[n] += fraction_after(fractions, n) / double(o.seeds);
      const bool reached = fraction_after(fractions, n) >= o.target_fraction;
      out.fraction_seeds_ge_target_after[n] += reached ? 1.0 / double(o.seeds) : 0.0;
    }
    const double final_fraction = fraction_after(fractions, o.budget);
    out.mean_final_fraction += final_fraction / double(o.seeds);
    if (final_fraction >= o.target_fraction) {
      out.fraction_seeds_ge_target += 1.0 / double(o.seeds);
      const auto reached = std::find_if(fractions.begin(), fractions.end(),
                                        [&](double f) { return f >= o.target_fraction; });
      to_target.push_back(double(reached - fractions.begin() + 1));
    }
    seed_done();
  }
  if (to_target.size() * 2 >= o.seeds && !to_target.empty()) {
    std::sort(to_target.begin(), to_target.end());
    // The median over all seeds: the seeds that never reached the target rank last.
    out.median_measurements_to_target = to_target[(o.seeds - 1) / 2];
  }
  return out;
}

}  // namespace

Prior relative_speed_prior(const RecordedData& data, const std::string& exclude) {
  Prior out;
  for (const auto& [problem, by_kernel] : speeds_by_problem(data.rows)) {
    double best = 0;
    for (const auto& [kernel, speed] : by_kernel) best = std::max(best, speed);
    if (problem == exclude || best <= 0) continue;
    const std::size_t column = out.problems.size();
    out.problems.push_back(problem);
    for (const auto& [kernel, speed] : by_kernel) {
      auto& values = out.by_kernel[kernel];
      values.resize(column + 1, std::nan(""));
      values[column] = log_relative(speed, best);
    }
  }
  for (auto& [kernel, values] : out.by_kernel) values.resize(out.problems.size(), std::nan(""));
  return out;
}

void add_model_column(Prior& prior, const TuningTarget& target, const std::string& label,
                      const select::Ranker& ranker) {
  std::vector<std::string> names;
  for (std::size_t c = 0; c < target.configurations(); ++c) names.push_back(target.domain.name(c));
  // Ranking one configuration refuses a problem of another dtype than the model's (the fast
  // scoring path does not check).
  ranker.rank(target.problem, std::vector<std::string>{names.front()});
  std::vector<double> scores;
  ranker.score(target.problem, *ranker.prepare(names), scores);
  const std::size_t column = prior.problems.size();
  prior.problems.push_back("model " + label);
  for (auto& [kernel, values] : prior.by_kernel) values.resize(column + 1, std::nan(""));
  for (std::size_t c = 0; c < names.size(); ++c) {
    auto& values = prior.by_kernel[names[c]];
    values.resize(column + 1, std::nan(""));
    values[column] = scores[c];
  }
}

std::vector<std::string> tune_strategy_names() {
  std::vector<std::string> out = strategy_names();
  out.insert(out.end(), kModelStrategies.begin(), kModelStrategies.end());
  return out;
}

std::vector<double> RecordedSource::measure(std::span<const std::size_t> configs) {
  std::vector<double> out;
  for (std::size_t c : configs) out.push_back(target_.speed.at(c));
  return out;
}

TuningRun tuning_run(const TuningTarget& target, const std::string& strategy, const Prior* prior,
                     const TuneOptions& o, std::uint64_t seed, MeasurementSource& source) {
  if (strategy == "model") return model_guided(target, nullptr, o, seed, source);
  if (strategy == "model-prior") {
    if (!prior || prior->empty())
      throw InputError("", 0, "prior",
                       "model-prior needs --prior: measurements of other devices or a model");
    return model_guided(target, prior, o, seed, source);
  }
  StrategyOptions so;
  so.strategy = parse_strategy(strategy, "strategies");
  so.budget = o.budget;
  so.seed = seed;
  const Objective measure = [&](std::span<const std::size_t> configs, std::vector<double>& scores) {
    scores = source.measure(configs);
  };
  TuningRun run;
  for (const Scored& s : run_strategy(target.domain, measure, so).scored) {
    run.measured.push_back(s.config);
    run.speed.push_back(s.score);
  }
  return run;
}

std::vector<std::size_t> tuning_run(const TuningTarget& target, const std::string& strategy,
                                    const Prior* prior, const TuneOptions& o, std::uint64_t seed) {
  RecordedSource source(target);
  return tuning_run(target, strategy, prior, o, seed, source).measured;
}

TuneReport tune_study(const std::string& cache, const std::vector<std::string>& priors,
                      const TuneOptions& o) {
  if (o.seeds == 0) throw InputError("", 0, "seeds", "must be at least 1");
  if (o.budget == 0) throw InputError("", 0, "budget", "must be at least 1");
  for (const auto& s : o.strategies) {
    const auto known = tune_strategy_names();
    if (std::find(known.begin(), known.end(), s) == known.end())
      throw InputError("", 0, "strategies",
                       "unknown strategy '" + s + "' (known: " + join(known) + ")");
  }
  TuneReport report{cache, priors, o, {}};
  const RecordedData data = load_recorded(cache);
  RecordedData prior_data;
  std::vector<std::pair<std::string, select::Ranker>> prior_models;
  for (const auto& path : priors) {
    if (std::filesystem::is_directory(path)) {
      prior_models.emplace_back(path, select::Ranker::load(path));
      continue;
    }
    RecordedData more = load_recorded(path);
    std::move(more.rows.begin(), more.rows.end(), std::back_inserter(prior_data.rows));
  }
  std::vector<std::string> strategies = o.strategies;
  const bool with_prior = !priors.empty();
  if (with_prior && std::count(strategies.begin(), strategies.end(), "model") &&
      !std::count(strategies.begin(), strategies.end(), "model-prior"))
    strategies.push_back("model-prior");
  const auto targets = tuning_targets(data);
  Progress progress("tune", long(targets.size() * strategies.size() * o.seeds), std::cerr,
                    o.progress);
  long done = 0;
  for (const TuningTarget& target : targets) {
    Prior prior = relative_speed_prior(prior_data, target.problem);
    for (const auto& [path, ranker] : prior_models) add_model_column(prior, target, path, ranker);
    TargetOutcome outcome;
    outcome.problem = target.problem;
    outcome.configurations = target.configurations();
    outcome.failed = std::size_t(std::count(target.speed.begin(), target.speed.end(), 0.0));
    outcome.within_target = target.within(o.target_fraction);
    outcome.optimum_ms = 1.0 / target.optimum;
    for (const auto& strategy : strategies)
      outcome.strategies.push_back(study_strategy(target, strategy, with_prior ? &prior : nullptr,
                                                  o, [&] { progress.update(++done, strategy); }));
    report.targets.push_back(std::move(outcome));
  }
  progress.finish();
  return report;
}

nlohmann::json TuneReport::to_json() const {
  nlohmann::json out = {{"cache", cache},
                        {"priors", priors},
                        {"budget", options.budget},
                        {"seeds", options.seeds},
                        {"first_seed", options.first_seed},
                        {"target_fraction", options.target_fraction},
                        {"min_gain", options.min_gain},
                        {"problems", nlohmann::json::array()}};
  for (const auto& t : targets) {
    nlohmann::json j = {{"problem", t.problem},       {"configurations", t.configurations},
                        {"failed", t.failed},         {"within_target", t.within_target},
                        {"optimum_ms", t.optimum_ms}, {"strategies", nlohmann::json::array()}};
    for (const auto& s : t.strategies) {
      nlohmann::json fractions = nlohmann::json::object(), seeds = nlohmann::json::object();
      for (const auto& [n, f] : s.mean_fraction) fractions[std::to_string(n)] = f;
      for (const auto& [n, f] : s.fraction_seeds_ge_target_after) seeds[std::to_string(n)] = f;
      // Keys name the target in percent: fraction_seeds_ge_95 for the default 0.95.
      const std::string percent = std::to_string(std::lround(100 * options.target_fraction));
      j["strategies"].push_back(
          {{"strategy", s.strategy},
           {"mean_fraction_of_optimum", fractions},
           {"mean_final_fraction", s.mean_final_fraction},
           {"fraction_seeds_ge_" + percent, s.fraction_seeds_ge_target},
           {"fraction_seeds_ge_" + percent + "_after", seeds},
           {"median_measurements_to_" + percent,
            s.median_measurements_to_target < 0 ? nlohmann::json()
                                                : nlohmann::json(s.median_measurements_to_target)},
           {"mean_measurements", s.mean_measurements},
           {"fraction_stopped", s.fraction_stopped}});
    }
    out["problems"].push_back(std::move(j));
  }
  return out;
}

std::string TuneReport::to_text() const {
  std::string out;
  char line[512];
  for (const auto& t : targets) {
    std::snprintf(line, sizeof line,
                  "%s\n  %zu configurations (%zu failed), optimum %.4g ms, %zu within %.0f%% of "
                  "it; %zu seeds, budget %zu\n",
                  t.problem.c_str(), t.configurations, t.failed, t.optimum_ms, t.within_target,
                  100 * options.target_fraction, options.seeds, options.budget);
    out += line;
    std::snprintf(line, sizeof line, "  %-12s", "strategy");
    out += line;
    for (std::size_t n : options.checkpoints)
      if (n <= options.budget)
        out += "  @" + std::to_string(n) + std::string(6 - std::to_string(n).size(), ' ');
    const std::string percent = std::to_string(std::lround(100 * options.target_fraction));
    out += "  seeds>=" + percent + "%  median n to " + percent + "%";
    out += options.min_gain > 0 ? "  (mean n, stopped by min gain)\n" : "\n";
    for (const auto& s : t.strategies) {
      std::snprintf(line, sizeof line, "  %-12s", s.strategy.c_str());
      out += line;
      for (const auto& [n, f] : s.mean_fraction) {
        std::snprintf(line, sizeof line, "  %6.2f%%", 100 * f);
        out += line;
      }
      std::snprintf(line, sizeof line, "  %9.0f%%  %s", 100 * s.fraction_seeds_ge_target,
                    s.median_measurements_to_target < 0
                        ? "-"
                        : std::to_string(long(s.median_measurements_to_target)).c_str());
      out += line;
      if (options.min_gain > 0) {
        std::snprintf(line, sizeof line, "  (%.1f, %.0f%%)", s.mean_measurements,
                      100 * s.fraction_stopped);
        out += line;
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace kselect::search
