// kselect tune: compares tuning strategies on a recorded cache over many seeds (--cache,
// search/tune.h), or tunes one problem on this machine with real measurements (--problem,
// search/live.h).
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "core/text.h"
#include "search/live.h"
#include "search/tune.h"

namespace kselect::cli {

namespace {

struct TuneArgs {
  std::string cache;
  std::vector<std::string> priors;
  std::string strategies = "random,de,annealing,genetic,model";
  search::TuneOptions options;
  bool json = false, no_progress = false;
  search::LiveTuneOptions live;
  CLI::Option* strategies_option = nullptr;
};

int run_live(TuneArgs& a) {
  auto& o = a.live;
  // One run: the model-guided strategy unless one is named.
  o.strategy = a.strategies_option->count() ? a.strategies : "model";
  if (o.strategy.find(',') != std::string::npos)
    throw InputError("", 0, "strategy",
                     "--problem tunes with one strategy, got '" + o.strategy + "'");
  o.priors = a.priors;
  if (o.strategy == "model" && !o.priors.empty()) o.strategy = "model-prior";
  o.tune = a.options;
  o.seed = a.options.first_seed;
  o.progress = !a.no_progress;
  const search::LiveTuneResult result = search::live_tune(o);
  if (a.json)
    std::cout << result.to_json().dump(2) << "\n";
  else
    std::cout << result.to_text();
  return kExitOk;
}

int run(TuneArgs& a) {
  if (!a.live.problem.empty()) return run_live(a);
  a.options.strategies.clear();
  for (std::string_view name : split(a.strategies, ',')) a.options.strategies.emplace_back(name);
  a.options.progress = !a.no_progress;
  const search::TuneReport report = search::tune_study(a.cache, a.priors, a.options);
  if (a.json)
    std::cout << report.to_json().dump(2) << "\n";
  else
    std::cout << report.to_text();
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto& o = a->options;
  auto* cmd = app.add_subcommand(
      "tune", "Compare tuning strategies on a recorded cache: fraction of the optimum found");
  // One of the two: a study on recorded measurements, or one problem tuned here.
  auto* source = cmd->add_option_group("source", "--cache or --problem");
  source->add_option("--cache", a->cache,
                     "Kernel Tuner cache (.json[.gz]) or kselect store: the recorded measurements");
  auto& live = a->live;
  source->add_option("--problem", live.problem,
                     "Tune this problem (key=value text) with real runs on this machine instead");
  source->require_option(1);
  cmd->add_option("--op", live.op, "--problem: the operation")->capture_default_str();
  cmd->add_option("--space", live.space,
                  "--problem: a rule set of the op's rule file, or a rule file's path")
      ->capture_default_str();
  cmd->add_option("--repeats", live.measure.repeats,
                  "--problem: timed runs per kernel after one warm-up (the fastest counts)")
      ->capture_default_str();
  cmd->add_option("--threads", live.measure.threads, "--problem: threads per kernel run")
      ->capture_default_str();
  cmd->add_flag("--exhaustive", live.exhaustive,
                "--problem: then measure every other configuration, to judge the run's best");
  cmd->add_option("--prior", a->priors,
                  "Caches or stores of other devices, or model directories: the "
                  "model-prior strategy's prior");
  a->strategies_option =
      cmd->add_option("--strategies,--strategy", a->strategies,
                      "Comma-separated: " + join(search::tune_strategy_names()) +
                          " (model-prior is added to model when --prior is given; --problem: "
                          "one, default model)")
          ->capture_default_str();
  cmd->add_option("--budget", o.budget, "Measurements per run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seeds", o.seeds, "Runs per strategy, seeds first-seed, first-seed + 1, ...")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--first-seed", o.first_seed, "The first seed")->capture_default_str();
  cmd->add_option("--initial", o.initial, "model: random (or prior's best) first measurements")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch", o.batch, "model: measurements per refit")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ensemble", o.ensemble, "model: bootstrap models per refit")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--kappa", o.kappa, "model: weight of the ensemble's spread")
      ->capture_default_str();
  cmd->add_option("--trees", o.trees, "model: trees per bootstrap model")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--min-gain", o.min_gain,
                  "model: stop once no unmeasured configuration is expected to be this fraction "
                  "faster than the best measured (0: spend the budget)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--target", o.target_fraction,
                  "Fraction of the optimum a run must reach (names the report's keys: 0.95: "
                  "fraction_seeds_ge_95)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_flag("--no-progress", a->no_progress, "No progress line on stderr");
  cmd->add_flag("--json", a->json, "Print JSON");
  return [a] { return run(*a); };
}

RegisterVerb reg("tune", setup);

}  // namespace
}  // namespace kselect::cli
