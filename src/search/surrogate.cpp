#include "search/surrogate.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/error.h"
#include "core/progress.h"
#include "core/text.h"
#include "ops/operation.h"
#include "search/problem_domain.h"
#include "select/ranker.h"

namespace kselect::search {

namespace {

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

}  // namespace

SurrogateResult surrogate_search(const SurrogateOptions& o) {
  const select::Ranker ranker = select::Ranker::load(o.model);
  const Operation& op = find_operation(ranker.spec().op);
  SurrogateResult r;
  r.op = op.name();
  r.problem = op.canonical_problem(o.problem, "--problem");
  r.space = o.space;
  r.strategy = o.strategy;
  r.ranges_recorded = !ranker.spec().training_ranges.empty();
  r.extrapolation = model::outside_training_ranges(ranker.spec(), r.problem);

  const ProblemDomain space = problem_domain(op, o.space, r.problem);
  r.space_size = space.space_size;
  r.candidates = space.domain.size();
  const Domain& domain = space.domain;
  // Ranking one candidate first refuses a problem of another dtype than the model's before the
  // budget is spent (the fast scoring path does not check).
  ranker.rank(r.problem, std::vector<std::string>{domain.name(0)});

  Progress progress("search", long(std::min(o.strategy.budget, domain.size())), std::cerr,
                    o.progress);
  std::size_t scored = 0;
  const Objective by_model = [&](std::span<const std::size_t> configs,
                                 std::vector<double>& scores) {
    std::vector<std::string> names;
    for (std::size_t c : configs) names.push_back(domain.name(c));
    ranker.score(r.problem, *ranker.prepare(names), scores);
    scored += configs.size();
    progress.update(long(scored), names.back());
  };
  r.trace = run_strategy(domain, by_model, o.strategy);
  progress.finish();
  std::vector<std::string> best;
  for (const Scored& s : best_of(r.trace, o.top_k)) best.push_back(domain.name(s.config));
  r.top = ranker.rank(r.problem, best);
  return r;
}

nlohmann::json SurrogateResult::to_json() const {
  nlohmann::json out = {{"op", op},
                        {"problem", problem},
                        {"space", space},
                        {"strategy", to_string(strategy.strategy)},
                        {"seed", strategy.seed},
                        {"budget", strategy.budget},
                        {"space_size", space_size},
                        {"candidates", candidates},
                        {"scored", trace.scored.size()},
                        {"proposals", trace.proposals},
                        {"repairs", trace.repairs},
                        {"top", nlohmann::json::array()}};
  for (const auto& s : top)
    out["top"].push_back({{"kernel", s.kernel},
                          {"score", s.score},
                          {"tflops", number(s.tflops)},
                          {"latency_ms", number(s.latency_ms)},
                          {"efficiency", number(s.efficiency)}});
  if (!ranges_recorded) {
    out["extrapolation"] = nullptr;  // unknown: the model records no training ranges
    return out;
  }
  out["extrapolation"] = nlohmann::json::array();
  for (const auto& e : extrapolation)
    out["extrapolation"].push_back(
        {{"field", e.field}, {"value", e.value}, {"min", e.range.min}, {"max", e.range.max}});
  return out;
}

std::string SurrogateResult::to_text() const {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s over '%s': %zu of %zu supporting configurations scored (%zu proposals, "
                "%zu repaired)\n",
                std::string(to_string(strategy.strategy)).c_str(), space.c_str(),
                trace.scored.size(), candidates, trace.proposals, trace.repairs);
  out += line;
  std::snprintf(line, sizeof line, "%-4s %-10s %-10s %s\n", "rank", "score", "tflops", "kernel");
  out += line;
  for (std::size_t i = 0; i < top.size(); ++i) {
    std::snprintf(line, sizeof line, "%-4zu %-10.4g %-10.4g %s\n", i + 1, top[i].score,
                  top[i].tflops, top[i].kernel.c_str());
    out += line;
  }
  if (!ranges_recorded)
    out += "extrapolation: unknown (the model records no training ranges; retrain it)\n";
  for (const auto& e : extrapolation) {
    std::snprintf(line, sizeof line,
                  "extrapolation: %s=%g is outside the training range [%g, %g]\n", e.field.c_str(),
                  e.value, e.range.min, e.range.max);
    out += line;
  }
  return out;
}

}  // namespace kselect::search
