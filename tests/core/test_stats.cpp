#include "core/stats.h"

#include <cmath>

#include <gtest/gtest.h>

namespace kselect {

TEST(EvalPercentile, InterpolatesBetweenClosestRanks) {
  // Sorted 1..5: h = 4 * 0.1 = 0.4 -> 1 + 0.4 * (2 - 1).
  EXPECT_DOUBLE_EQ(percentile({5, 3, 1, 4, 2}, 10), 1.4);
  EXPECT_DOUBLE_EQ(percentile({5, 3, 1, 4, 2}, 50), 3.0);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4}, 95), 3.85);
  EXPECT_DOUBLE_EQ(percentile({7}, 10), 7.0);
  EXPECT_TRUE(std::isnan(percentile({}, 50)));
}

TEST(EvalSummary, MeanMinMaxAndPercentiles) {
  Summary s = summarize({0.8, 1.0, 0.9});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.mean, 0.9);
  EXPECT_DOUBLE_EQ(s.min, 0.8);
  EXPECT_DOUBLE_EQ(s.max, 1.0);
  EXPECT_DOUBLE_EQ(s.p50, 0.9);
  EXPECT_NEAR(s.p10, 0.82, 1e-12);
  EXPECT_EQ(summarize({}).count, 0);
}

TEST(EvalFit, R2AndRmseInTheGivenScale) {
  // actual mean 2; SS_tot = 2; residuals 0.5, 0, -0.5 -> SS_res = 0.5.
  Fit f = fit_quality({1.5, 2, 2.5}, {1, 2, 3});
  EXPECT_EQ(f.rows, 3);
  EXPECT_DOUBLE_EQ(f.r2, 0.75);
  EXPECT_DOUBLE_EQ(f.rmse, std::sqrt(0.5 / 3));
  EXPECT_TRUE(std::isnan(fit_quality({1, 1}, {2, 2}).r2));  // constant actual values
}

}  // namespace kselect
