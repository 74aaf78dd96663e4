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

// `kselect predict` on m=512,n=1024,k=2048 of `dtype` (the context), stderr included.
testing::CliResult predict_dtype(const std::string& model, const std::string& dtype) {
  return run_cli({"predict", "--model", model, "--problem",
                  "m=512,n=1024,k=2048,dtype=" + dtype + ",device=dev0"},
                 true);
}

// Exit 3 (input error) with every one of `phrases` in the message.
void expect_refused(const testing::CliResult& r, const std::vector<std::string>& phrases) {
  EXPECT_EQ(r.code, 3) << r.out;
  for (const auto& phrase : phrases) EXPECT_NE(r.out.find(phrase), std::string::npos) << r.out;
}

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

TEST_F(ClassifyCli, PredictRefusesAContextNeverSeenInTraining) {
  ASSERT_EQ(train.code, 0) << train.out;
  expect_refused(predict_dtype(model, "fp16"), {"dtype=fp16", "the model knows: dtype=fp32"});
}

// A context seen in training whose problems have no valid value of the model's target (times
// only, for a tflops model) has no classes: predict refuses it, naming the target.
TEST(ClassifyCliTarget, PredictRefusesAContextWithoutTheTarget) {
  const auto dir = testing::scratch_dir("classify_cli_target");
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "db.sqlite").string(), model = (dir / "model").string();
  auto rows = testing::generic_measurements(24, 7);
  for (auto& m : rows) m.tflops = 1 / m.median_ms;
  for (auto m : testing::generic_measurements(12, 8)) {  // fp16: times only
    m.problem.replace(m.problem.find("dtype=fp32"), 10, "dtype=fp16");
    rows.push_back(m);
  }
  testing::write_generic_store(db, rows);
  auto t = run_cli({"train", "--db", db, "--out", model, "--objective", "classify", "--target",
                    "tflops", "--trees", "5", "--folds", "0", "--threads", "1"},
                   true);
  ASSERT_EQ(t.code, 0) << t.out;
  expect_refused(predict_dtype(model, "fp16"),
                 {"no class for dtype=fp16", "valid tflops", "classes for: dtype=fp32"});
  EXPECT_EQ(predict_dtype(model, "fp32").code, 0);
  std::filesystem::remove_all(dir);
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
