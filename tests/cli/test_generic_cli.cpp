// `kselect train`, `predict` and `eval` on a store of generic (imported) data: the op comes
// from the store, candidates from the model, and the errors are clear.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include <fcntl.h>  // cli_runner.h uses O_WRONLY without including it

#include "../model/train_fixture.h"
#include "../ops/generic/generic_synthetic.h"
#include "cli_runner.h"

namespace kselect {
namespace {

using testing::run_cli;

struct GenericCli : ::testing::Test {
  static void SetUpTestSuite() {
    dir = testing::scratch_dir("generic_cli");
    std::filesystem::create_directories(dir);
    db = (dir / "db.sqlite").string();
    model = (dir / "model").string();
    testing::write_generic_store(db, testing::generic_measurements(30, 31));
    auto t = run_cli({"train", "--db", db, "--out", model, "--trees", "400", "--folds", "3",
                      "--threads", "1", "--json"});
    ASSERT_EQ(t.code, 0) << t.out;
    train_json = nlohmann::json::parse(t.out);
  }
  static inline std::filesystem::path dir;
  static inline std::string db, model;
  static inline nlohmann::json train_json;
};

TEST_F(GenericCli, TrainTakesTheOpFromTheStore) {
  EXPECT_EQ(train_json["unique_shapes"], 30);
  EXPECT_EQ(train_json["target_note"], "latency (no row has TFLOPS > 0)");
  std::ifstream in(model + "/feature_spec.json");
  auto fs = nlohmann::json::parse(in);
  EXPECT_EQ(fs["op"], "generic");
  EXPECT_TRUE(fs["engine_state"].is_object());
}

TEST_F(GenericCli, PredictRanksTheKernelsSeenInTraining) {
  auto p = run_cli({"predict", "--model", model, "--problem",
                    "m=512,n=1024,k=2048,dtype=fp32,device=dev0", "--top", "0", "--json"});
  ASSERT_EQ(p.code, 0) << p.out;
  auto j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["candidates"], 8);
  ASSERT_EQ(j["ranked"].size(), 8u);
  EXPECT_EQ(j["ranked"][0]["kernel"], testing::generic_kernel(64, 'b'));  // m/8 = 64, k > 1024
  EXPECT_GT(j["ranked"][0]["latency_ms"].get<double>(), 0);
  auto text = run_cli({"predict", "--model", model, "--problem", "m=64,n=128,k=128,dtype=fp32"});
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("latency_ms"), std::string::npos) << text.out;
}

TEST_F(GenericCli, PredictErrors) {
  auto rules = run_cli({"predict", "--model", model, "--problem", "m=64,n=128,k=128,dtype=fp32",
                        "--rules", "default"},
                       true);
  EXPECT_EQ(rules.code, 3);
  EXPECT_NE(rules.out.find("--rules"), std::string::npos) << rules.out;
  auto context =
      run_cli({"predict", "--model", model, "--problem", "m=64,n=128,k=128,dtype=bf16"}, true);
  EXPECT_NE(context.code, 0);
  EXPECT_NE(context.out.find("dtype=bf16"), std::string::npos) << context.out;
}

TEST_F(GenericCli, EvalOutOfFoldReportsTimeEfficiencyAndTheWinnerBaseline) {
  auto e = run_cli({"eval", "--model", model, "--db", db, "--json"});
  ASSERT_EQ(e.code, 0) << e.out;
  auto j = nlohmann::json::parse(e.out);
  EXPECT_EQ(j["protocol"], "out-of-fold");
  EXPECT_EQ(j["efficiency_basis"], "time");
  EXPECT_TRUE(j.contains("top1"));
  EXPECT_TRUE(j["baselines"].contains("default"));
}

TEST_F(GenericCli, OpChoiceAndForcedGenericFeatures) {
  // A store with two ops needs --op.
  std::string mixed = (dir / "mixed.sqlite").string();
  testing::write_generic_store(mixed, testing::generic_measurements(6, 32));
  testing::write_generic_store(mixed, testing::generic_measurements(6, 33), "other");
  auto t = run_cli(
      {"train", "--db", mixed, "--out", (dir / "m2").string(), "--folds", "0", "--trees", "5"},
      true);
  EXPECT_EQ(t.code, 3);
  EXPECT_NE(t.out.find("generic, other"), std::string::npos) << t.out;
  auto forced = run_cli({"train", "--db", mixed, "--op", "generic", "--out", (dir / "m3").string(),
                         "--folds", "0", "--trees", "5"});
  EXPECT_EQ(forced.code, 0) << forced.out;
}

}  // namespace
}  // namespace kselect
