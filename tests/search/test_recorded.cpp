#include "search/recorded.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <filesystem>
#include "../model/synthetic.h"
#include "../model/train_fixture.h"

#include "core/error.h"
#include "data/import/driver.h"
#include "gemm_store.h"

namespace kselect::search {
namespace {

const std::string kA100 =
    std::string(KSELECT_SHARED_DATA_DIR) + "/kernel-tuner/convolution_milo_A100.json.gz";

// The cache as datasets.md describes it: 4,362 configurations, 161 of them failed, the best
// 0.554 ms, and a single configuration within 95% of it (issue 34).
#define SKIP_WITHOUT_SHARED_DATA() \
  if (!std::filesystem::exists(kA100)) GTEST_SKIP() << "shared data not present: " << kA100

TEST(Recorded, AKernelTunerCacheIsOneTargetOfEveryConfiguration) {
  SKIP_WITHOUT_SHARED_DATA();
  const RecordedData data = load_recorded(kA100);
  ASSERT_GT(data.rows.size(), 0u) << "no rows read from " << kA100;
  const auto targets = tuning_targets(data);
  ASSERT_EQ(targets.size(), 1u);
  const TuningTarget& t = targets[0];
  EXPECT_EQ(t.configurations(), 4362u);
  EXPECT_EQ(std::count(t.speed.begin(), t.speed.end(), 0.0), 161);
  EXPECT_NEAR(1.0 / t.optimum, 0.554, 0.001);
  EXPECT_EQ(t.within(0.95), 1u);
  EXPECT_EQ(t.domain.genes().size(), 10u);  // the cache's tune_params_keys
}

TEST(Recorded, AStoreGivesTheSameTargetsAsItsImportedCache) {
  SKIP_WITHOUT_SHARED_DATA();
  const auto dir = kselect::testing::scratch_dir("recorded_store");
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "a100.sqlite").string();
  importers::ImportRunOptions options;
  options.progress = false;
  importers::import_file(kA100, "kernel-tuner", db, options);
  const auto from_store = tuning_targets(load_recorded(db));
  const auto from_cache = tuning_targets(load_recorded(kA100));
  ASSERT_EQ(from_store.size(), 1u);
  EXPECT_EQ(from_store[0].problem, from_cache[0].problem);
  EXPECT_EQ(from_store[0].speed, from_cache[0].speed);
}

// A sweep of the CPU backend: one target per GEMM problem over the kernels measured for it,
// their configuration fields (strings and booleans among them) as the genes.
TEST(Recorded, AGemmSweepIsATargetPerProblem) {
  const std::string db = kselect::testing::synthetic_gemm_store("recorded_gemm");
  std::map<std::string, std::vector<data::Measurement>> by_problem;
  for (auto& m : kselect::testing::synthetic_measurements()) by_problem[m.problem].push_back(m);
  const auto targets = tuning_targets(load_recorded(db));
  ASSERT_EQ(targets.size(), by_problem.size());
  const auto configs = kselect::testing::synthetic_configs();
  for (const auto& t : targets) {
    EXPECT_EQ(t.configurations(), configs.size()) << t.problem;
    double best_ms = 1e300;
    for (const auto& m : by_problem.at(t.problem)) best_ms = std::min(best_ms, m.median_ms);
    EXPECT_DOUBLE_EQ(t.optimum, 1.0 / best_ms) << t.problem;
  }
  // The fields that vary between the synthetic configurations: tile sizes, warp tiles and
  // the pipeline (a string gene).
  const auto& genes = targets[0].domain.genes();
  auto pipeline =
      std::find_if(genes.begin(), genes.end(), [](const Gene& g) { return g.name == "pipeline"; });
  ASSERT_NE(pipeline, genes.end());
  EXPECT_FALSE(pipeline->ordered);
  EXPECT_EQ(pipeline->values.size(), 2u);
}

TEST(Recorded, AMissingOrForeignFileIsAnInputError) {
  EXPECT_THROW(load_recorded("/no/such/cache.json"), InputError);
  const auto dir = kselect::testing::scratch_dir("recorded_foreign");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "x.json") << "{\"not\": \"a cache\"}";
  EXPECT_THROW(load_recorded((dir / "x.json").string()), InputError);
}

TEST(Recorded, ProblemsWithoutATimeAreNoTarget) {
  RecordedData data;
  data::Measurement failed;
  failed.problem = "p=1";
  failed.kernel = "k1";
  failed.valid = false;
  data.rows.push_back(failed);
  data.configs["k1"] = {{"x", 1}};
  EXPECT_THROW(tuning_targets(data), InputError);
}

}  // namespace
}  // namespace kselect::search
