// data::use_time_statistic: which statistic of the repeats is each row's time.
#include "data/measurement.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace kselect::data {
namespace {

Measurement timed(double median_ms, double min_ms, double tflops, double bandwidth) {
  Measurement m;
  m.valid = true;
  m.median_ms = median_ms, m.min_ms = min_ms;
  m.tflops = tflops, m.bandwidth_gb_s = bandwidth;
  return m;
}

TEST(TimeStatistic, MinMakesTheFastestRepeatTheTimeAndScalesThroughput) {
  std::vector<Measurement> rows = {timed(2.0, 1.6, 1.0, 10.0), timed(3.0, 0, 2.0, 20.0),
                                   timed(4.0, 2.0, 3.0, 30.0)};
  rows[2].valid = false;  // an invalid row keeps whatever it has
  use_time_statistic(rows, TimeStatistic::kMin);
  EXPECT_DOUBLE_EQ(rows[0].median_ms, 1.6);
  EXPECT_DOUBLE_EQ(rows[0].tflops, 1.25);
  EXPECT_DOUBLE_EQ(rows[0].bandwidth_gb_s, 12.5);
  EXPECT_DOUBLE_EQ(rows[1].median_ms, 3.0);  // no minimum (imported): unchanged
  EXPECT_DOUBLE_EQ(rows[1].tflops, 2.0);
  EXPECT_DOUBLE_EQ(rows[2].median_ms, 4.0);

  std::vector<Measurement> same = {timed(2.0, 1.6, 1.0, 10.0)};
  use_time_statistic(same, TimeStatistic::kMedian);
  EXPECT_DOUBLE_EQ(same[0].median_ms, 2.0);
  EXPECT_DOUBLE_EQ(same[0].tflops, 1.0);
}

TEST(TimeStatistic, ParsesItsTwoNamesAndRefusesOthers) {
  EXPECT_EQ(parse_time_statistic("min", "f"), TimeStatistic::kMin);
  EXPECT_EQ(parse_time_statistic("median", "f"), TimeStatistic::kMedian);
  EXPECT_EQ(to_string(TimeStatistic::kMin), "min");
  EXPECT_EQ(to_string(TimeStatistic::kMedian), "median");
  try {
    parse_time_statistic("mean", "time-statistic");
    FAIL() << "mean is not a time statistic";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("time-statistic"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kselect::data
