#include "search/tune.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <cmath>
#include <set>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "gemm_store.h"

namespace kselect::search {
namespace {

// Three parameters of eight values each (512 configurations): speed falls smoothly away from
// (5, 2, 6), and every configuration with a = 7 fails.
TuningTarget smooth_target() {
  std::map<std::string, nlohmann::json> configs;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 8; ++c)
        configs["a=" + std::to_string(a) + ",b=" + std::to_string(b) + ",c=" + std::to_string(c)] =
            {{"a", a}, {"b", b}, {"c", 1 << c}};
  TuningTarget t{"p=1", domain_of_configs(configs), {}, 0};
  for (std::size_t i = 0; i < t.domain.size(); ++i) {
    const auto& g = t.domain.genome(i);
    const double d = std::abs(g[0] - 5) + std::abs(g[1] - 2) + 0.5 * std::abs(g[2] - 6);
    t.speed.push_back(g[0] == 7 ? 0.0 : 1.0 / (1.0 + d * d));
  }
  t.optimum = 1.0;
  return t;
}

TuneOptions quick(std::size_t budget) {
  TuneOptions o;
  o.budget = budget;
  o.initial = 8;
  o.batch = 4;
  o.ensemble = 3;
  o.trees = 15;
  return o;
}

double best_after(const TuningTarget& t, const std::vector<std::size_t>& order, std::size_t n) {
  double best = 0;
  for (std::size_t i = 0; i < std::min(n, order.size()); ++i)
    best = std::max(best, t.speed[order[i]]);
  return best / t.optimum;
}

TEST(Tune, EveryStrategyMeasuresDistinctConfigurationsDeterministically) {
  const TuningTarget t = smooth_target();
  const Prior prior{{"dev=x"}, {{t.domain.name(0), {-1.0}}}};
  for (const std::string strategy :
       {"random", "de", "annealing", "genetic", "model", "model-prior"}) {
    const auto a = tuning_run(t, strategy, &prior, quick(40), 3);
    EXPECT_EQ(a.size(), 40u) << strategy;
    EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), a.size()) << strategy;
    EXPECT_EQ(tuning_run(t, strategy, &prior, quick(40), 3), a) << strategy;
  }
}

// On a smooth landscape the model-guided loop finds more of the optimum in 40 measurements
// than 40 random draws, over five seeds.
TEST(Tune, ModelGuidedBeatsRandomDrawsOnASmoothLandscape) {
  const TuningTarget t = smooth_target();
  double model = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    model += best_after(t, tuning_run(t, "model", nullptr, quick(40), seed), 40);
    random += best_after(t, tuning_run(t, "random", nullptr, quick(40), seed), 40);
  }
  EXPECT_GT(model, random);
  EXPECT_GT(model / 5, 0.9);
}

// A prior that knows the landscape puts the optimum first.
TEST(Tune, APerfectPriorMeasuresTheOptimumFirst) {
  const TuningTarget t = smooth_target();
  Prior prior{{"dev=x"}, {}};
  for (std::size_t i = 0; i < t.domain.size(); ++i)
    prior.by_kernel[t.domain.name(i)] = {std::log(std::max(t.speed[i], 0.01))};
  const auto order = tuning_run(t, "model-prior", &prior, quick(20), 1);
  EXPECT_EQ(best_after(t, order, 1), 1.0);
  EXPECT_THROW(tuning_run(t, "model-prior", nullptr, quick(20), 1), InputError);
}

TEST(Tune, ThePriorIsTheLogRelativeSpeedOnEachOtherProblem) {
  RecordedData data;
  auto row = [&](const std::string& problem, const std::string& kernel, double ms) {
    data::Measurement m;
    m.problem = problem, m.kernel = kernel, m.valid = ms > 0, m.median_ms = ms;
    data.rows.push_back(m);
  };
  row("dev=a", "k1", 1.0), row("dev=a", "k2", 2.0), row("dev=a", "k3", -1);
  row("dev=b", "k1", 4.0), row("dev=b", "k2", 2.0);
  row("dev=c", "k1", 100.0);  // the problem being tuned: left out
  const Prior prior = relative_speed_prior(data, "dev=c");
  EXPECT_EQ(prior.problems, (std::vector<std::string>{"dev=a", "dev=b"}));
  EXPECT_EQ(prior.by_kernel.at("k1"), (std::vector<double>{0, std::log(0.5)}));
  EXPECT_EQ(prior.by_kernel.at("k2"), (std::vector<double>{std::log(0.5), 0}));
  ASSERT_EQ(prior.by_kernel.at("k3").size(), 2u);
  EXPECT_NEAR(prior.by_kernel.at("k3")[0], std::log(kFailedRelativeSpeed), 1e-12);
  EXPECT_TRUE(std::isnan(prior.by_kernel.at("k3")[1]));  // dev=b never measured it
}

// The CPU backend's recorded sweep with a trained model as prior: the model's best kernels
// are measured first, so a few measurements find more of each problem's optimum than the
// same number without it.
TEST(Tune, AModelDirectoryIsAPriorForAGemmSweep) {
  const std::string db = kselect::testing::synthetic_gemm_store("tune_gemm");
  model::TrainOptions t = kselect::testing::quick_options("tune_gemm_model");
  t.targets = {"tflops"};
  t.folds = 0;
  t.boosting.trees = 20;
  model::train(kselect::testing::synthetic_measurements(), t);
  TuneOptions o = quick(6);
  o.seeds = 1;
  o.initial = 2;
  o.batch = 2;
  o.ensemble = 2;
  o.trees = 5;
  o.checkpoints = {1, 2};
  o.strategies = {"model"};
  const TuneReport report = tune_study(db, {t.out_dir.string()}, o);
  ASSERT_EQ(report.targets.size(), 84u);  // the synthetic grid's problems
  double with_prior = 0, without = 0;
  for (const auto& target : report.targets) {
    ASSERT_EQ(target.strategies.size(), 2u);
    EXPECT_EQ(target.strategies[1].strategy, "model-prior");
    without += target.strategies[0].mean_fraction.at(1) / 84;
    with_prior += target.strategies[1].mean_fraction.at(1) / 84;
  }
  EXPECT_GT(with_prior, without);
  EXPECT_GT(with_prior, 0.9);
}

// Expected improvement stops a model-guided run once the landscape is mapped: well before a
// large budget on the smooth landscape, with its best still near the optimum; without
// min_gain the run spends the budget.
TEST(Tune, MinGainStopsAModelGuidedRunBeforeTheBudget) {
  const TuningTarget t = smooth_target();
  TuneOptions o = quick(300);
  o.min_gain = 0.02;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    RecordedSource source(t);
    const TuningRun run = tuning_run(t, "model", nullptr, o, seed, source);
    EXPECT_TRUE(run.stopped) << seed;
    EXPECT_LT(run.measured.size(), 300u) << seed;
    EXPECT_GE(run.measured.size(), o.initial + o.batch) << seed;
    EXPECT_LT(run.expected_gain, o.min_gain) << seed;
    EXPECT_GT(best_after(t, run.measured, run.measured.size()), 0.9) << seed;
    ASSERT_EQ(run.speed.size(), run.measured.size());
    for (std::size_t i = 0; i < run.measured.size(); ++i)
      EXPECT_EQ(run.speed[i], t.speed[run.measured[i]]);
  }
  o.min_gain = 0;
  RecordedSource source(t);
  const TuningRun full = tuning_run(t, "model", nullptr, o, 1, source);
  EXPECT_FALSE(full.stopped);
  EXPECT_EQ(full.measured.size(), 300u);
  EXPECT_GE(full.expected_gain, 0);
}

// The study counts the measurements each run spent and the runs min_gain stopped.
TEST(Tune, TheStudyReportsMeasurementsSpentUnderMinGain) {
  const TuningTarget t = smooth_target();
  TuneOptions o = quick(300);
  o.seeds = 2;
  o.min_gain = 0.02;
  double spent = 0;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    RecordedSource source(t);
    spent += double(tuning_run(t, "model", nullptr, o, seed, source).measured.size()) / 2;
  }
  EXPECT_LT(spent, 300);
  EXPECT_GT(spent, 0);
}

TEST(Tune, TheStudyReportsEachStrategyOnTheA100Cache) {
  const std::string cache =
      std::string(KSELECT_SHARED_DATA_DIR) + "/kernel-tuner/convolution_milo_A100.json.gz";
  if (!std::filesystem::exists(cache)) GTEST_SKIP() << "shared data not present: " << cache;
  TuneOptions o = quick(30);
  o.seeds = 2;
  o.strategies = {"random", "de"};
  const TuneReport report = tune_study(cache, {}, o);
  ASSERT_EQ(report.targets.size(), 1u);
  const TargetOutcome& t = report.targets[0];
  EXPECT_EQ(t.configurations, 4362u);
  EXPECT_EQ(t.within_target, 1u);
  ASSERT_EQ(t.strategies.size(), 2u);
  for (const auto& s : t.strategies) {
    ASSERT_EQ(s.mean_fraction.count(25), 1u) << s.strategy;
    EXPECT_EQ(s.mean_fraction.count(50), 0u);  // beyond the budget
    EXPECT_GT(s.mean_fraction.at(25), 0);
    EXPECT_LE(s.mean_fraction.at(25), s.mean_final_fraction);
    EXPECT_LE(s.mean_final_fraction, 1.0);
    // The share of seeds at 95% can only grow with more measurements, up to the budget's.
    EXPECT_LE(s.fraction_seeds_ge_target_after.at(25), s.fraction_seeds_ge_target);
  }
  EXPECT_EQ(tune_study(cache, {}, o).to_json(), report.to_json());
  o.strategies = {"hill-climbing"};
  EXPECT_THROW(tune_study(cache, {}, o), InputError);
}

}  // namespace
}  // namespace kselect::search
