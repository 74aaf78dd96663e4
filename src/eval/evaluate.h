#pragma once
// Offline evaluation of a kernel selector against measurements (docs/evaluation.md). Pure
// functions over in-memory data: the CLI loads measurements from the store and predictions from
// a model directory (out-of-fold file) or a ranker, then calls evaluate().
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/stats.h"
#include "data/measurement.h"

namespace kselect::eval {

struct Prediction {
  std::string problem;
  std::string kernel;
  double score = 0;  // higher is better: the selector picks the highest
  // The model's estimate in the target's own scale (TFLOPS, ms or GB/s, not log space) for
  // R2/RMSE; NaN when the model only ranks.
  double predicted = std::nan("");
  // The prediction as a speed (model::predicted_speed; larger is faster) for the default
  // guard; NaN when the model only ranks.
  double speed = std::nan("");
  // Whether the model's shortlist holds the kernel (FeatureSpec::shortlist; out of fold, the
  // fold's): kernels outside it rank after every shortlisted one and the problem's default.
  bool shortlisted = true;
};

struct EvalOptions {
  // The measured quantity R2/RMSE compare against: a model target name (tflops, latency,
  // bandwidth; see model::target_value).
  std::string target = "tflops";
  // The default rule set's kernels in set order: per problem the first one measured valid is
  // what kselect runs without a model.
  std::vector<std::string> default_kernels;
  // When set, orders default_kernels per problem (Operation::heuristic_order): the no-model
  // pick is then the first kernel in that order that is measured valid.
  std::function<std::vector<std::string>(const std::string& problem,
                                         const std::vector<std::string>& kernels)>
      default_order;
  int cores = 0;  // for the "fewer tiles than cores" stratum; 0: this machine's physical cores
  int top_worst = 10;
  double tie_band = 0.02;           // a pick within this relative time of the oracle is a hit
  double default_tolerance = 0.02;  // picks slower than the default by more are counted
  // The default guard (select::DefaultGuard): the default stays the pick unless the model
  // predicts its top candidate this much faster; 0: off. Needs predicted speeds.
  double default_margin = 0;
  // The statistic the rows' times were read with (data::use_time_statistic): the noise
  // ceiling (split_half_oracle) takes the same statistic of each half of the repeats.
  data::TimeStatistic time_statistic = data::TimeStatistic::kMedian;
  // The hybrid selector (a runtime that measures the model's top k candidates and keeps the
  // fastest): for each k here, the baseline hybrid_top<k>_split_half, judged as
  // split_half_oracle is (eval/noise_ceilings.h). 0 entries are ignored (none: off); negative
  // ones are an input error. evaluate() reports them sorted and without repeats.
  std::vector<int> hybrid_top = {3};
};

struct ProblemResult {
  std::string problem;
  std::string picked, best;
  std::string default_kernel;  // empty when no kernel of the default set is valid here
  double picked_tflops = 0, best_tflops = 0, efficiency = 0;
  double picked_ms = 0, best_ms = 0, regret = 0;  // best_ms: fastest valid median time
  double default_ms = 0;
  int candidates = 0;  // valid measured kernels of the problem
  int hit_rank = 0;    // 1-based predicted rank of the best-ranked kernel in the oracle's tie band
  bool exact = false;  // the pick reaches the oracle's TFLOPS (NDCG@1 relevance)
};

struct SliceStats {
  long problems = 0;
  double mean = 0, p10 = 0, min = 0, top1 = 0;
};

struct RegretStats {
  long problems = 0;
  double p50 = 0, p95 = 0, max = 0;
};

// A selection policy that needs no model, scored like the model.
struct Baseline {
  std::string kernel;  // single_best_kernel only
  long coverage = 0;   // problems where the policy's own kernel choice is valid
  Summary efficiency;
};

struct EvalReport {
  EvalOptions options;
  long problems = 0;
  long skipped_no_oracle = 0;      // no valid measurement with TFLOPS > 0
  long skipped_no_prediction = 0;  // no valid candidate has a prediction
  long missing_predictions = 0;    // valid candidates without a prediction (ranked last)
  long unmatched_predictions = 0;  // predictions that join no valid measurement
  Summary efficiency;
  double top1 = 0, top3 = 0, top5 = 0, top10 = 0, ndcg_at_1 = 0;
  Fit fit;
  std::map<std::string, RegretStats> regret;  // by stratum; "all" is the headline
  long worse_than_default = 0, without_default = 0;
  long kept_default = 0;  // problems where the default guard overruled the model's top pick
  std::map<std::string, std::map<std::string, SliceStats>> slices;
  // default, default_set_oracle, single_best_kernel, split_half_oracle, hybrid_top<k>_split_half
  // (and with a replicate replicate_oracle, model_on_replicate)
  std::map<std::string, Baseline> baselines;
  std::vector<ProblemResult> per_problem;  // sorted by problem text
  std::vector<ProblemResult> worst;        // lowest efficiency first
};

// Joins measurements and predictions by (problem, kernel) text and scores the selector. Invalid
// rows are never candidates. When a (problem, kernel) pair was measured more than once, the row
// with the highest run_id counts; repeated predictions of a pair are averaged. Throws
// InputError for an unknown target or bad options.
//
// `replicate`, when given, holds a second, independent sweep of the same problems (kselect eval
// --replicate): the report then adds the baselines replicate_oracle (each problem's best kernel
// here, judged on the replicate against the replicate's own best) and model_on_replicate (the
// selector's pick, judged the same way), over the problems and kernels the replicate has valid.
EvalReport evaluate(const std::vector<data::Measurement>& measurements,
                    const std::vector<Prediction>& predictions, const EvalOptions& options,
                    const std::vector<data::Measurement>* replicate = nullptr);

// The full report, keys as documented in docs/evaluation.md (fractions, not percent).
void to_json(nlohmann::json& j, const EvalReport& r);

}  // namespace kselect::eval
