#pragma once
// Summary statistics of the repeat times of one measurement.
#include <vector>

namespace kselect {

struct TimeStats {
  double median = 0, min = 0, mean = 0, stddev = 0;  // stddev: sample (n - 1)
  double ci_low = 0, ci_high = 0;                    // 95% interval of the median
};

// Statistics of `samples` (any unit; the result uses the same unit). The interval of the
// median is distribution-free, from order statistics: with n sorted samples x(1..n), it is
// [x(l), x(n+1-l)] for the largest l with P(Binomial(n, 1/2) <= l-1) <= 2.5%, so it covers
// the true median with probability >= 95%. For n <= 5 no such l exists and the interval is
// [min, max]. Empty input gives all zeros.
TimeStats compute_stats(std::vector<double> samples);

// The rank l above (1-based); 1 when n <= 5.
int median_ci_rank(int n);

}  // namespace kselect
