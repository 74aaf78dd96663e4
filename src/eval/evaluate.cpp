#include "eval/evaluate.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/hardware.h"
#include "eval/noise_ceilings.h"
#include "eval/problem_table.h"
#include "model/train.h"
#include "ops/operation.h"
#include "select/default_guard.h"

namespace kselect::eval {

namespace {

using data::Measurement;
using KernelPredictions = std::map<std::string, Prediction>;  // by kernel name
using PredictionTable = std::map<std::string, KernelPredictions>;

// A pair measured in several runs appears once per row in out-of-fold files, each time with
// the same features and fold model; repeats are averaged so any order gives the same result.
PredictionTable index_predictions(const std::vector<Prediction>& predictions) {
  PredictionTable table;
  std::map<std::pair<std::string, std::string>, int> repeats;
  for (const auto& p : predictions) {
    auto [it, fresh] = table[p.problem].emplace(p.kernel, p);
    int n = ++repeats[{p.problem, p.kernel}];
    if (fresh) continue;
    it->second.score += (p.score - it->second.score) / n;
    it->second.predicted += (p.predicted - it->second.predicted) / n;
    it->second.speed += (p.speed - it->second.speed) / n;
  }
  return table;
}

// Valid candidates, best predicted first: the shortlisted ones and the default (the model's
// candidates, as select::Ranker::shortlisted gives them), then the others, then unpredicted
// candidates; ties by kernel name.
std::vector<const Measurement*> rank_candidates(const KernelRows& rows,
                                                const KernelPredictions* predicted,
                                                const Measurement* fallback, long& missing) {
  struct Ranked {
    const Measurement* m;
    int tier;  // 0: a candidate of the model, 1: outside its shortlist, 2: no prediction
    double score;
  };
  std::vector<Ranked> ranked;
  for (const auto& [kernel, m] : rows) {
    const Prediction* p = nullptr;
    if (predicted)
      if (auto it = predicted->find(kernel); it != predicted->end()) p = &it->second;
    missing += p ? 0 : 1;
    const int tier = !p ? 2 : p->shortlisted || m == fallback ? 0 : 1;
    ranked.push_back({m, tier, p ? p->score : 0.0});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    return a.score > b.score;  // stable: equal scores keep kernel-name order
  });
  std::vector<const Measurement*> out;
  for (const auto& r : ranked) out.push_back(r.m);
  return out;
}

bool has_ci(const Measurement& m) {
  return m.ci_low_ms > 0 && m.ci_high_ms >= m.ci_low_ms;
}

// Measurement noise cannot separate a kernel from the oracle: its median is within `band` of
// the oracle's, or their confidence intervals overlap.
bool in_tie_band(const Measurement& m, const Measurement& best, double band) {
  if (&m == &best || m.median_ms <= (1.0 + band) * best.median_ms) return true;
  return has_ci(m) && has_ci(best) && m.ci_low_ms <= best.ci_high_ms &&
         best.ci_low_ms <= m.ci_high_ms;
}

const Measurement* default_pick(const KernelRows& rows, const std::vector<std::string>& set) {
  for (const auto& name : set)
    if (auto it = rows.find(name); it != rows.end()) return it->second;
  return nullptr;
}

// The no-model pick: the first default-set kernel, in the policy's order, measured valid.
const Measurement* default_of(const std::string& problem, const ProblemRows& rows,
                              const EvalOptions& options) {
  const std::vector<std::string>& defaults =
      options.default_order ? options.default_order(problem, options.default_kernels)
                            : options.default_kernels;
  return default_pick(rows.valid, defaults);
}

double speed_of(const Measurement& m, const KernelPredictions& predicted) {
  auto it = predicted.find(m.kernel);
  return it == predicted.end() ? std::nan("") : it->second.speed;
}

// The default guard on one problem's ranking: moves the default kernel to the front when the
// model's top pick is not predicted `margin` faster; returns whether it did.
bool guard_default(const select::DefaultGuard& guard, const Measurement* fallback,
                   const KernelPredictions* predicted, std::vector<const Measurement*>& ranked) {
  if (!fallback || !predicted) return false;
  return guard.reorder(
      ranked, [fallback](const Measurement* m) { return m == fallback; },
      [predicted](const Measurement* m) { return speed_of(*m, *predicted); });
}

ProblemResult score_problem(const std::string& problem, const ProblemRows& rows,
                            const std::vector<const Measurement*>& ranked, const Measurement& best,
                            const Measurement* fallback, const EvalOptions& options) {
  ProblemResult r;
  r.problem = problem;
  const Measurement& pick = *ranked.front();
  r.picked = pick.kernel;
  r.best = best.kernel;
  r.picked_tflops = pick.tflops;
  r.best_tflops = best.tflops;
  r.efficiency = pick.tflops / best.tflops;
  r.exact = pick.tflops >= best.tflops;
  r.picked_ms = pick.median_ms;
  r.best_ms = pick.median_ms;
  for (const auto& [kernel, m] : rows.valid) r.best_ms = std::min(r.best_ms, m->median_ms);
  r.regret = r.picked_ms / r.best_ms - 1.0;
  r.candidates = int(rows.valid.size());
  for (std::size_t i = 0; i < ranked.size() && r.hit_rank == 0; ++i)
    if (in_tie_band(*ranked[i], best, options.tie_band)) r.hit_rank = int(i) + 1;
  if (fallback) {
    r.default_kernel = fallback->kernel;
    r.default_ms = fallback->median_ms;
  }
  return r;
}

SliceStats slice_stats(const std::vector<const ProblemResult*>& results) {
  std::vector<double> eff;
  long hits = 0;
  for (const auto* r : results) {
    eff.push_back(r->efficiency);
    hits += r->hit_rank == 1;
  }
  Summary s = summarize(eff);
  return {s.count, s.mean, s.p10, s.min, double(hits) / double(std::max<long>(s.count, 1))};
}

RegretStats regret_stats(const std::vector<double>& regrets) {
  return {long(regrets.size()), percentile(regrets, 50), percentile(regrets, 95),
          regrets.empty() ? 0.0 : *std::max_element(regrets.begin(), regrets.end())};
}

double hit_rate(const std::vector<ProblemResult>& results, int k) {
  if (results.empty()) return 0;
  long hits = std::count_if(results.begin(), results.end(),
                            [k](const ProblemResult& r) { return r.hit_rank <= k; });
  return double(hits) / double(results.size());
}

void add_slices_and_strata(EvalReport& report, const ProblemTable& table) {
  std::map<std::string, std::map<std::string, std::vector<const ProblemResult*>>> slices;
  std::map<std::string, std::vector<double>> strata;
  for (const auto& r : report.per_problem) {
    const Operation* op = lookup_operation(table.at(r.problem).op);
    const ReportGroups groups =
        op ? op->report_groups(r.problem, r.picked, report.options.cores) : ReportGroups{};
    for (const auto& [slice, bucket] : groups.slices) slices[slice][bucket].push_back(&r);
    for (const auto& stratum : groups.strata) strata[stratum].push_back(r.regret);
  }
  for (const auto& [slice, buckets] : slices)
    for (const auto& [bucket, results] : buckets)
      report.slices[slice][bucket] = slice_stats(results);
  for (const auto& [stratum, regrets] : strata) report.regret[stratum] = regret_stats(regrets);
}

void add_default_counts(EvalReport& report) {
  for (const auto& r : report.per_problem) {
    if (r.default_kernel.empty())
      ++report.without_default;
    else if (r.picked_ms > (1.0 + report.options.default_tolerance) * r.default_ms)
      ++report.worse_than_default;
  }
}

// The default pick, the best kernel of the default set, and the single fixed kernel K that
// maximises total efficiency when run wherever valid, falling back to the default pick.
void add_baselines(EvalReport& report, const ProblemTable& table) {
  std::vector<double> fallback, set_best;
  std::map<std::string, double> gain;  // total efficiency of K above the fallback
  std::map<std::string, long> coverage;
  std::vector<std::string> set = report.options.default_kernels;
  std::sort(set.begin(), set.end());
  Baseline& set_oracle = report.baselines["default_set_oracle"];
  for (const auto& r : report.per_problem) {
    const KernelRows& rows = table.at(r.problem).valid;
    double fb = r.default_kernel.empty() ? 0.0 : rows.at(r.default_kernel)->tflops / r.best_tflops;
    fallback.push_back(fb);
    double best_in_set = -1;
    for (const auto& [kernel, m] : rows) {
      gain[kernel] += m->tflops / r.best_tflops - fb;
      ++coverage[kernel];
      if (std::binary_search(set.begin(), set.end(), kernel))
        best_in_set = std::max(best_in_set, m->tflops / r.best_tflops);
    }
    if (best_in_set >= 0) set_best.push_back(best_in_set);
  }
  set_oracle.coverage = long(set_best.size());
  set_oracle.efficiency = summarize(set_best);

  Baseline& def = report.baselines["default"];
  std::vector<double> def_eff;
  for (std::size_t i = 0; i < fallback.size(); ++i)
    if (!report.per_problem[i].default_kernel.empty()) def_eff.push_back(fallback[i]);
  def.coverage = long(def_eff.size());
  def.efficiency = summarize(def_eff);

  Baseline& single = report.baselines["single_best_kernel"];
  auto top = std::max_element(gain.begin(), gain.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top == gain.end()) return;
  single.kernel = top->first;
  single.coverage = coverage[top->first];
  std::vector<double> eff;
  for (std::size_t i = 0; i < fallback.size(); ++i) {
    const ProblemResult& r = report.per_problem[i];
    const KernelRows& rows = table.at(r.problem).valid;
    if (auto it = rows.find(single.kernel); it != rows.end())
      eff.push_back(it->second->tflops / r.best_tflops);
    else if (!r.default_kernel.empty())
      eff.push_back(fallback[i]);
  }
  single.efficiency = summarize(eff);
}

void add_fit(EvalReport& report, const ProblemTable& table, const PredictionTable& predictions) {
  std::vector<double> predicted, actual;
  for (const auto& [problem, kernels] : predictions) {
    auto rows = table.find(problem);
    for (const auto& [kernel, prediction] : kernels) {
      const Measurement* m = nullptr;
      if (rows != table.end())
        if (auto it = rows->second.valid.find(kernel); it != rows->second.valid.end())
          m = it->second;
      if (!m) {
        ++report.unmatched_predictions;
        continue;
      }
      if (!std::isfinite(prediction.predicted)) continue;  // a ranking score: no scale
      predicted.push_back(prediction.predicted);
      actual.push_back(model::target_value(*m, report.options.target));
    }
  }
  report.fit = fit_quality(predicted, actual);
}

void add_worst(EvalReport& report) {
  report.worst = report.per_problem;
  std::stable_sort(report.worst.begin(), report.worst.end(),
                   [](const auto& a, const auto& b) { return a.efficiency < b.efficiency; });
  if (report.worst.size() > std::size_t(report.options.top_worst))
    report.worst.resize(std::size_t(report.options.top_worst));
}

// A blend leaves the kernels beyond its survivors without a speed (the guard then lets the pick
// stand), so only predictions without any speed are refused.
void require_speeds(const std::vector<Prediction>& predictions) {
  if (std::all_of(predictions.begin(), predictions.end(),
                  [](const Prediction& p) { return std::isnan(p.speed); }))
    throw InputError("", 0, "default_margin",
                     "the predictions have no speeds (a ranking or classify model): the "
                     "default guard needs a regression or efficiency model");
}

void check_options(EvalOptions& options) {
  if (options.top_worst < 0) throw InputError("", 0, "top_worst", "must be >= 0");
  if (!(options.tie_band >= 0)) throw InputError("", 0, "tie_band", "must be >= 0");
  if (!(options.default_tolerance >= 0))
    throw InputError("", 0, "default_tolerance", "must be >= 0");
  check_hybrid_top(options.hybrid_top);
  auto& top = options.hybrid_top;
  std::erase(top, 0);
  std::sort(top.begin(), top.end());
  top.erase(std::unique(top.begin(), top.end()), top.end());
  if (options.cores <= 0) options.cores = host_hardware().physical_cores;
  const auto& targets = model::target_names();
  if (std::find(targets.begin(), targets.end(), options.target) == targets.end())
    throw InputError(
        "", 0, "target",
        "unknown target '" + options.target + "' (expected tflops, latency or bandwidth)");
}

}  // namespace

EvalReport evaluate(const std::vector<data::Measurement>& measurements,
                    const std::vector<Prediction>& predictions, const EvalOptions& options,
                    const std::vector<data::Measurement>* replicate) {
  EvalReport report;
  report.options = options;
  check_options(report.options);
  const select::DefaultGuard guard(report.options.default_margin);  // InputError when invalid
  if (guard.enabled()) require_speeds(predictions);
  ProblemTable table = index_measurements(measurements);
  PredictionTable predicted = index_predictions(predictions);
  Rankings rankings;  // the first max(hybrid_top) of each scored problem's ranking
  const std::size_t hybrid_k =
      report.options.hybrid_top.empty() ? 0 : std::size_t(report.options.hybrid_top.back());
  for (const auto& [problem, rows] : table) {
    const Measurement* best = oracle_of(rows.valid);
    if (!best || !(best->tflops > 0)) {
      ++report.skipped_no_oracle;
      continue;
    }
    auto it = predicted.find(problem);
    long missing = 0;
    const Measurement* fallback = default_of(problem, rows, report.options);
    auto ranked = rank_candidates(rows.valid, it == predicted.end() ? nullptr : &it->second,
                                  fallback, missing);
    if (missing == long(ranked.size())) {
      ++report.skipped_no_prediction;
      continue;
    }
    report.missing_predictions += missing;
    report.kept_default +=
        guard_default(guard, fallback, it == predicted.end() ? nullptr : &it->second, ranked);
    report.per_problem.push_back(
        score_problem(problem, rows, ranked, *best, fallback, report.options));
    if (hybrid_k > 0) {
      std::vector<std::string>& top = rankings[problem];
      for (std::size_t i = 0; i < std::min(hybrid_k, ranked.size()); ++i)
        top.push_back(ranked[i]->kernel);
    }
  }
  report.problems = long(report.per_problem.size());
  std::vector<double> eff;
  long exact = 0;
  for (const auto& r : report.per_problem) {
    eff.push_back(r.efficiency);
    exact += r.exact;
  }
  report.efficiency = summarize(eff);
  report.top1 = hit_rate(report.per_problem, 1);
  report.top3 = hit_rate(report.per_problem, 3);
  report.top5 = hit_rate(report.per_problem, 5);
  report.top10 = hit_rate(report.per_problem, 10);
  report.ndcg_at_1 = report.problems ? double(exact) / double(report.problems) : 0.0;
  add_fit(report, table, predicted);
  add_slices_and_strata(report, table);
  add_default_counts(report);
  add_baselines(report, table);
  add_split_half_baselines(report, table, rankings, report.options.hybrid_top,
                           report.options.time_statistic);
  if (replicate) add_replicate(report, index_measurements(*replicate));
  add_worst(report);
  return report;
}

}  // namespace kselect::eval
