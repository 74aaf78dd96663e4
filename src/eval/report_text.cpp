#include "eval/report_text.h"

#include "eval/text_table.h"

namespace kselect::eval {

namespace {

std::string headline(const EvalReport& r) {
  TextTable t({"metric", "value"});
  t.add({"efficiency mean", percent(r.efficiency.mean)});
  t.add({"efficiency p10", percent(r.efficiency.p10)});
  t.add({"efficiency p50", percent(r.efficiency.p50)});
  t.add({"efficiency min", percent(r.efficiency.min)});
  t.add({"top-1 hit (tie band)", percent(r.top1, 1)});
  t.add({"top-3 / top-5 / top-10 hit",
         percent(r.top3, 1) + " / " + percent(r.top5, 1) + " / " + percent(r.top10, 1)});
  t.add({"NDCG@1 (exact oracle)", percent(r.ndcg_at_1, 1)});
  const std::string& unit = r.options.target;
  t.add({"R2 (" + unit + ")", fixed(r.fit.r2)});
  t.add({"RMSE (" + unit + ")", fixed(r.fit.rmse)});
  if (auto it = r.regret.find("all"); it != r.regret.end())
    t.add({"regret p50 / p95 / max", percent(it->second.p50) + " / " + percent(it->second.p95) +
                                         " / " + percent(it->second.max)});
  t.add({"worse than default (>" + percent(r.options.default_tolerance, 0) + ")",
         std::to_string(r.worse_than_default) + " (target 0)"});
  if (r.options.default_margin > 0)
    t.add({"default guard (margin " + percent(r.options.default_margin, 1) + ")",
           "kept the default in " + std::to_string(r.kept_default) + " problems"});
  return t.str();
}

std::string baselines(const EvalReport& r) {
  TextTable t({"policy", "kernel", "coverage", "mean", "p10", "p50", "min"});
  t.add({"model", "", std::to_string(r.problems), percent(r.efficiency.mean),
         percent(r.efficiency.p10), percent(r.efficiency.p50), percent(r.efficiency.min)});
  for (const auto& [name, b] : r.baselines)
    t.add({name, b.kernel, std::to_string(b.coverage), percent(b.efficiency.mean),
           percent(b.efficiency.p10), percent(b.efficiency.p50), percent(b.efficiency.min)});
  return t.str();
}

std::string strata(const EvalReport& r) {
  TextTable t({"regret stratum", "problems", "p50", "p95", "max"});
  for (const auto& [name, s] : r.regret)
    t.add({name, std::to_string(s.problems), percent(s.p50), percent(s.p95), percent(s.max)});
  return t.str();
}

std::string slices(const EvalReport& r) {
  TextTable t({"slice", "bucket", "problems", "mean", "p10", "min", "top1"});
  for (const auto& [slice, buckets] : r.slices)
    for (const auto& [bucket, s] : buckets)
      t.add({slice, bucket, std::to_string(s.problems), percent(s.mean), percent(s.p10),
             percent(s.min), percent(s.top1, 1)});
  return t.str();
}

std::string worst(const EvalReport& r) {
  TextTable t({"worst problem", "efficiency", "picked", "best"});
  for (const auto& w : r.worst) t.add({w.problem, percent(w.efficiency), w.picked, w.best});
  return t.str();
}

}  // namespace

std::string format_report(const EvalReport& r) {
  std::string out = "evaluated " + std::to_string(r.problems) + " problems (target " +
                    r.options.target + "); skipped " + std::to_string(r.skipped_no_oracle) +
                    " without a valid oracle, " + std::to_string(r.skipped_no_prediction) +
                    " without predictions; " + std::to_string(r.missing_predictions) +
                    " candidates unpredicted, " + std::to_string(r.unmatched_predictions) +
                    " predictions unmatched\n\n";
  out += headline(r) + "\n" + baselines(r) + "\n" + strata(r) + "\n";
  if (!r.slices.empty()) out += slices(r) + "\n";
  if (!r.worst.empty()) out += worst(r);
  return out;
}

}  // namespace kselect::eval
