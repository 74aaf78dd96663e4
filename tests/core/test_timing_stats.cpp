#include "core/timing_stats.h"

#include <gtest/gtest.h>

namespace kselect {
namespace {

TEST(Stats, TenSamplesByHand) {
  // Sorted: 1..10. Median 5.5; mean 5.5; sum of squared deviations 82.5, /9 -> stddev.
  // P(Binomial(10, 1/2) <= 1) = 11/1024 <= 2.5% < P(<= 2) = 56/1024, so the median's 95%
  // interval is [x(2), x(9)] = [2, 9].
  TimeStats s = compute_stats({5, 1, 4, 2, 3, 10, 9, 8, 7, 6});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.stddev, 3.0276503540974917, 1e-12);
  EXPECT_DOUBLE_EQ(s.ci_low, 2);
  EXPECT_DOUBLE_EQ(s.ci_high, 9);
}

TEST(Stats, OddCountAndSmallSamples) {
  TimeStats s = compute_stats({3, 1, 2});
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.stddev, 1);
  // n <= 5: no order-statistic interval reaches 95%; the whole range is reported.
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 3);
  TimeStats one = compute_stats({4});
  EXPECT_DOUBLE_EQ(one.median, 4);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  TimeStats none = compute_stats({});
  EXPECT_DOUBLE_EQ(none.median, 0);
}

TEST(Stats, MedianIntervalRanks) {
  EXPECT_EQ(median_ci_rank(5), 1);  // 1/32 > 2.5%
  EXPECT_EQ(median_ci_rank(6), 1);  // 1/64 <= 2.5% but 7/64 is not: rank 1
  EXPECT_EQ(median_ci_rank(8), 1);  // 9/256 > 2.5%
  EXPECT_EQ(median_ci_rank(9), 2);  // 10/512 <= 2.5%
  EXPECT_EQ(median_ci_rank(10), 2);
  EXPECT_EQ(median_ci_rank(100), 40);  // P(B <= 39) = 1.76%, P(B <= 40) = 2.84%
}

}  // namespace
}  // namespace kselect
