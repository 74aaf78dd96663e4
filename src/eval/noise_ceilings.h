#pragma once
// The baselines of an evaluation that no selector can be expected to beat, because measurement
// noise alone keeps them below 100% (docs/evaluation.md): the split-half oracle (one sweep's
// repeats against each other), the hybrid selector judged the same way (the model's top k
// measured on the spot, the fastest kept) and, given a second sweep, the replicate oracle with
// the selector's picks judged on that sweep.
#include <map>
#include <string>
#include <vector>

#include "data/measurement.h"
#include "eval/evaluate.h"
#include "eval/problem_table.h"

namespace kselect::eval {

// Each problem's ranking as evaluate() made it (best first; the pick is the front), by problem
// text. Only the first max(hybrid_top) kernels are needed.
using Rankings = std::map<std::string, std::vector<std::string>>;

// Adds the split-half baselines over report.per_problem, judged alike: a selector that knows one
// half of every candidate's repeats (even- or odd-indexed, each half's `statistic`) and keeps the
// fastest by it, timed by the other half against the fastest valid kernel of that half, both
// ways averaged.
//   split_half_oracle: every valid kernel is a candidate (the measurement-noise ceiling);
//   hybrid_top<k>_split_half, for each k > 0 of `hybrid_top`: the first k of the problem's
//     ranking in `rankings` (a runtime that measures the model's top k and keeps the fastest).
// Problems where some valid kernel has fewer than two repeats (imported data keeps none) are not
// covered; a baseline that covers no problem is not added.
void add_split_half_baselines(EvalReport& report, const ProblemTable& table,
                              const Rankings& rankings, const std::vector<int>& hybrid_top,
                              data::TimeStatistic statistic);

// Throws InputError naming --hybrid-top when some k is negative (0 is allowed: off). Called by
// evaluate(), and by run_eval() before a held-out model ranks anything.
void check_hybrid_top(const std::vector<int>& hybrid_top);

// The baseline name of the hybrid selector measuring the model's top k: hybrid_top<k>_split_half.
std::string hybrid_baseline_name(int k);

// Adds the baselines replicate_oracle (each problem's best kernel here, judged on `replicate`
// against the replicate's own best) and model_on_replicate (the pick, judged the same way),
// over the problems and kernels the replicate has valid.
void add_replicate(EvalReport& report, const ProblemTable& replicate);

}  // namespace kselect::eval
