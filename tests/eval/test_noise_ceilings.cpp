// The noise ceilings of an evaluation (eval/noise_ceilings.h) as evaluate() reports them.
#include "eval/noise_ceilings.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "eval_fixture.h"

namespace kselect::eval {
namespace {

using fixture::append;
using fixture::Data;
using fixture::ranking;
using fixture::row;

const std::string kP1 = "m=128,n=128,k=128,layout=rcr,dtype=fp32";
const std::string kP2 = "m=64,n=64,k=64,layout=rcr,dtype=fp32";

// A row with its timed repeats, which the split-half baselines divide into even and odd ones.
data::Measurement with_repeats(data::Measurement m, std::vector<double> repeats) {
  m.repeats_ms = std::move(repeats);
  return m;
}

// A perfect selector that knows half of each kernel's repeats, judged on the other half.
TEST(NoiseCeilings, SplitHalfOracleIsTheMeasurementNoiseCeiling) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1";
  d.rows = {with_repeats(row(p1, "A", 1.1), {1.0, 1.2, 1.0, 1.2}),
            with_repeats(row(p1, "B", 1.1), {1.1, 1.1, 1.1, 1.1}),
            with_repeats(row(p2, "A", 1.0), {1.0, 1.0, 1.0}),
            with_repeats(row(p2, "B", 2.0), {2.0, 2.1, 1.9}),
            with_repeats(row(p3, "A", 1.0), {1.0, 1.0}),
            with_repeats(row(p3, "B", 2.0), {2.0})};  // one repeat: p3 is not covered
  for (const auto& p : {p1, p2, p3}) append(d.predictions, ranking(p, {"A", "B"}));
  EvalReport r = d.run();
  const Baseline& ceiling = r.baselines.at("split_half_oracle");
  EXPECT_EQ(ceiling.coverage, 2);
  // p1: the even half picks A (1.0 < 1.1), which the odd half times at 1.2 against B's 1.1; the
  // odd half picks B (1.1 < 1.2), which the even half times at 1.1 against A's 1.0. p2: 1.
  const double p1_ceiling = 0.5 * (1.1 / 1.2 + 1.0 / 1.1);
  EXPECT_NEAR(ceiling.efficiency.mean, 0.5 * (p1_ceiling + 1.0), 1e-12);
  EXPECT_NEAR(ceiling.efficiency.min, p1_ceiling, 1e-12);
  EXPECT_EQ(ceiling.kernel, "");

  // The statistic decides. A's halves {1.0, 1.3} / {1.2, 1.3} against B's 1.1: by medians
  // (1.15 / 1.25) B wins both halves and p1 scores 1; by minima (1.0 / 1.2) the even half picks
  // A, timed 1.2 by the odd half against B's 1.1, and the odd half picks B, timed 1.1 by the
  // even half against A's 1.0.
  d.rows[0] = with_repeats(row(p1, "A", 1.1), {1.0, 1.2, 1.3, 1.3});
  EXPECT_NEAR(d.run().baselines.at("split_half_oracle").efficiency.mean, 1.0, 1e-12);
  EvalOptions min_options = fixture::options_with_cores(2);
  min_options.time_statistic = data::TimeStatistic::kMin;
  const Baseline& by_min = d.run(min_options).baselines.at("split_half_oracle");
  EXPECT_NEAR(by_min.efficiency.min, p1_ceiling, 1e-12);
  EXPECT_NEAR(by_min.efficiency.mean, 0.5 * (p1_ceiling + 1.0), 1e-12);

  Data no_repeats;  // imported data keeps no repeats: no ceiling is claimed
  no_repeats.add_pair(p1, 0.5);
  EXPECT_EQ(no_repeats.run().baselines.count("split_half_oracle"), 0u);
}

// The hybrid selector measures the model's top k and keeps the fastest by one half of the
// repeats, judged on the other half against every valid kernel, as the split-half oracle is.
TEST(NoiseCeilings, HybridTopKIsTheSplitHalfChoiceAmongTheModelsTopK) {
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1";
  Data d;
  // p1's halves (even / odd): A 1.0 / 1.4, B 1.2 / 1.2, C 1.5 / 1.1, D 2.0 / 2.0; the fastest
  // even half is A's 1.0, the fastest odd half C's 1.1. E is invalid: ranked first, never a
  // candidate.
  d.rows = {with_repeats(row(p1, "A", 1.2), {1.0, 1.4, 1.0, 1.4}),
            with_repeats(row(p1, "B", 1.2), {1.2, 1.2, 1.2, 1.2}),
            with_repeats(row(p1, "C", 1.3), {1.5, 1.1, 1.5, 1.1}),
            with_repeats(row(p1, "D", 2.0), {2.0, 2.0, 2.0, 2.0}),
            with_repeats(row(p1, "E", 0.5, /*valid=*/false), {0.5, 0.5}),
            // p2: the model's pick A is the fastest in both halves.
            with_repeats(row(p2, "A", 1.0), {1.0, 1.0}),
            with_repeats(row(p2, "B", 2.0), {2.0, 2.0}),
            // p3: B has one repeat, so no split-half baseline covers p3.
            with_repeats(row(p3, "A", 1.0), {1.0, 1.0}), with_repeats(row(p3, "B", 2.0), {2.0})};
  append(d.predictions, ranking(p1, {"E", "D", "C", "B", "A"}));
  append(d.predictions, ranking(p2, {"A", "B"}));
  append(d.predictions, ranking(p3, {"B", "A"}));
  EvalOptions options = fixture::options_with_cores(2);
  options.hybrid_top = {10, 2, 3, 0, 1, 4, 3};  // sorted, repeats and 0 dropped
  EvalReport r = d.run(options);
  EXPECT_EQ(r.options.hybrid_top, (std::vector<int>{1, 2, 3, 4, 10}));
  // k = 1: D both ways, timed 2.0 against the odd halves' 1.1 and the even halves' 1.0.
  const double k1 = 0.5 * (1.1 / 2.0 + 1.0 / 2.0);
  // k = 2 (D, C): C both ways; the odd half times it 1.1 (the best), the even half 1.5 (A 1.0).
  const double k2 = 0.5 * (1.0 + 1.0 / 1.5);
  // k = 3 (D, C, B): the even half keeps B (1.2), timed 1.2 by the odd half against 1.1; the odd
  // half keeps C, as with k = 2. Above the oracle on this problem: noise.
  const double k3 = 0.5 * (1.1 / 1.2 + 1.0 / 1.5);
  // k = 4, every valid kernel: the even half keeps A (1.0), timed 1.4 by the odd half.
  const double all = 0.5 * (1.1 / 1.4 + 1.0 / 1.5);
  const std::pair<int, double> expected[] = {{1, k1}, {2, k2}, {3, k3}, {4, all}, {10, all}};
  for (const auto& [k, p1_value] : expected) {
    const Baseline& b = r.baselines.at(hybrid_baseline_name(k));
    EXPECT_EQ(b.coverage, 2) << k;  // p1 and p2
    EXPECT_NEAR(b.efficiency.mean, 0.5 * (p1_value + 1.0), 1e-12) << k;
    EXPECT_NEAR(b.efficiency.min, p1_value, 1e-12) << k;
  }
  // Every valid kernel measured is the split-half oracle itself.
  const Baseline& oracle = r.baselines.at("split_half_oracle");
  EXPECT_EQ(oracle.coverage, 2);
  EXPECT_DOUBLE_EQ(oracle.efficiency.mean,
                   r.baselines.at("hybrid_top4_split_half").efficiency.mean);
  EXPECT_EQ(hybrid_baseline_name(3), "hybrid_top3_split_half");

  // The default is k = 3 alone; 0 turns it off; a negative k is refused, naming the option.
  EvalReport plain = d.run();
  EXPECT_EQ(plain.options.hybrid_top, std::vector<int>{3});
  EXPECT_NEAR(plain.baselines.at("hybrid_top3_split_half").efficiency.mean, 0.5 * (k3 + 1.0),
              1e-12);
  EXPECT_EQ(plain.baselines.count("hybrid_top1_split_half"), 0u);
  options.hybrid_top = {0};
  EvalReport off = d.run(options);
  for (const auto& [name, b] : off.baselines)
    EXPECT_EQ(name.rfind("hybrid_", 0), std::string::npos);
  EXPECT_EQ(off.baselines.count("split_half_oracle"), 1u);
  options.hybrid_top = {3, -1};
  try {
    d.run(options);
    FAIL() << "a negative k was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid-top"), std::string::npos) << e.what();
  }

  Data no_repeats;  // imported data keeps no repeats: nothing to judge by
  no_repeats.add_pair(p1, 0.5);
  EXPECT_EQ(no_repeats.run().baselines.count("hybrid_top3_split_half"), 0u);
}

// The hybrid measures the ranking the pick comes from, so the default guard's reordering too.
TEST(NoiseCeilings, HybridMeasuresTheGuardedRanking) {
  Data d;
  d.rows = {with_repeats(row(kP1, "A", 1.0), {1.0, 1.0}),
            with_repeats(row(kP1, "B", 2.0), {2.0, 2.0})};
  append(d.predictions, ranking(kP1, {"B", "A"}));
  d.predictions[0].speed = 1.02, d.predictions[1].speed = 1.0;  // B predicted 2% faster
  EvalOptions options = fixture::options_with_cores(2);
  options.hybrid_top = {1};
  EXPECT_NEAR(d.run(options).baselines.at("hybrid_top1_split_half").efficiency.mean, 0.5, 1e-12);
  // With A as the default kernel and a 5% guard, A stays first.
  options.default_kernels = {"A"};
  options.default_margin = 0.05;
  EvalReport guarded = d.run(options);
  ASSERT_EQ(guarded.kept_default, 1);
  EXPECT_NEAR(guarded.baselines.at("hybrid_top1_split_half").efficiency.mean, 1.0, 1e-12);
}

TEST(NoiseCeilings, ReplicateJudgesWinnersAndPicksOnASecondSweep) {
  Data d;
  d.add_pair(kP1, 0.25);                      // A wins (1 ms); the model picks B (1.25 ms)
  d.add_pair(kP2, 0.5, /*pick_slow=*/false);  // A wins and is picked
  const std::string kP3 = "m=32,n=32,k=32,layout=rcr,dtype=fp32";
  d.add_pair(kP3, 0.5);
  // The second sweep: on kP1 B is now the faster (0.8 ms against A's 1.0), on kP2 only C and A
  // are valid (C 1.6, A 2.0); kP3 was not measured again.
  std::vector<data::Measurement> replicate = {row(kP1, "A", 1.0), row(kP1, "B", 0.8),
                                              row(kP2, "A", 2.0), row(kP2, "C", 1.6)};
  replicate.push_back(row(kP2, "B", 1.0, /*valid=*/false));  // never the replicate's best
  EvalReport r = evaluate(d.rows, d.predictions, fixture::options_with_cores(2), &replicate);
  const Baseline& oracle = r.baselines.at("replicate_oracle");
  EXPECT_EQ(oracle.coverage, 2);  // kP3 has no second sweep
  EXPECT_NEAR(oracle.efficiency.mean, 0.5 * (0.8 / 1.0 + 1.6 / 2.0), 1e-12);
  const Baseline& model = r.baselines.at("model_on_replicate");
  EXPECT_EQ(model.coverage, 2);
  EXPECT_NEAR(model.efficiency.mean, 0.5 * (1.0 + 1.6 / 2.0), 1e-12);
  EXPECT_NEAR(model.efficiency.min, 0.8, 1e-12);
  // The report on the first sweep itself does not change.
  EvalReport plain = d.run();
  EXPECT_DOUBLE_EQ(r.efficiency.mean, plain.efficiency.mean);
  EXPECT_EQ(plain.baselines.count("replicate_oracle"), 0u);
  EXPECT_EQ(plain.baselines.count("model_on_replicate"), 0u);
  // A replicate without any of the problems adds nothing.
  std::vector<data::Measurement> unrelated = {row(kP3 + "x", "A", 1.0)};
  EXPECT_EQ(evaluate(d.rows, d.predictions, fixture::options_with_cores(2), &unrelated)
                .baselines.count("replicate_oracle"),
            0u);
}

}  // namespace
}  // namespace kselect::eval
