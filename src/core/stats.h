#pragma once
// Summary statistics used by evaluation reports. Percentiles interpolate linearly between the
// two nearest ranks (numpy's default, "type 7"), so numbers match CK's Python evaluation.
#include <vector>

namespace kselect {

// Percentile `p` in [0, 100] of `values` (any order): with the values sorted as x[0..n-1] and
// h = (n - 1) * p / 100, the result is x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor h]).
// NaN for an empty input.
double percentile(std::vector<double> values, double p);

// Mean, P10, P50, min and max of a sample; all NaN (count 0) when empty.
struct Summary {
  long count = 0;
  double mean, p10, p50, min, max;
};
Summary summarize(const std::vector<double>& values);

// Coefficient of determination 1 - SS_res / SS_tot and root mean squared error of `predicted`
// against `actual` (same length, same scale). R2 is NaN when fewer than two rows or when the
// actual values are constant; RMSE is NaN for no rows.
struct Fit {
  long rows = 0;
  double r2, rmse;
};
Fit fit_quality(const std::vector<double>& predicted, const std::vector<double>& actual);

}  // namespace kselect
