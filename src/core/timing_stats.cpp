#include "core/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kselect {

int median_ci_rank(int n) {
  // Accumulate the Binomial(n, 1/2) distribution in log space so large n does not overflow.
  double cdf = 0;
  int rank = 1;
  for (int i = 0; i < n; ++i) {
    double log_pmf =
        std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0);
    cdf += std::exp(log_pmf);  // P(B <= i)
    if (cdf > 0.025) break;
    rank = i + 1;  // P(B <= rank - 1) <= 2.5%
  }
  return std::min(rank, (n + 1) / 2);
}

TimeStats compute_stats(std::vector<double> samples) {
  TimeStats s;
  const size_t n = samples.size();
  if (n == 0) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
  double squares = 0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(squares / double(n - 1)) : 0.0;
  int rank = median_ci_rank(int(n));
  s.ci_low = samples[rank - 1];
  s.ci_high = samples[n - rank];
  return s;
}

}  // namespace kselect
