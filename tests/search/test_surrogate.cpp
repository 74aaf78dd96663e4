#include "search/surrogate.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "model/feature_spec.h"
#include "ops/operation.h"
#include "select/candidates.h"
#include "select/ranker.h"

namespace kselect::search {
namespace {

// One small model of the synthetic GEMM data (shapes m 1..1024, n 64..3000, k 64..4096),
// trained once for the tests of this file.
const std::filesystem::path& model_dir() {
  static const std::filesystem::path dir = [] {
    model::TrainOptions o = kselect::testing::quick_options("surrogate_model");
    o.targets = {"tflops"};
    o.folds = 0;
    o.boosting.trees = 30;
    model::train(kselect::testing::synthetic_measurements(), o);
    return o.out_dir;
  }();
  return dir;
}

const char* kProblem = "m=200,n=1024,k=777,layout=rcr,dtype=fp32";

SurrogateOptions options(Strategy strategy, std::size_t budget, std::uint64_t seed = 1) {
  SurrogateOptions o;
  o.model = model_dir().string();
  o.problem = kProblem;
  o.strategy.strategy = strategy;
  o.strategy.budget = budget;
  o.strategy.seed = seed;
  o.top_k = 5;
  return o;
}

// With a budget that covers the space, random search is the exhaustive ranking: its top k is
// the ranker's top k over every `full` configuration that supports the problem.
TEST(Surrogate, AnExhaustiveBudgetGivesTheRankersTopK) {
  const SurrogateResult r = surrogate_search(options(Strategy::kRandom, 1000000));
  const Operation& op = find_operation("gemm");
  const auto supported = select::supported_kernels(op, "full", r.problem);
  EXPECT_EQ(r.candidates, supported.size());
  EXPECT_EQ(r.trace.scored.size(), supported.size());
  EXPECT_GT(r.space_size, r.candidates);  // other dtypes and layouts
  const auto ranked = select::Ranker::load(model_dir()).rank(r.problem, supported);
  ASSERT_EQ(r.top.size(), 5u);
  // Kernels of equal scores may come in another order (the draws' order, not the set's).
  for (std::size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(r.top[i].score, ranked[i].score) << i;
  if (ranked[0].score > ranked[1].score) EXPECT_EQ(r.top[0].kernel, ranked[0].kernel);
}

TEST(Surrogate, DifferentialEvolutionIsDeterministicAndClimbsAboveItsFirstPopulation) {
  const SurrogateResult a = surrogate_search(options(Strategy::kDifferentialEvolution, 400, 5));
  const SurrogateResult b = surrogate_search(options(Strategy::kDifferentialEvolution, 400, 5));
  ASSERT_EQ(a.top.size(), b.top.size());
  for (std::size_t i = 0; i < a.top.size(); ++i) EXPECT_EQ(a.top[i].kernel, b.top[i].kernel);
  EXPECT_EQ(a.trace.scored.size(), 400u);
  EXPECT_GT(a.trace.repairs, 0u);  // the GEMM rules reject most free combinations
  double first_population = -1e300;
  for (std::size_t i = 0; i < 20; ++i)
    first_population = std::max(first_population, a.trace.scored[i].score);
  EXPECT_GT(a.top.front().score, first_population);
}

TEST(Surrogate, ProblemsOutsideTheTrainingRangeAreFlagged) {
  SurrogateOptions o = options(Strategy::kRandom, 50);
  const SurrogateResult inside = surrogate_search(o);
  EXPECT_TRUE(inside.ranges_recorded);
  EXPECT_TRUE(inside.extrapolation.empty());
  o.problem = "m=8000,n=1024,k=777,layout=rcr,dtype=fp32";
  const SurrogateResult outside = surrogate_search(o);
  ASSERT_EQ(outside.extrapolation.size(), 1u);
  EXPECT_EQ(outside.extrapolation[0].field, "m");
  EXPECT_EQ(outside.extrapolation[0].range.max, 1024);
  EXPECT_EQ(outside.to_json()["extrapolation"][0]["field"], "m");
}

TEST(Surrogate, AModelWithoutRecordedRangesSaysExtrapolationIsUnknown) {
  auto dir = kselect::testing::scratch_dir("surrogate_old_model");
  std::filesystem::copy(model_dir(), dir, std::filesystem::copy_options::recursive);
  model::FeatureSpec spec = model::FeatureSpec::load(dir);
  spec.training_ranges.clear();
  spec.save(dir);
  SurrogateOptions o = options(Strategy::kRandom, 20);
  o.model = dir.string();
  const SurrogateResult r = surrogate_search(o);
  EXPECT_FALSE(r.ranges_recorded);
  EXPECT_TRUE(r.to_json()["extrapolation"].is_null());
}

TEST(Surrogate, AUserRuleFileIsSearchedWhole) {
  auto dir = kselect::testing::scratch_dir("surrogate_rules");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "small.json") << R"({
    "version": 1, "op": "gemm",
    "name": "gemm_universal_{dtype}_{layout}_{pipeline}_{epilogue}_{scheduler}_{pad_m}_{pad_n}_{pad_k}_{persistent}_{tile_m}x{tile_n}x{tile_k}_{warp_m}x{warp_n}x{warp_k}_{warp_tile_m}x{warp_tile_n}x{warp_tile_k}",
    "axes": {"dtype": ["fp32"], "layout": ["rcr"], "pipeline": ["compv3", "compv4"],
             "epilogue": ["default"], "scheduler": ["intrawave"], "pad_m": [true],
             "pad_n": [true], "pad_k": [true], "persistent": [false],
             "tile_m": [16, 64, 128], "tile_n": [32, 128], "tile_k": [64, 256],
             "warp_m": [1], "warp_n": [1], "warp_k": [1],
             "warp_tile_m": [4, 8, 12], "warp_tile_n": [16, 32], "warp_tile_k": [1]},
    "constraints": [{"name": "fits", "why": "whole micro-tiles",
                     "expr": "tile_m % warp_tile_m == 0 and tile_n % warp_tile_n == 0"}],
    "sets": {"full": {}}
  })";
  SurrogateOptions o = options(Strategy::kRandom, 1000);
  o.space = (dir / "small.json").string();
  const SurrogateResult r = surrogate_search(o);
  EXPECT_EQ(r.space_size, 2u * 3 * 2 * 2 * 2 * 2);
  EXPECT_EQ(r.trace.scored.size(), r.candidates);
  EXPECT_GT(r.candidates, 0u);
  EXPECT_EQ(r.top.size(), 5u);
}

TEST(Surrogate, BadInputIsAnInputError) {
  SurrogateOptions o = options(Strategy::kRandom, 10);
  o.space = "no-such-set";
  EXPECT_THROW(surrogate_search(o), InputError);
  o = options(Strategy::kRandom, 10);
  o.problem = "m=200,n=1024,k=777,layout=rcr,dtype=bf16";  // the model is fp32
  EXPECT_THROW(surrogate_search(o), InputError);
  o = options(Strategy::kRandom, 10);
  o.problem = "m=x";
  EXPECT_THROW(surrogate_search(o), InputError);
}

}  // namespace
}  // namespace kselect::search
