#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace kselect {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  double h = double(values.size() - 1) * std::clamp(p, 0.0, 100.0) / 100.0;
  auto lo = std::size_t(std::floor(h));
  std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - double(lo)) * (values[hi] - values[lo]);
}

Summary summarize(const std::vector<double>& values) {
  Summary s{0, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (values.empty()) return s;
  s.count = long(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  s.p10 = percentile(values, 10);
  s.p50 = percentile(values, 50);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

Fit fit_quality(const std::vector<double>& predicted, const std::vector<double>& actual) {
  if (predicted.size() != actual.size())
    throw std::invalid_argument("fit_quality: predicted and actual differ in length");
  Fit f{long(actual.size()), kNaN, kNaN};
  if (actual.empty()) return f;
  double mean = std::accumulate(actual.begin(), actual.end(), 0.0) / double(actual.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    ss_res += (predicted[i] - actual[i]) * (predicted[i] - actual[i]);
    ss_tot += (actual[i] - mean) * (actual[i] - mean);
  }
  f.rmse = std::sqrt(ss_res / double(actual.size()));
  if (actual.size() >= 2 && ss_tot > 0) f.r2 = 1.0 - ss_res / ss_tot;
  return f;
}

}  // namespace kselect
