// `kselect tune` end to end on a Kernel Tuner cache and on one GEMM problem measured here: the
// real binary, its JSON and exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace kselect {
namespace {

const std::string kCacheDir = std::string(KSELECT_SHARED_DATA_DIR) + "/kernel-tuner/";

#define SKIP_WITHOUT_CACHES() \
  if (!std::filesystem::exists(kCacheDir)) GTEST_SKIP() << "shared data not present: " << kCacheDir

std::vector<std::string> tune_args(const std::string& strategies) {
  return {"tune",
          "--cache",
          kCacheDir + "convolution_milo_W6600.json.gz",
          "--prior",
          kCacheDir + "convolution_milo_A100.json.gz",
          "--budget",
          "25",
          "--seeds",
          "2",
          "--strategies",
          strategies,
          "--initial",
          "10",
          "--batch",
          "5",
          "--ensemble",
          "2",
          "--json",
          "--no-progress"};
}

TEST(TuneCli, JsonReportsEachStrategyAndAddsModelPriorWithAPrior) {
  SKIP_WITHOUT_CACHES();
  const auto r = testing::run_cli(tune_args("random,model"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["problems"].size(), 1u);
  const auto& p = j["problems"][0];
  EXPECT_GT(p["configurations"].get<int>(), 4000);
  ASSERT_EQ(p["strategies"].size(), 3u);
  EXPECT_EQ(p["strategies"][2]["strategy"], "model-prior");
  for (const auto& s : p["strategies"]) {
    const double at25 = s["mean_fraction_of_optimum"]["25"];
    EXPECT_GT(at25, 0);
    EXPECT_LE(at25, 1);
    EXPECT_TRUE(s.contains("fraction_seeds_ge_95"));
  }
}

TEST(TuneCli, AnotherTargetNamesTheKeys) {
  SKIP_WITHOUT_CACHES();
  auto args = tune_args("random");
  args.insert(args.end(), {"--target", "0.99"});
  const auto r = testing::run_cli(args);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = nlohmann::json::parse(r.out)["problems"][0]["strategies"][0];
  EXPECT_TRUE(s.contains("fraction_seeds_ge_99"));
  EXPECT_FALSE(s.contains("fraction_seeds_ge_95"));
}

TEST(TuneCli, BadInputExitsThreeAndBadArgumentsTwo) {
  EXPECT_EQ(testing::run_cli(tune_args("hill-climbing")).code, 3);
  auto args = tune_args("random");
  args[2] = "/no/such/cache.json";
  EXPECT_EQ(testing::run_cli(args).code, 3);
  args = tune_args("random");
  args.push_back("--budget=0");
  EXPECT_EQ(testing::run_cli(args).code, 2);
  EXPECT_EQ(testing::run_cli({"tune", "--budget", "10"}).code, 2);  // no --cache
  args = tune_args("random");
  args.insert(args.end(), {"--problem", "m=8,n=8,k=8"});
  EXPECT_EQ(testing::run_cli(args).code, 2);  // --cache and --problem
}

// Live tuning: real runs of the `tests` set's GEMM kernels on one problem, the run's best
// judged against every supporting kernel (--exhaustive).
TEST(TuneCli, ProblemTunesOnThisMachine) {
  const auto r = testing::run_cli({"tune",
                                   "--problem",
                                   "m=40,n=48,k=64,dtype=fp32,layout=rcr",
                                   "--space",
                                   "tests",
                                   "--budget",
                                   "6",
                                   "--initial",
                                   "3",
                                   "--batch",
                                   "3",
                                   "--ensemble",
                                   "2",
                                   "--trees",
                                   "5",
                                   "--repeats",
                                   "1",
                                   "--threads",
                                   "1",
                                   "--exhaustive",
                                   "--json",
                                   "--no-progress"});
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["strategy"], "model");
  EXPECT_EQ(j["measured"].size(), 6u);
  EXPECT_EQ(j["exhaustive"]["measured"], j["candidates"]);
  EXPECT_LE(j["exhaustive"]["fraction_of_best"].get<double>(), 1.0);
  const auto bad = testing::run_cli({"tune", "--problem", "m=40,n=48,k=64,dtype=fp32,layout=rcr",
                                     "--space", "tests", "--strategy", "random,de"});
  EXPECT_EQ(bad.code, 3) << bad.out;
}

}  // namespace
}  // namespace kselect
