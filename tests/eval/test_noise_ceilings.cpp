// The noise ceilings of an evaluation (eval/noise_ceilings.h) as evaluate() reports them.
#include "eval/noise_ceilings.h"

#include <gtest/gtest.h>

#include "eval_fixture.h"

namespace kselect::eval {
namespace {

using fixture::append;
using fixture::Data;
using fixture::ranking;
using fixture::row;

const std::string kP1 = "m=128,n=128,k=128,layout=rcr,dtype=fp32";
const std::string kP2 = "m=64,n=64,k=64,layout=rcr,dtype=fp32";

// A perfect selector that knows half of each kernel's repeats, judged on the other half.
TEST(NoiseCeilings, SplitHalfOracleIsTheMeasurementNoiseCeiling) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1";
  auto with_repeats = [](data::Measurement m, std::vector<double> repeats) {
    m.repeats_ms = std::move(repeats);
    return m;
  };
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
