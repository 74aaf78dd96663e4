#include "search/strategy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "core/text.h"
#include "search/random.h"

namespace kselect::search {

namespace {

constexpr double kUnscored = -std::numeric_limits<double>::infinity();
// Consecutive proposals that bring nothing new before a strategy counts as converged.
constexpr std::size_t kStallLimit = 2000;

const std::vector<std::pair<Strategy, std::string_view>> kNames = {
    {Strategy::kRandom, "random"},
    {Strategy::kDifferentialEvolution, "de"},
    {Strategy::kAnnealing, "annealing"},
    {Strategy::kGenetic, "genetic"}};

// Scores configurations through the objective once each, within the budget, and records the
// trace. Configurations beyond the budget score kUnscored, so they never win a comparison.
class Evaluator {
 public:
  Evaluator(const Objective& objective, std::size_t budget, SearchTrace& trace)
      : objective_(objective), budget_(budget), trace_(trace) {}

  bool exhausted() const { return trace_.scored.size() >= budget_ || stalled_ >= kStallLimit; }

  std::vector<double> evaluate(std::span<const std::size_t> configs) {
    std::vector<std::size_t> fresh;
    for (std::size_t c : configs) {
      if (known_.count(c) || std::find(fresh.begin(), fresh.end(), c) != fresh.end()) continue;
      if (trace_.scored.size() + fresh.size() < budget_) fresh.push_back(c);
    }
    trace_.proposals += configs.size();
    stalled_ = fresh.empty() ? stalled_ + configs.size() : 0;
    if (!fresh.empty()) {
      std::vector<double> scores;
      objective_(fresh, scores);
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        known_[fresh[i]] = scores[i];
        trace_.scored.push_back({fresh[i], scores[i]});
      }
    }
    std::vector<double> out;
    for (std::size_t c : configs) {
      auto it = known_.find(c);
      out.push_back(it == known_.end() ? kUnscored : it->second);
    }
    return out;
  }
  double evaluate(std::size_t config) { return evaluate(std::span(&config, 1)).front(); }
  bool known(std::size_t config) const { return known_.count(config) > 0; }

 private:
  const Objective& objective_;
  std::size_t budget_;
  SearchTrace& trace_;
  std::unordered_map<std::size_t, double> known_;
  std::size_t stalled_ = 0;
};

// `count` distinct configurations drawn uniformly (all of them when count >= size).
std::vector<std::size_t> draw_distinct(std::size_t size, std::size_t count, Random& random) {
  std::vector<std::size_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, size);
  for (std::size_t i = 0; i < count; ++i) std::swap(order[i], order[i + random.index(size - i)]);
  order.resize(count);
  return order;
}

// The configuration a proposed genome stands for: itself when valid, else its repair.
std::size_t settle(const Domain& domain, const Genome& genome, SearchTrace& trace) {
  if (auto found = domain.find(genome)) return *found;
  ++trace.repairs;
  return domain.nearest(genome);
}

void random_search(const Domain& domain, Evaluator& evaluator, std::size_t budget, Random& random) {
  const auto order = draw_distinct(domain.size(), budget, random);
  constexpr std::size_t kBatch = 512;  // scored together: the model's fast path
  for (std::size_t at = 0; at < order.size() && !evaluator.exhausted(); at += kBatch)
    evaluator.evaluate(std::span(order).subspan(at, std::min(kBatch, order.size() - at)));
}

// Three distinct members other than `self`.
std::array<std::size_t, 3> three_others(std::size_t self, std::size_t population, Random& random) {
  std::array<std::size_t, 3> out{};
  for (std::size_t n = 0; n < 3; ++n) {
    std::size_t pick;
    do pick = random.index(population);
    while (pick == self || std::find(out.begin(), out.begin() + n, pick) != out.begin() + n);
    out[n] = pick;
  }
  return out;
}

// A converged population proposes only what it scored before: every member but the best is
// drawn afresh, so the rest of the budget explores instead of stopping.
void restart_all_but_best(const Domain& domain, Evaluator& evaluator,
                          std::vector<std::size_t>& members, std::vector<double>& scores,
                          Random& random) {
  const std::size_t best =
      std::size_t(std::max_element(scores.begin(), scores.end()) - scores.begin());
  for (std::size_t i = 0; i < members.size(); ++i)
    if (i != best) members[i] = random.index(domain.size());
  scores = evaluator.evaluate(members);
}

void differential_evolution(const Domain& domain, Evaluator& evaluator, const StrategyOptions& o,
                            SearchTrace& trace, Random& random) {
  std::vector<std::size_t> members = draw_distinct(domain.size(), o.population, random);
  std::vector<double> scores = evaluator.evaluate(members);
  if (members.size() < 4) return;  // no three donors: the draw was the whole domain
  const std::size_t genes = domain.genes().size();
  while (!evaluator.exhausted()) {
    std::vector<std::size_t> trials;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto donors = three_others(i, members.size(), random);
      Genome mutant = domain.genome(members[donors[0]]);
      for (std::size_t g = 0; g < genes; ++g)
        if (random.chance(o.mutation))
          mutant[g] = domain.genome(members[donors[1 + random.index(2)]])[g];
      Genome trial = domain.genome(members[i]);
      const std::size_t forced = random.index(genes);  // the trial differs in one gene at least
      for (std::size_t g = 0; g < genes; ++g)
        if (g == forced || random.chance(o.crossover)) trial[g] = mutant[g];
      trials.push_back(settle(domain, trial, trace));
    }
    const std::size_t scored_before = trace.scored.size();
    const std::vector<double> trial_scores = evaluator.evaluate(trials);
    for (std::size_t i = 0; i < members.size(); ++i)
      if (trial_scores[i] >= scores[i]) members[i] = trials[i], scores[i] = trial_scores[i];
    if (trace.scored.size() == scored_before)
      restart_all_but_best(domain, evaluator, members, scores, random);
  }
}

// One gene moved one step (ordered genes) or to another value.
Genome neighbour(const Domain& domain, const Genome& from, Random& random) {
  Genome out = from;
  const std::size_t g = random.index(out.size());
  const std::size_t values = domain.genes()[g].values.size();
  if (values < 2) return out;
  if (domain.genes()[g].ordered) {
    const bool up = out[g] == 0 || (out[g] + 1u < values && random.chance(0.5));
    out[g] = std::uint16_t(up ? out[g] + 1 : out[g] - 1);
  } else {
    out[g] = std::uint16_t((out[g] + 1 + random.index(values - 1)) % values);
  }
  return out;
}

void simulated_annealing(const Domain& domain, Evaluator& evaluator, std::size_t budget,
                         SearchTrace& trace, Random& random) {
  constexpr double kStart = 1.0, kEnd = 0.01;
  std::size_t current = random.index(domain.size());
  double current_score = evaluator.evaluate(current);
  std::size_t repeats = 0;
  while (!evaluator.exhausted()) {
    const double progress = double(trace.scored.size()) / double(budget);
    const double temperature = kStart * std::pow(kEnd / kStart, progress);
    std::size_t next = settle(domain, neighbour(domain, domain.genome(current), random), trace);
    // Every neighbour was seen: restart from an unscored configuration so the budget is spent.
    if (evaluator.known(next) && ++repeats > 50) next = random.index(domain.size()), repeats = 0;
    const double score = evaluator.evaluate(next);
    const double scale = std::max(std::abs(current_score), 1e-300);
    if (score >= current_score ||
        random.chance(std::exp((score - current_score) / (scale * temperature))))
      current = next, current_score = score;
  }
}

std::size_t tournament(const std::vector<double>& scores, Random& random) {
  const std::size_t a = random.index(scores.size()), b = random.index(scores.size());
  return scores[b] > scores[a] ? b : a;
}

void genetic_algorithm(const Domain& domain, Evaluator& evaluator, const StrategyOptions& o,
                       SearchTrace& trace, Random& random) {
  std::vector<std::size_t> members = draw_distinct(domain.size(), o.population, random);
  std::vector<double> scores = evaluator.evaluate(members);
  const std::size_t genes = domain.genes().size();
  constexpr std::size_t kElite = 2;
  while (!evaluator.exhausted()) {
    std::vector<std::size_t> order(members.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<std::size_t> next;
    for (std::size_t i = 0; i < std::min(kElite, order.size()); ++i)
      next.push_back(members[order[i]]);
    while (next.size() < members.size()) {
      const Genome& a = domain.genome(members[tournament(scores, random)]);
      const Genome& b = domain.genome(members[tournament(scores, random)]);
      Genome child(genes);
      for (std::size_t g = 0; g < genes; ++g) {
        child[g] = random.chance(0.5) ? a[g] : b[g];
        if (random.chance(1.0 / double(genes)))
          child[g] = std::uint16_t(random.index(domain.genes()[g].values.size()));
      }
      next.push_back(settle(domain, child, trace));
    }
    members = std::move(next);
    scores = evaluator.evaluate(members);
  }
}

}  // namespace

std::string_view to_string(Strategy s) {
  for (const auto& [strategy, name] : kNames)
    if (strategy == s) return name;
  return "?";
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const auto& [strategy, name] : kNames) out.emplace_back(name);
  return out;
}

Strategy parse_strategy(std::string_view text, const std::string& field) {
  for (const auto& [strategy, name] : kNames)
    if (name == text) return strategy;
  throw InputError(
      "", 0, field,
      "unknown strategy '" + std::string(text) + "' (known: " + join(strategy_names()) + ")");
}

SearchTrace run_strategy(const Domain& domain, const Objective& objective,
                         const StrategyOptions& o) {
  if (domain.size() == 0) throw InputError("", 0, "space", "no valid configuration to search");
  if (o.budget == 0) throw InputError("", 0, "budget", "must be at least 1");
  if (o.population < 4 &&
      (o.strategy == Strategy::kDifferentialEvolution || o.strategy == Strategy::kGenetic))
    throw InputError("", 0, "population", "must be at least 4");
  SearchTrace trace;
  Evaluator evaluator(objective, o.budget, trace);
  Random random(o.seed);
  switch (o.strategy) {
    case Strategy::kRandom:
      random_search(domain, evaluator, o.budget, random);
      break;
    case Strategy::kDifferentialEvolution:
      differential_evolution(domain, evaluator, o, trace, random);
      break;
    case Strategy::kAnnealing:
      simulated_annealing(domain, evaluator, o.budget, trace, random);
      break;
    case Strategy::kGenetic:
      genetic_algorithm(domain, evaluator, o, trace, random);
      break;
  }
  return trace;
}

std::vector<Scored> best_of(const SearchTrace& trace, std::size_t k) {
  std::vector<Scored> out = trace.scored;
  std::stable_sort(out.begin(), out.end(),
                   [](const Scored& a, const Scored& b) { return a.score > b.score; });
  if (out.size() > k) out.resize(k);
  return out;
}

}  // namespace kselect::search
