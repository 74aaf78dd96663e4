#include "eval/evaluate.h"

#include <algorithm>
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "eval_fixture.h"
#include "ops/gemm/config.h"

namespace kselect::eval {
namespace {

using fixture::append;
using fixture::Data;
using fixture::ranking;
using fixture::row;

const std::string kP1 = "m=128,n=128,k=128,layout=rcr,dtype=fp32";
const std::string kP2 = "m=64,n=64,k=64,layout=rcr,dtype=fp32";

TEST(Evaluate, EfficiencyOfTheTopPredictedKernel) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 1.25), row(kP1, "C", 2.0), row(kP2, "A", 2.5),
            row(kP2, "B", 1.0)};
  append(d.predictions, ranking(kP1, {"B", "A", "C"}));
  append(d.predictions, ranking(kP2, {"B", "A"}));
  EvalReport r = d.run();
  ASSERT_EQ(r.problems, 2);
  EXPECT_DOUBLE_EQ(r.efficiency.mean, 0.9);
  EXPECT_DOUBLE_EQ(r.efficiency.min, 0.8);
  EXPECT_DOUBLE_EQ(r.efficiency.p50, 0.9);
  EXPECT_NEAR(r.efficiency.p10, 0.82, 1e-12);
  EXPECT_DOUBLE_EQ(r.top1, 0.5);  // kP1's pick is 25% slower: outside the tie band
  EXPECT_DOUBLE_EQ(r.top3, 1.0);
  EXPECT_DOUBLE_EQ(r.ndcg_at_1, 0.5);
  const ProblemResult& p1 = r.per_problem[0];  // sorted by text: "m=128" < "m=64"
  EXPECT_EQ(p1.problem, kP1);
  EXPECT_EQ(p1.picked, "B");
  EXPECT_EQ(p1.best, "A");
  EXPECT_EQ(p1.hit_rank, 2);
  EXPECT_DOUBLE_EQ(p1.regret, 0.25);
  EXPECT_EQ(p1.candidates, 3);
}

TEST(Evaluate, TieBandByTimeOrOverlappingIntervals) {
  const std::string within = "m=1,n=1,k=1", overlap = "m=2,n=1,k=1", apart = "m=3,n=1,k=1";
  Data d;
  d.rows = {row(within, "A", 1.0),  row(within, "B", 1.015),
            row(overlap, "A", 1.0), row(overlap, "B", 1.05, true, 0.05),
            row(apart, "A", 1.0),   row(apart, "B", 1.05)};
  for (const auto& p : {within, overlap, apart}) append(d.predictions, ranking(p, {"B", "A"}));
  EvalReport r = d.run();
  ASSERT_EQ(r.problems, 3);
  EXPECT_EQ(r.per_problem[0].hit_rank, 1);  // 1.5% slower: within 2%
  EXPECT_EQ(r.per_problem[1].hit_rank, 1);  // 5% slower, but [0.9975, 1.1025] meets [0.99, 1.01]
  EXPECT_EQ(r.per_problem[2].hit_rank, 2);  // 5% slower and the intervals are apart
  EXPECT_NEAR(r.top1, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.ndcg_at_1, 0.0);  // NDCG@1 needs the oracle itself
}

TEST(Evaluate, HitRatesCountTheOracleWithinTheTopK) {
  Data d;
  std::vector<std::string> kernels;
  for (int i = 0; i < 12; ++i) kernels.push_back("K" + std::to_string(100 + i));
  for (const auto& [problem, oracle_rank] : {std::pair{kP1, 4}, std::pair{kP2, 11}}) {
    std::vector<std::string> order = kernels;
    for (const auto& k : kernels)
      d.rows.push_back(row(problem, k, k == order[oracle_rank - 1] ? 1.0 : 2.0));
    append(d.predictions, ranking(problem, order));
  }
  EvalReport r = d.run();
  EXPECT_DOUBLE_EQ(r.top1, 0.0);
  EXPECT_DOUBLE_EQ(r.top3, 0.0);
  EXPECT_DOUBLE_EQ(r.top5, 0.5);
  EXPECT_DOUBLE_EQ(r.top10, 0.5);
}

TEST(Evaluate, SkipsProblemsWithoutAPositiveOracleAndNeverPicksInvalidKernels) {
  Data d;
  d.rows = {row("m=1,n=1,k=1", "A", 1.0, false), row("m=2,n=2,k=2", "A", 1.0), row(kP1, "A", 2.0),
            row(kP1, "BAD", 0.5, false)};
  d.rows[1].tflops = 0;  // valid but no throughput: no oracle
  for (const auto& p : {"m=1,n=1,k=1", "m=2,n=2,k=2"}) append(d.predictions, ranking(p, {"A"}));
  append(d.predictions, ranking(kP1, {"BAD", "A"}));
  EvalReport r = d.run();
  EXPECT_EQ(r.skipped_no_oracle, 2);
  ASSERT_EQ(r.problems, 1);
  EXPECT_EQ(r.per_problem[0].picked, "A");
  EXPECT_DOUBLE_EQ(r.efficiency.mean, 1.0);
}

TEST(Evaluate, JoinsByProblemAndKernelNotByRowOrder) {
  Data d;
  d.add_pair(kP1, 0.25);
  d.add_pair(kP2, 0.5, false);
  d.add_pair("m=300,n=7,k=9", 0.01);
  nlohmann::json expected = d.run();
  std::reverse(d.rows.begin(), d.rows.end());
  std::rotate(d.predictions.begin(), d.predictions.begin() + 3, d.predictions.end());
  EXPECT_EQ(nlohmann::json(d.run()).dump(), expected.dump());
}

TEST(Evaluate, LatestRunWinsForRepeatedMeasurements) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 2.0), row(kP1, "A", 3.0)};
  d.rows[2].run_id = 2;
  d.predictions = ranking(kP1, {"A", "B"});
  EvalReport r = d.run();
  EXPECT_EQ(r.per_problem[0].best, "B");
  EXPECT_NEAR(r.efficiency.mean, 2.0 / 3.0, 1e-12);
}

TEST(Evaluate, AveragesRepeatedPredictionsAndRejectsBadOptions) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 2.0)};
  // B: (12 + 6) / 2 = 9 > A's 8, so B is picked; its estimate for the fit is 9 against 5.
  d.predictions = {{kP1, "B", 12, 12}, {kP1, "A", 8, 10}, {kP1, "B", 6, 6}};
  EvalReport r = d.run();
  EXPECT_EQ(r.per_problem[0].picked, "B");
  EXPECT_EQ(r.fit.rows, 2);
  EXPECT_DOUBLE_EQ(r.fit.rmse, std::sqrt(16.0 / 2));
  EvalOptions bad = fixture::options_with_cores(2);
  bad.top_worst = -1;
  EXPECT_THROW(d.run(bad), InputError);
}

TEST(Evaluate, RegretPercentilesPerStratum) {
  Data d;
  d.add_pair("m=8,n=64,k=64", 1.0);             // m_le_16, not_divisible_by_16
  d.add_pair("m=64,n=64,k=4096", 0.5);          // large_k
  d.add_pair("m=128,n=100,k=64", 0.25);         // not_divisible_by_16
  d.add_pair("m=256,n=256,k=256", 1.0, false);  // picks the oracle: regret 0
  EvalReport r = d.run();
  const RegretStats& all = r.regret.at("all");
  EXPECT_EQ(all.problems, 4);
  EXPECT_DOUBLE_EQ(all.p50, 0.375);
  EXPECT_DOUBLE_EQ(all.p95, 0.925);  // h = 3 * 0.95 = 2.85 -> 0.5 + 0.85 * 0.5
  EXPECT_DOUBLE_EQ(all.max, 1.0);
  EXPECT_EQ(r.regret.at("m_le_16").problems, 1);
  EXPECT_EQ(r.regret.at("not_divisible_by_16").problems, 2);
  EXPECT_DOUBLE_EQ(r.regret.at("not_divisible_by_16").p50, 0.625);
  EXPECT_DOUBLE_EQ(r.regret.at("large_k").max, 0.5);
  EXPECT_EQ(r.regret.count("fewer_tiles_than_cores"), 0u);  // kernels are not GEMM names
}

std::string gemm_kernel(gemm::Pipeline pipeline, int tile_m, int tile_n) {
  gemm::GemmConfig c;
  c.pipeline = pipeline;
  c.tile_m = tile_m;
  c.tile_n = tile_n;
  return c.name();
}

TEST(Evaluate, FewerTilesThanCoresUsesThePickedKernelsTiles) {
  std::string k64 = gemm_kernel(gemm::Pipeline::kCompV4, 64, 64);
  Data d;
  for (const auto& p :
       {"m=64,n=64,k=64,layout=rcr,dtype=fp32", "m=256,n=256,k=64,layout=rcr,dtype=fp32"}) {
    d.rows.push_back(row(p, k64, 1.0));
    append(d.predictions, ranking(p, {k64}));
  }
  EvalReport r = d.run(fixture::options_with_cores(2));
  EXPECT_EQ(r.regret.at("fewer_tiles_than_cores").problems, 1);  // 1 tile; the other has 16
  EXPECT_EQ(d.run(fixture::options_with_cores(32)).regret.at("fewer_tiles_than_cores").problems, 2);
}

TEST(Evaluate, SlicesByShapeFamilyKRegimeLayoutDtypeAndPipeline) {
  std::string mem = gemm_kernel(gemm::Pipeline::kMem, 64, 64);
  std::string v4 = gemm_kernel(gemm::Pipeline::kCompV4, 64, 64);
  Data d;
  auto add = [&](const std::string& p, double efficiency, const std::string& pick) {
    std::string other = pick == mem ? v4 : mem;
    d.rows.push_back(row(p, pick, 1.0 / efficiency));
    d.rows.push_back(row(p, other, 1.0));
    append(d.predictions, ranking(p, {pick, other}));
  };
  add("m=4,n=64,k=256,layout=rcr,dtype=fp32", 1.0, mem);
  add("m=64,n=64,k=1024,layout=rcr,dtype=fp32", 0.5, mem);
  add("m=512,n=64,k=8192,layout=crr,dtype=bf16", 0.8, v4);
  add("m=2048,n=64,k=256,layout=rcr,dtype=bf16", 1.0, v4);
  EvalReport r = d.run();
  const auto& fp16 = r.slices.at("m_family_fp16");
  EXPECT_EQ(fp16.at("tiny").problems, 1);
  EXPECT_DOUBLE_EQ(fp16.at("small").mean, 0.5);
  EXPECT_DOUBLE_EQ(fp16.at("medium").mean, 0.8);
  EXPECT_DOUBLE_EQ(fp16.at("large").mean, 1.0);
  const auto& eval_family = r.slices.at("m_family_eval");
  EXPECT_EQ(eval_family.count("large"), 0u);
  EXPECT_EQ(eval_family.at("medium").problems, 2);  // M = 512 and 2048
  EXPECT_DOUBLE_EQ(eval_family.at("medium").min, 0.8);
  EXPECT_DOUBLE_EQ(eval_family.at("medium").top1, 0.5);
  EXPECT_EQ(r.slices.at("k_regime").at("shallow").problems, 2);
  EXPECT_EQ(r.slices.at("k_regime").at("deep").problems, 1);
  EXPECT_EQ(r.slices.at("layout").at("crr").problems, 1);
  EXPECT_DOUBLE_EQ(r.slices.at("dtype").at("fp32").mean, 0.75);
  EXPECT_DOUBLE_EQ(r.slices.at("pipeline").at("mem").mean, 0.75);
  EXPECT_EQ(r.slices.at("pipeline").at("compv4").problems, 2);
}

TEST(Evaluate, CountsPicksSlowerThanTheDefaultKernel) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1", p4 = "m=4,n=1,k=1";
  d.rows = {row(p1, "D0", 0.5, false), row(p1, "D1", 1.0), row(p1, "X", 1.03),
            row(p2, "D0", 1.0),        row(p2, "X", 1.01), row(p3, "X", 1.0),
            row(p3, "Y", 2.0),         row(p4, "D0", 2.0), row(p4, "X", 1.0)};
  d.predictions = ranking(p1, {"X"});  // D1 unpredicted: still a candidate, ranked last
  append(d.predictions, ranking(p2, {"X", "D0"}));
  append(d.predictions, ranking(p3, {"X", "Y"}));
  append(d.predictions, ranking(p4, {"X", "D0"}));
  EvalOptions o = fixture::options_with_cores(2);
  o.default_kernels = {"D0", "D1"};
  EvalReport r = d.run(o);
  EXPECT_EQ(r.worse_than_default, 1);  // p1: 3% slower than D1 (D0 is invalid there)
  EXPECT_EQ(r.without_default, 1);     // p3
  EXPECT_EQ(r.missing_predictions, 1);
  EXPECT_EQ(r.per_problem[0].default_kernel, "D1");
  const Baseline& def = r.baselines.at("default");
  EXPECT_EQ(def.coverage, 3);
  EXPECT_DOUBLE_EQ(def.efficiency.mean, 2.5 / 3.0);  // 1.0, 1.0 and 0.5
}

// Kernels outside the shortlist rank after every shortlisted one and after the default, as
// selection ranks only those (select::Ranker::shortlisted); with none listed they rank as usual.
TEST(Evaluate, KernelsOutsideTheShortlistRankAfterItAndTheDefault) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1";
  d.rows = {row(p1, "X", 0.5),  row(p1, "Y", 1.0), row(p1, "D0", 2.0), row(p2, "X", 0.5),
            row(p2, "D0", 1.0), row(p3, "X", 1.0), row(p3, "Z", 2.0)};
  d.predictions = ranking(p1, {"X", "Y", "D0"});
  append(d.predictions, ranking(p2, {"X", "D0"}));
  append(d.predictions, ranking(p3, {"Z", "X"}));
  for (auto& p : d.predictions) p.shortlisted = p.kernel == "Y" || p.kernel == "Z";
  EvalOptions o = fixture::options_with_cores(2);
  o.default_kernels = {"D0"};
  EvalReport r = d.run(o);
  ASSERT_EQ(r.problems, 3);
  EXPECT_EQ(r.per_problem[0].picked, "Y");   // X predicted faster but not shortlisted
  EXPECT_EQ(r.per_problem[1].picked, "D0");  // the default is always a candidate
  EXPECT_EQ(r.per_problem[2].picked, "Z");
  EXPECT_EQ(r.per_problem[0].hit_rank, 3) << "X, the oracle, after the shortlist and default";
  EXPECT_EQ(r.missing_predictions, 0);
}

// Predictions with speeds: `kernels` best first, each with the given predicted TFLOPS.
std::vector<Prediction> with_speeds(const std::string& problem,
                                    const std::vector<std::pair<std::string, double>>& kernels) {
  std::vector<Prediction> out;
  for (const auto& [kernel, tflops] : kernels)
    out.push_back({problem, kernel, tflops, tflops, tflops});
  return out;
}

// The model ranks X first in both problems; D (the default) is 3% faster than X in p1, where
// the model predicts X only 2% faster, and 20% slower in p2, where it predicts X 30% faster.
TEST(Evaluate, DefaultGuardKeepsTheDefaultAgainstASmallPredictedGain) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1";
  d.rows = {row(p1, "D", 1.0), row(p1, "X", 1.03), row(p2, "D", 1.2), row(p2, "X", 1.0)};
  d.predictions = with_speeds(p1, {{"X", 10.2}, {"D", 10.0}});
  append(d.predictions, with_speeds(p2, {{"X", 13.0}, {"D", 10.0}}));
  EvalOptions o = fixture::options_with_cores(2);
  o.default_kernels = {"D"};
  EvalReport unguarded = d.run(o);
  EXPECT_EQ(unguarded.worse_than_default, 1);
  EXPECT_EQ(unguarded.kept_default, 0);
  o.default_margin = 0.05;
  EvalReport r = d.run(o);
  EXPECT_EQ(r.worse_than_default, 0);
  EXPECT_EQ(r.kept_default, 1);
  EXPECT_EQ(r.per_problem[0].picked, "D");  // p1: a 2% predicted gain is not enough
  EXPECT_EQ(r.per_problem[0].hit_rank, 1);
  EXPECT_EQ(r.per_problem[1].picked, "X");  // p2: 30% is
  EXPECT_DOUBLE_EQ(r.efficiency.mean, 1.0);
  nlohmann::json j = r;
  EXPECT_EQ(j["default_margin"], 0.05);
  EXPECT_EQ(j["kept_default"], 1);
}

TEST(Evaluate, DefaultGuardNeedsPredictedSpeeds) {
  Data d;
  d.add_pair(kP1, 0.1);  // ranking(): scores without speeds, as a ranking model's
  EvalOptions o = fixture::options_with_cores(2);
  o.default_kernels = {"A"};
  o.default_margin = 0.05;
  EXPECT_THROW(d.run(o), InputError);
  o.default_margin = -1;
  EXPECT_THROW(d.run(o), InputError);
}

TEST(Evaluate, SingleBestFixedKernelFallsBackToTheDefault) {
  Data d;
  const std::string p1 = "m=1,n=1,k=1", p2 = "m=2,n=1,k=1", p3 = "m=3,n=1,k=1";
  d.rows = {row(p1, "A", 1.0),        row(p1, "B", 1.25), row(p1, "C", 2.0),
            row(p2, "A", 1.0, false), row(p2, "B", 1.0),  row(p2, "C", 1.25),
            row(p3, "A", 1.0),        row(p3, "B", 2.0),  row(p3, "C", 1.0)};
  for (const auto& p : {p1, p2, p3}) append(d.predictions, ranking(p, {"A", "B", "C"}));
  EvalOptions o = fixture::options_with_cores(2);
  o.default_kernels = {"C"};
  EvalReport r = d.run(o);
  // A: 1 + 0.8 (falls back to C) + 1 = 2.8 beats B (0.8 + 1 + 0.5) and C (0.5 + 0.8 + 1).
  const Baseline& single = r.baselines.at("single_best_kernel");
  EXPECT_EQ(single.kernel, "A");
  EXPECT_EQ(single.coverage, 2);
  EXPECT_NEAR(single.efficiency.mean, 2.8 / 3.0, 1e-12);
  EXPECT_NEAR(r.baselines.at("default_set_oracle").efficiency.mean, 2.3 / 3.0, 1e-12);
}

TEST(Evaluate, FitInTheTargetScaleAndUnmatchedPredictions) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 2.0)};  // 10 and 5 TFLOPS
  d.predictions = {
      {kP1, "A", 9.0, 9.0}, {kP1, "B", 6.0, 6.0}, {kP1, "Z", 1.0, 1.0}, {kP2, "A", 1.0, 1.0}};
  EvalReport r = d.run();
  EXPECT_EQ(r.fit.rows, 2);
  EXPECT_DOUBLE_EQ(r.fit.rmse, 1.0);
  EXPECT_DOUBLE_EQ(r.fit.r2, 1.0 - 2.0 / 12.5);
  EXPECT_EQ(r.unmatched_predictions, 2);
}

TEST(Evaluate, LatencyFitComparesMilliseconds) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 2.0)};
  d.predictions = {{kP1, "A", -1.1, 1.1}, {kP1, "B", -1.9, 1.9}};  // score: lower ms is better
  EvalOptions o = fixture::options_with_cores(2);
  o.target = "latency";
  EvalReport r = d.run(o);
  EXPECT_EQ(r.per_problem[0].picked, "A");
  EXPECT_NEAR(r.fit.rmse, 0.1, 1e-12);
  o.target = "gflops";
  EXPECT_THROW(d.run(o), InputError);
}

TEST(Evaluate, RankingScoresAreLeftOutOfTheFit) {
  Data d;
  d.rows = {row(kP1, "A", 1.0), row(kP1, "B", 2.0)};
  d.predictions = {{kP1, "A", 3.0}, {kP1, "B", 1.0}};  // no target-scale estimate
  EvalReport r = d.run();
  EXPECT_EQ(r.fit.rows, 0);
  EXPECT_DOUBLE_EQ(r.efficiency.mean, 1.0);
}

TEST(Evaluate, ProblemsWithoutPredictionsAreCountedNotScored) {
  Data d;
  d.add_pair(kP1, 0.5);
  d.rows.push_back(row(kP2, "A", 1.0));
  EvalReport r = d.run();
  EXPECT_EQ(r.problems, 1);
  EXPECT_EQ(r.skipped_no_prediction, 1);
}

TEST(Evaluate, WorstProblemsLowestEfficiencyFirst) {
  Data d;
  d.add_pair("m=1,n=1,k=1", 0.25);
  d.add_pair("m=2,n=1,k=1", 1.0);
  d.add_pair("m=3,n=1,k=1", 0.0, false);
  EvalOptions o = fixture::options_with_cores(2);
  o.top_worst = 2;
  EvalReport r = d.run(o);
  ASSERT_EQ(r.worst.size(), 2u);
  EXPECT_EQ(r.worst[0].problem, "m=2,n=1,k=1");
  EXPECT_DOUBLE_EQ(r.worst[0].efficiency, 0.5);
  EXPECT_EQ(r.worst[1].problem, "m=1,n=1,k=1");
}

TEST(Evaluate, JsonHasTheDocumentedKeys) {
  Data d;
  d.add_pair(kP1, 0.25);
  nlohmann::json j = d.run();
  for (const char* key :
       {"efficiency", "top1", "top3", "top5", "top10", "ndcg_at_1", "r2", "rmse", "regret",
        "worse_than_default", "problems", "slices", "worst", "per_problem", "baselines"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"mean", "p10", "p50", "min"}) EXPECT_TRUE(j["efficiency"].contains(key));
  for (const char* key : {"p50", "p95", "max"}) EXPECT_TRUE(j["regret"].contains(key));
  EXPECT_DOUBLE_EQ(j["efficiency"]["mean"].get<double>(), 0.8);
  EXPECT_EQ(j["per_problem"][0]["picked"], "B");
  EXPECT_EQ(j["worst"][0]["best"], "A");
}

}  // namespace
}  // namespace kselect::eval
