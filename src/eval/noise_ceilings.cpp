#include "eval/noise_ceilings.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
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

// Every valid kernel's two half times, by kernel name; empty when some valid kernel has fewer
// than two repeats (the problem is not covered).
using Halves = std::map<std::string, std::pair<double, double>>;

Halves split_halves(const KernelRows& valid, data::TimeStatistic statistic) {
  Halves halves;
  for (const auto& [kernel, m] : valid) {
    if (m->repeats_ms.size() < 2) return {};
    halves[kernel] = half_times(*m, statistic);
  }
  return halves;
}

// The one split-half judgement: keep the candidate (valid kernels, not empty) fastest by the
// known half, ties to the earlier candidate; its efficiency is the fastest valid kernel's time
// in the other half over its own time there. Both halves known in turn, averaged.
double split_half_choice(const Halves& halves, const std::vector<std::string>& candidates) {
  auto judged = [&](bool known_is_even) {
    auto known = [&](const std::pair<double, double>& h) {
      return known_is_even ? h.first : h.second;
    };
    auto judge = [&](const std::pair<double, double>& h) {
      return known_is_even ? h.second : h.first;
    };
    const std::pair<double, double>* pick = &halves.at(candidates.front());
    for (const auto& kernel : candidates)
      if (const auto& h = halves.at(kernel); known(h) < known(*pick)) pick = &h;
    double best_ms = std::numeric_limits<double>::infinity();
    for (const auto& [kernel, h] : halves) best_ms = std::min(best_ms, judge(h));
    return best_ms / judge(*pick);
  };
  return 0.5 * (judged(true) + judged(false));
}

}  // namespace

void check_hybrid_top(const std::vector<int>& hybrid_top) {
  for (int k : hybrid_top)
    if (k < 0)
      throw InputError(
          "", 0, "hybrid-top",
          "must be >= 0 (the model's top k candidates measured; 0: off), not " + std::to_string(k));
}

std::string hybrid_baseline_name(int k) {
  return "hybrid_top" + std::to_string(k) + "_split_half";
}

// The measurement-noise ceiling is the choice among every valid kernel: a perfect selector that
// knows one half of the repeats, judged on the other half. Noise alone keeps it below 100%, so a
// model cannot be expected to beat it on this data. Each half holds half the repeats, so it is a
// little below what the full medians allow. The hybrid selector (measure the model's top k, keep
// the fastest) is the same choice among those k, judged alike, so the two compare directly.
void add_split_half_baselines(EvalReport& report, const ProblemTable& table,
                              const Rankings& rankings, const std::vector<int>& hybrid_top,
                              data::TimeStatistic statistic) {
  std::map<std::string, std::vector<double>> eff;  // by baseline name
  for (const auto& r : report.per_problem) {
    const Halves halves = split_halves(table.at(r.problem).valid, statistic);
    if (halves.empty()) continue;
    std::vector<std::string> every;
    for (const auto& [kernel, h] : halves) every.push_back(kernel);
    eff["split_half_oracle"].push_back(split_half_choice(halves, every));
    auto ranked = rankings.find(r.problem);
    if (ranked == rankings.end()) continue;
    for (int k : hybrid_top) {
      if (k <= 0 || ranked->second.empty()) continue;
      const auto& list = ranked->second;
      const auto n = std::ptrdiff_t(std::min(std::size_t(k), list.size()));
      std::vector<std::string> top(list.begin(), list.begin() + n);
      eff[hybrid_baseline_name(k)].push_back(split_half_choice(halves, top));
    }
  }
  for (const auto& [name, values] : eff) {
    Baseline& b = report.baselines[name];
    b.coverage = long(values.size());
    b.efficiency = summarize(values);
  }
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
