// `kselect train --objective classify`, then `predict` and `eval` on its model directory,
// through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>  // cli_runner.h uses O_WRONLY without including it

#include "../model/train_fixture.h"
#include "../ops/generic/generic_synthetic.h"
#include "cli_runner.h"

namespace kselect {
namespace {

using testing::run_cli;

struct ClassifyCli : ::testing::Test {
  static void SetUpTestSuite() {
    dir = testing::scratch_dir("classify_cli");
    std::filesystem::create_directories(dir);
    db = (dir / "db.sqlite").string();
    model = (dir / "model").string();
    testing::write_generic_store(db, testing::generic_measurements(60, 41));
    train = run_cli({"train", "--db", db, "--out", model, "--objective", "classify", "--trees",
                     "30", "--eta", "0.3", "--min-child-weight", "0.2", "--folds", "3", "--threads",
                     "1", "--json"});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir); }
  static inline std::filesystem::path dir;
  static inline std::string db, model;
  static inline testing::CliResult train;
};

TEST_F(ClassifyCli, TrainReportsOutOfFoldTopOne) {
  ASSERT_EQ(train.code, 0) << train.out;
  auto j = nlohmann::json::parse(train.out);
  const auto& overall = j["targets"][0]["overall"];
  EXPECT_TRUE(overall["r2"].is_null());
  EXPECT_GT(overall["top1"].get<double>(), 0.7);
}

TEST_F(ClassifyCli, PredictShowsEachKernelsProbability) {
  ASSERT_EQ(train.code, 0) << train.out;
  const std::string problem = "m=512,n=1024,k=2048,dtype=fp32,device=dev0";
  auto p = run_cli({"predict", "--model", model, "--problem", problem, "--top", "0", "--json"});
  ASSERT_EQ(p.code, 0) << p.out;
  auto j = nlohmann::json::parse(p.out);
  ASSERT_FALSE(j["ranked"].empty());
  EXPECT_EQ(j["ranked"][0]["kernel"], testing::generic_kernel(64, 'b'));  // m/8 = 64, k > 1024
  EXPECT_GT(j["ranked"][0]["probability"].get<double>(), 0.5);
  auto text = run_cli({"predict", "--model", model, "--problem", problem});
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("probability"), std::string::npos) << text.out;
  auto cascade =
      run_cli({"predict", "--model", model, "--problem", problem, "--cascade", "2:2"}, true);
  EXPECT_EQ(cascade.code, 3);
  EXPECT_NE(cascade.out.find("cascade"), std::string::npos) << cascade.out;
}

TEST_F(ClassifyCli, EvalScoresTheOutOfFoldPicks) {
  ASSERT_EQ(train.code, 0) << train.out;
  auto e = run_cli({"eval", "--model", model, "--db", db, "--json"});
  ASSERT_EQ(e.code, 0) << e.out;
  auto j = nlohmann::json::parse(e.out);
  EXPECT_EQ(j["protocol"], "out-of-fold");
  EXPECT_EQ(j["problems"], 60);
  EXPECT_GT(j["top1"].get<double>(), 0.7);
}

}  // namespace
}  // namespace kselect
