// kselect search: proposes configurations of a rule-defined space by scoring them with a model
// (search/surrogate.h).
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "search/surrogate.h"

namespace kselect::cli {

namespace {

struct SearchArgs {
  search::SurrogateOptions options;
  std::string strategy = "random";
  bool json = false, no_progress = false;
};

int run(SearchArgs& a) {
  a.options.strategy.strategy = search::parse_strategy(a.strategy, "strategy");
  a.options.progress = !a.no_progress;
  const search::SurrogateResult result = search::surrogate_search(a.options);
  if (a.json)
    std::cout << result.to_json().dump(2) << "\n";
  else
    std::cout << result.to_text();
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<SearchArgs>();
  auto& o = a->options;
  auto* cmd = app.add_subcommand(
      "search", "Propose configurations of a rule-defined space, scored by a model");
  cmd->add_option("--model", o.model, "Model directory")->required();
  cmd->add_option("--problem", o.problem, "Problem, e.g. m=128,n=1536,k=7168,layout=rcr,dtype=fp32")
      ->required();
  cmd->add_option("--space", o.space,
                  "A rule set of the op's rule file, or a rule file (its whole valid space)")
      ->capture_default_str();
  cmd->add_option("--strategy", a->strategy,
                  "random, de (differential evolution), annealing or genetic")
      ->capture_default_str()
      ->check(CLI::IsMember(search::strategy_names()));
  cmd->add_option("--budget", o.strategy.budget, "Configurations to score")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--top-k", o.top_k, "Configurations to report")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o.strategy.seed, "Random seed (the same seed, the same search)")
      ->capture_default_str();
  cmd->add_option("--population", o.strategy.population, "de: population size")
      ->capture_default_str();
  cmd->add_option("--mutation", o.strategy.mutation, "de: per-gene mutation probability")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--crossover", o.strategy.crossover, "de: per-gene crossover probability")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--no-progress", a->no_progress, "No progress line on stderr");
  cmd->add_flag("--json", a->json, "Print JSON");
  return [a] { return run(*a); };
}

RegisterVerb reg("search", setup);

}  // namespace
}  // namespace kselect::cli
