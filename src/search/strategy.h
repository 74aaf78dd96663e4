#pragma once
// Search strategies over a Domain: each proposes configurations, asks an objective to score
// the new ones (larger is better) and stops after `budget` distinct configurations. The same
// code drives the surrogate search (the objective is a model's score) and the tuning
// baselines (the objective is a measured speed).
//   random     distinct configurations drawn uniformly from the valid ones
//   de         discrete differential evolution (the CK reference's search.py): per member,
//              a mutant takes each gene from one of three other members with probability
//              `mutation`, the trial each gene of the mutant with probability `crossover`
//              (at least one), repaired to the nearest valid configuration; the trial
//              replaces the member when it scores at least as well; a generation that
//              proposes nothing new restarts every member but the best from random draws
//   annealing  simulated annealing: a neighbour changes one gene by one step; worse
//              neighbours are accepted with probability exp(relative loss / temperature),
//              the temperature falling geometrically from 1 to 0.01 over the budget
//   genetic    a generational genetic algorithm: tournaments of two, uniform crossover,
//              each gene mutated with probability 1/genes, the best two kept
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "search/domain.h"

namespace kselect::search {

enum class Strategy { kRandom, kDifferentialEvolution, kAnnealing, kGenetic };

std::string_view to_string(Strategy s);
// InputError naming `field` and the known strategies for another name.
Strategy parse_strategy(std::string_view text, const std::string& field);
std::vector<std::string> strategy_names();

struct StrategyOptions {
  Strategy strategy = Strategy::kRandom;
  std::size_t budget = 1000;  // distinct configurations scored
  std::uint64_t seed = 1;
  std::size_t population = 20;             // de and genetic
  double mutation = 0.3, crossover = 0.7;  // de
};

// Scores `configs` (domain indices, distinct, never scored before) into `scores`, in order.
using Objective =
    std::function<void(std::span<const std::size_t> configs, std::vector<double>& scores)>;

struct Scored {
  std::size_t config = 0;
  double score = 0;
};

struct SearchTrace {
  std::vector<Scored> scored;  // every distinct configuration, in the order it was scored
  std::size_t proposals = 0;   // configurations proposed, repeats included
  std::size_t repairs = 0;     // proposals that were invalid and repaired
};

// Runs the strategy until the budget (or the whole domain) is scored, or until it proposes
// only configurations scored before (a converged population). InputError for an empty
// domain or a zero budget or population.
SearchTrace run_strategy(const Domain& domain, const Objective& objective,
                         const StrategyOptions& options);

// The `k` best of a trace, best first (ties: the earlier scored).
std::vector<Scored> best_of(const SearchTrace& trace, std::size_t k);

}  // namespace kselect::search
