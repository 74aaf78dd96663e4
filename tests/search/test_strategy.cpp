#include "search/strategy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.h"

namespace kselect::search {
namespace {

// Four ordered genes of ten values, every combination valid except those whose genes sum to
// a multiple of 7 (holes a repair must step around): 10^4 - ~1.4k configurations.
Domain grid() {
  std::vector<Gene> genes;
  for (int g = 0; g < 4; ++g) {
    Gene gene{"g" + std::to_string(g), {}, true};
    for (int v = 0; v < 10; ++v) gene.values.push_back(std::to_string(v));
    genes.push_back(gene);
  }
  std::vector<Genome> configs;
  std::vector<std::string> names;
  for (int i = 0; i < 100000; ++i) {
    Genome genome;
    int sum = 0;
    for (int g = 0, rest = i; g < 4; ++g, rest /= 10) genome.push_back(std::uint16_t(rest % 10));
    for (auto v : genome) sum += v;
    if (sum % 7 == 0 && sum != 0) continue;
    configs.push_back(genome);
    names.push_back("c" + std::to_string(i));
  }
  return Domain(genes, configs, names);
}

// A smooth landscape with one peak at genes (7, 2, 9, 3). Their sum, 21, is a multiple of 7:
// the peak itself is a hole, and the best valid configurations are one step away.
Objective peak(const Domain& domain) {
  return [&domain](std::span<const std::size_t> configs, std::vector<double>& scores) {
    static const int target[4] = {7, 2, 9, 3};
    scores.clear();
    for (std::size_t c : configs) {
      double d = 0;
      for (int g = 0; g < 4; ++g) d += std::abs(int(domain.genome(c)[g]) - target[g]);
      scores.push_back(1.0 / (1.0 + d));
    }
  };
}

double best_score(const SearchTrace& trace) {
  double best = 0;
  for (const auto& s : trace.scored) best = std::max(best, s.score);
  return best;
}

StrategyOptions options(Strategy strategy, std::size_t budget, std::uint64_t seed) {
  StrategyOptions o;
  o.strategy = strategy;
  o.budget = budget;
  o.seed = seed;
  return o;
}

const Strategy kAll[] = {Strategy::kRandom, Strategy::kDifferentialEvolution, Strategy::kAnnealing,
                         Strategy::kGenetic};

TEST(Strategy, EachScoresDistinctConfigurationsWithinTheBudget) {
  const Domain domain = grid();
  for (Strategy s : kAll) {
    const SearchTrace trace = run_strategy(domain, peak(domain), options(s, 300, 4));
    EXPECT_EQ(trace.scored.size(), 300u) << to_string(s);
    std::set<std::size_t> seen;
    for (const auto& scored : trace.scored) {
      EXPECT_LT(scored.config, domain.size());
      EXPECT_TRUE(seen.insert(scored.config).second) << to_string(s) << " repeated a config";
    }
  }
}

TEST(Strategy, TheSameSeedGivesTheSameSearchAndAnotherSeedAnother) {
  const Domain domain = grid();
  for (Strategy s : kAll) {
    const auto a = run_strategy(domain, peak(domain), options(s, 200, 11));
    const auto b = run_strategy(domain, peak(domain), options(s, 200, 11));
    const auto c = run_strategy(domain, peak(domain), options(s, 200, 12));
    auto configs = [](const SearchTrace& t) {
      std::vector<std::size_t> out;
      for (const auto& x : t.scored) out.push_back(x.config);
      return out;
    };
    EXPECT_EQ(configs(a), configs(b)) << to_string(s);
    EXPECT_NE(configs(a), configs(c)) << to_string(s);
  }
}

// The guided strategies climb the landscape: over ten seeds each finds a better best than
// random draws of the same budget, and differential evolution repairs the holes it proposes.
TEST(Strategy, GuidedStrategiesBeatRandomDrawsOnASmoothLandscape) {
  const Domain domain = grid();
  auto mean_best = [&](Strategy s, std::size_t* repairs) {
    double total = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const auto trace = run_strategy(domain, peak(domain), options(s, 150, seed));
      total += best_score(trace);
      if (repairs) *repairs += trace.repairs;
    }
    return total / 10;
  };
  std::size_t repairs = 0;
  const double random = mean_best(Strategy::kRandom, nullptr);
  EXPECT_GT(mean_best(Strategy::kDifferentialEvolution, &repairs), random);
  EXPECT_GT(mean_best(Strategy::kAnnealing, nullptr), random);
  EXPECT_GT(mean_best(Strategy::kGenetic, nullptr), random);
  EXPECT_GT(repairs, 0u);
}

TEST(Strategy, ABudgetAboveTheDomainScoresEveryConfigurationOnce) {
  std::vector<Gene> genes{{"x", {"1", "2", "3"}, true}};
  const Domain tiny(genes, {{0}, {1}, {2}}, {"a", "b", "c"});
  for (Strategy s : kAll) {
    StrategyOptions o = options(s, 50, 3);
    o.population = 4;
    const auto trace = run_strategy(
        tiny, [](auto configs, auto& scores) { scores.assign(configs.size(), 1.0); }, o);
    EXPECT_EQ(trace.scored.size(), 3u) << to_string(s);
  }
}

TEST(Strategy, BestOfSortsBestFirst) {
  SearchTrace trace;
  trace.scored = {{0, 0.5}, {1, 0.9}, {2, 0.1}, {3, 0.9}};
  const auto best = best_of(trace, 3);
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].config, 1u);
  EXPECT_EQ(best[1].config, 3u);
  EXPECT_EQ(best[2].config, 0u);
}

TEST(Strategy, BadOptionsAreInputErrors) {
  const Domain domain = grid();
  EXPECT_THROW(run_strategy(domain, peak(domain), options(Strategy::kRandom, 0, 1)), InputError);
  StrategyOptions o = options(Strategy::kDifferentialEvolution, 10, 1);
  o.population = 3;
  EXPECT_THROW(run_strategy(domain, peak(domain), o), InputError);
  EXPECT_THROW(parse_strategy("hill", "strategy"), InputError);
  EXPECT_EQ(parse_strategy("de", "strategy"), Strategy::kDifferentialEvolution);
}

}  // namespace
}  // namespace kselect::search
