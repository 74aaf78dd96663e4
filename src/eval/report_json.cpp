// JSON form of an evaluation report; the keys are a contract with scripts and with
// `kselect compare` (docs/evaluation.md).
#include <nlohmann/json.hpp>

#include "eval/evaluate.h"

namespace kselect::eval {

namespace {
using nlohmann::json;

json summary_json(const Summary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"p10", s.p10},
          {"p50", s.p50},     {"min", s.min},   {"max", s.max}};
}

json regret_json(const RegretStats& s) {
  return {{"problems", s.problems}, {"p50", s.p50}, {"p95", s.p95}, {"max", s.max}};
}

json problem_json(const ProblemResult& r) {
  return {{"problem", r.problem},
          {"efficiency", r.efficiency},
          {"picked", r.picked},
          {"best", r.best},
          {"picked_tflops", r.picked_tflops},
          {"best_tflops", r.best_tflops},
          {"picked_ms", r.picked_ms},
          {"best_ms", r.best_ms},
          {"regret", r.regret},
          {"hit_rank", r.hit_rank},
          {"exact", r.exact},
          {"candidates", r.candidates},
          {"default", r.default_kernel},
          {"default_ms", r.default_ms}};
}

json options_json(const EvalOptions& o) {
  return {{"tie_band", o.tie_band},
          {"default_tolerance", o.default_tolerance},
          {"cores", o.cores},
          {"top_worst", o.top_worst},
          {"time_statistic", data::to_string(o.time_statistic)},
          {"hybrid_top", o.hybrid_top},
          {"default_kernels", o.default_kernels.size()}};
}
}  // namespace

void to_json(nlohmann::json& j, const EvalReport& r) {
  j = json::object();
  j["target"] = r.options.target;
  j["options"] = options_json(r.options);
  j["problems"] = r.problems;
  j["skipped"] = {{"no_oracle", r.skipped_no_oracle}, {"no_prediction", r.skipped_no_prediction}};
  j["missing_predictions"] = r.missing_predictions;
  j["unmatched_predictions"] = r.unmatched_predictions;
  j["efficiency"] = summary_json(r.efficiency);
  for (auto [key, value] : {std::pair{"top1", r.top1},
                            {"top3", r.top3},
                            {"top5", r.top5},
                            {"top10", r.top10},
                            {"ndcg_at_1", r.ndcg_at_1},
                            {"r2", r.fit.r2},
                            {"rmse", r.fit.rmse}})
    j[key] = value;
  j["fit_rows"] = r.fit.rows;
  RegretStats all = r.regret.count("all") ? r.regret.at("all") : RegretStats{};
  j["regret"] = regret_json(all);
  for (const auto& [stratum, stats] : r.regret) j["regret"]["strata"][stratum] = regret_json(stats);
  j["worse_than_default"] = r.worse_than_default;
  j["without_default"] = r.without_default;
  j["default_margin"] = r.options.default_margin;
  j["kept_default"] = r.kept_default;
  j["slices"] = json::object();
  for (const auto& [slice, buckets] : r.slices)
    for (const auto& [bucket, s] : buckets)
      j["slices"][slice][bucket] = {{"problems", s.problems},
                                    {"mean", s.mean},
                                    {"p10", s.p10},
                                    {"min", s.min},
                                    {"top1", s.top1}};
  for (const auto& [name, b] : r.baselines)
    j["baselines"][name] = {
        {"kernel", b.kernel}, {"coverage", b.coverage}, {"efficiency", summary_json(b.efficiency)}};
  j["worst"] = json::array();
  for (const auto& w : r.worst)
    j["worst"].push_back({{"problem", w.problem},
                          {"efficiency", w.efficiency},
                          {"picked", w.picked},
                          {"best", w.best}});
  j["per_problem"] = json::array();
  for (const auto& p : r.per_problem) j["per_problem"].push_back(problem_json(p));
}

}  // namespace kselect::eval
