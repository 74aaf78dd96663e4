#include "select/default_guard.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/feature_spec.h"

namespace kselect::select {
namespace {

const double kNaN = std::nan("");

Scored scored(const std::string& kernel, double speed) {
  Scored s;
  s.kernel = kernel;
  s.speed = speed;
  return s;
}

std::vector<std::string> kernels_of(const std::vector<Scored>& ranked) {
  std::vector<std::string> out;
  for (const auto& s : ranked) out.push_back(s.kernel);
  return out;
}

TEST(DefaultGuard, KeepsTheDefaultUnlessThePickIsPredictedMarginFaster) {
  DefaultGuard guard(0.05);
  EXPECT_TRUE(guard.enabled());
  EXPECT_TRUE(guard.keeps_default(1.04, 1.0));
  EXPECT_FALSE(guard.keeps_default(1.05, 1.0));  // exactly the margin displaces the default
  EXPECT_FALSE(guard.keeps_default(2.0, 1.0));
  EXPECT_FALSE(guard.keeps_default(kNaN, 1.0));  // unknown speeds: the model's pick stands
  EXPECT_FALSE(guard.keeps_default(1.0, kNaN));
}

TEST(DefaultGuard, OffByDefaultAndAtZero) {
  EXPECT_FALSE(DefaultGuard().enabled());
  EXPECT_FALSE(DefaultGuard(0).keeps_default(1.0, 1.0));
}

TEST(DefaultGuard, RefusesNegativeAndNonFiniteMargins) {
  EXPECT_THROW(DefaultGuard(-0.01), InputError);
  EXPECT_THROW(DefaultGuard{kNaN}, InputError);  // braces: (kNaN) would declare a variable
  EXPECT_THROW(DefaultGuard(std::numeric_limits<double>::infinity()), InputError);
}

TEST(DefaultGuard, MovesTheKeptDefaultToTheFrontAndKeepsTheRestInOrder) {
  std::vector<Scored> ranked = {scored("A", 1.04), scored("B", 1.02), scored("D", 1.0),
                                scored("C", 0.5)};
  EXPECT_TRUE(DefaultGuard(0.05).apply(ranked, "D"));
  EXPECT_EQ(kernels_of(ranked), (std::vector<std::string>{"D", "A", "B", "C"}));
}

TEST(DefaultGuard, LeavesAClearWinnerTheDefaultOnTopOrAMissingDefaultAlone) {
  const std::vector<Scored> clear = {scored("A", 1.2), scored("D", 1.0)};
  auto ranked = clear;
  EXPECT_FALSE(DefaultGuard(0.05).apply(ranked, "D"));
  EXPECT_EQ(kernels_of(ranked), kernels_of(clear));
  ranked = {scored("D", 1.0), scored("A", 0.9)};
  EXPECT_FALSE(DefaultGuard(0.05).apply(ranked, "D"));
  EXPECT_EQ(ranked.front().kernel, "D");
  ranked = {scored("A", 1.0), scored("B", 0.99)};
  EXPECT_FALSE(DefaultGuard(0.05).apply(ranked, "D"));
  EXPECT_EQ(ranked.front().kernel, "A");
}

TEST(DefaultGuard, RefusesRankingsWithoutSpeeds) {
  std::vector<Scored> ranked = {scored("A", kNaN), scored("D", kNaN)};
  EXPECT_THROW(DefaultGuard(0.05).apply(ranked, "D"), InputError);
  EXPECT_FALSE(DefaultGuard().apply(ranked, "D"));  // off: nothing to compare
}

TEST(PredictedSpeed, LargerIsFasterInEveryObjectiveWithAScale) {
  EXPECT_DOUBLE_EQ(model::predicted_speed(model::Objective::kRegression, "tflops", 2.0), 2.0);
  EXPECT_DOUBLE_EQ(model::predicted_speed(model::Objective::kRegression, "bandwidth", 3.0), 3.0);
  EXPECT_DOUBLE_EQ(model::predicted_speed(model::Objective::kRegression, "latency", 4.0),
                   0.25);  // 1 / ms
  EXPECT_DOUBLE_EQ(model::predicted_speed(model::Objective::kEfficiency, "tflops", 0.9), 0.9);
  EXPECT_TRUE(std::isnan(model::predicted_speed(model::Objective::kRanking, "tflops", 3.0)));
  EXPECT_TRUE(std::isnan(model::predicted_speed(model::Objective::kClassify, "tflops", 0.7)));
}

}  // namespace
}  // namespace kselect::select
