#include "search/live.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"

namespace kselect::search {
namespace {

// A small fp32 GEMM measured for real on the `tests` set's kernels that support it.
LiveTuneOptions small_gemm(const std::string& strategy, std::size_t budget) {
  LiveTuneOptions o;
  o.op = "gemm";
  o.problem = "m=48,n=64,k=96,dtype=fp32,layout=rcr";
  o.space = "tests";
  o.strategy = strategy;
  o.tune.budget = budget;
  o.tune.initial = 3;
  o.tune.batch = 2;
  o.tune.ensemble = 2;
  o.tune.trees = 5;
  o.measure.repeats = 1;
  return o;
}

TEST(LiveTune, MeasuresDistinctSupportingKernelsAndJudgesThemAgainstAllOfThem) {
  LiveTuneOptions o = small_gemm("model", 7);
  o.exhaustive = true;
  const LiveTuneResult r = live_tune(o);
  EXPECT_EQ(r.problem, "m=48,n=64,k=96,layout=rcr,dtype=fp32");
  EXPECT_GT(r.candidates, 7u);
  EXPECT_LE(r.candidates, r.space_size);
  ASSERT_EQ(r.measured.size(), 7u);
  EXPECT_EQ(r.measured.size() + r.rest.size(), r.candidates);
  std::set<std::string> kernels;
  for (const auto& m : r.measured) kernels.insert(m.kernel);
  for (const auto& m : r.rest) kernels.insert(m.kernel);
  EXPECT_EQ(kernels.size(), r.candidates);  // every supporting kernel exactly once
  for (const auto& m : r.measured) EXPECT_GE(r.best_ms(), 0) << m.kernel;
  ASSERT_GT(r.best_ms(), 0);
  EXPECT_LE(r.exhaustive_best_ms, r.best_ms());
  // The exhaustive best is among the run's or the rest's measurements.
  EXPECT_TRUE(kernels.count(r.exhaustive_best_kernel));
  if (r.exhaustive_best_ms >= 0.99 * r.best_ms()) EXPECT_GE(r.measurements_to_99, 1u);
  if (r.measurements_to_99) EXPECT_LE(r.measurements_to_95, r.measurements_to_99);
  const auto j = r.to_json();
  EXPECT_EQ(j["measured"].size(), 7u);
  EXPECT_EQ(j["exhaustive"]["measured"], r.candidates);
  EXPECT_LE(j["exhaustive"]["fraction_of_best"].get<double>(), 1.0);
  EXPECT_NE(r.to_text().find("exhaustive best"), std::string::npos);
}

TEST(LiveTune, AModelIsAPriorAndItsBestIsMeasuredFirst) {
  model::TrainOptions t = kselect::testing::quick_options("live_tune_model");
  t.targets = {"tflops"};
  t.folds = 0;
  t.boosting.trees = 20;
  model::train(kselect::testing::synthetic_measurements(), t);
  LiveTuneOptions o = small_gemm("model-prior", 4);
  o.priors = {t.out_dir.string()};
  const LiveTuneResult r = live_tune(o);
  ASSERT_EQ(r.measured.size(), 4u);
  o.strategy = "model";
  o.priors.clear();
  EXPECT_EQ(live_tune(o).measured.size(), 4u);
}

TEST(LiveTune, BadInputNamesTheField) {
  auto field_of = [](const LiveTuneOptions& o) {
    try {
      live_tune(o);
    } catch (const InputError& e) {
      const std::string what = e.what();
      const auto begin = what.find("field '");
      if (begin == std::string::npos) return what;
      return what.substr(begin + 7, what.find('\'', begin + 7) - begin - 7);
    }
    return std::string("none");
  };
  EXPECT_EQ(field_of(small_gemm("hill-climbing", 4)), "strategy");
  EXPECT_EQ(field_of(small_gemm("model-prior", 4)), "prior");
  LiveTuneOptions o = small_gemm("random", 4);
  o.space = "no-such-set";
  EXPECT_THROW(live_tune(o), InputError);
  o = small_gemm("random", 4);
  o.problem = "m=48,n=64";
  EXPECT_THROW(live_tune(o), InputError);
  o = small_gemm("random", 0);
  EXPECT_EQ(field_of(o), "budget");
}

}  // namespace
}  // namespace kselect::search
