#pragma once
// The baselines of an evaluation that no selector can be expected to beat, because measurement
// noise alone keeps them below 100% (docs/evaluation.md): the split-half oracle (one sweep's
// repeats against each other) and, given a second sweep, the replicate oracle with the
// selector's picks judged on that sweep.
#include "data/measurement.h"
#include "eval/evaluate.h"
#include "eval/problem_table.h"

namespace kselect::eval {

// Adds the baseline split_half_oracle over report.per_problem: a perfect selector that knows
// one half of every kernel's repeats (even- or odd-indexed, each half's `statistic`), judged on
// the other half, both ways averaged. Problems where some valid kernel has fewer than two
// repeats (imported data keeps none) are not covered; no baseline when none is.
void add_split_half_oracle(EvalReport& report, const ProblemTable& table,
                           data::TimeStatistic statistic);

// Adds the baselines replicate_oracle (each problem's best kernel here, judged on `replicate`
// against the replicate's own best) and model_on_replicate (the pick, judged the same way),
// over the problems and kernels the replicate has valid.
void add_replicate(EvalReport& report, const ProblemTable& replicate);

}  // namespace kselect::eval
