#include "eval/noise_ceilings.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/stats.h"

namespace kselect::eval {

namespace {
// The statistic (median or minimum) of a measurement's even-indexed and odd-indexed repeats:
// two independent estimates of its time from the same sweep.
std::pair<double, double> half_times(const data::Measurement& m, data::TimeStatistic statistic) {
  std::vector<double> even, odd;
  for (std::size_t i = 0; i < m.repeats_ms.size(); ++i)
    (i % 2 == 0 ? even : odd).push_back(m.repeats_ms[i]);
  const double p = statistic == data::TimeStatistic::kMin ? 0 : 50;
  return {percentile(even, p), percentile(odd, p)};
}

}  // namespace

// The measurement-noise ceiling: a perfect selector that knows one half of every kernel's
// repeats, judged on the other half (and the other way round, averaged). Noise alone keeps it
// below 100%, so a model cannot be expected to beat it on this data. Each half holds half the
// repeats, so it is a little below what the full medians allow. Problems where some valid
// kernel has fewer than two repeats (imported data keeps none) are not covered.
void add_split_half_oracle(EvalReport& report, const ProblemTable& table,
                           data::TimeStatistic statistic) {
  std::vector<double> eff;
  for (const auto& r : report.per_problem) {
    std::map<std::string, std::pair<double, double>> halves;
    bool covered = true;
    for (const auto& [kernel, m] : table.at(r.problem).valid) {
      covered = covered && m->repeats_ms.size() >= 2;
      if (covered) halves[kernel] = half_times(*m, statistic);
    }
    if (!covered || halves.empty()) continue;
    // Efficiency of the pick by the `known` half, both timed by the other half.
    auto judged = [&](bool known_is_even) {
      const auto* pick = &halves.begin()->second;
      double best_ms = std::numeric_limits<double>::infinity();
      for (const auto& [kernel, h] : halves) {
        double known = known_is_even ? h.first : h.second;
        double pick_known = known_is_even ? pick->first : pick->second;
        if (known < pick_known) pick = &h;
        best_ms = std::min(best_ms, known_is_even ? h.second : h.first);
      }
      return best_ms / (known_is_even ? pick->second : pick->first);
    };
    eff.push_back(0.5 * (judged(true) + judged(false)));
  }
  if (eff.empty()) return;
  Baseline& b = report.baselines["split_half_oracle"];
  b.coverage = long(eff.size());
  b.efficiency = summarize(eff);
}

// What this database's winners and the selector's picks are worth on a second sweep of the same
// problems. The split-half ceiling only sees the noise between repeats taken in one process;
// a second sweep also sees what changes between processes (machine state, memory placement).
void add_replicate(EvalReport& report, const ProblemTable& replicate) {
  std::vector<double> oracle, model;
  for (const auto& r : report.per_problem) {
    auto rows = replicate.find(r.problem);
    if (rows == replicate.end()) continue;
    const data::Measurement* best = oracle_of(rows->second.valid);
    if (!best || !(best->tflops > 0)) continue;
    auto judge = [&](const std::string& kernel, std::vector<double>& out) {
      if (auto it = rows->second.valid.find(kernel); it != rows->second.valid.end())
        out.push_back(it->second->tflops / best->tflops);
    };
    judge(r.best, oracle);
    judge(r.picked, model);
  }
  for (const auto& [name, eff] :
       {std::pair{"replicate_oracle", &oracle}, std::pair{"model_on_replicate", &model}}) {
    if (eff->empty()) continue;
    Baseline& b = report.baselines[name];
    b.coverage = long(eff->size());
    b.efficiency = summarize(*eff);
  }
}

}  // namespace kselect::eval
