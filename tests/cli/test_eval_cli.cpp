// kselect eval and kselect compare end to end: a store and an out-of-fold file written here,
// reports compared with the exit codes of docs/cli.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"
#include "core/key_values.h"
#include "data/store.h"
#include "ops/operation.h"

namespace kselect::eval {
namespace {

using kselect::testing::run_cli;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;

const std::vector<std::string> kProblems = {"m=64,n=64,k=64,layout=rcr,dtype=fp32",
                                            "m=8,n=128,k=256,layout=rcr,dtype=fp32",
                                            "m=256,n=32,k=512,layout=rcr,dtype=fp32"};

data::Measurement timed(const std::string& kernel, double ms) {
  data::Measurement m;
  m.kernel = kernel;
  m.valid = true;
  m.median_ms = m.min_ms = m.mean_ms = ms;
  m.ci_low_ms = ms * 0.995, m.ci_high_ms = ms * 1.005;
  m.tflops = 1.0 / ms;
  m.repeats_ms = {ms, ms};  // the split-half baselines see the same time in both halves
  return m;
}

// Kernels D (the first fp32 rcr kernel of the default set), X and Y; the model ranks X first.
class EvalCli : public ::testing::Test {
 protected:
  void SetUp() override {
    deflt_ = find_operation("gemm")
                 .kernel_names("default", KeyValues::parse("dtype=fp32,layout=rcr"))
                 .front();
    data::Store store(db_);
    long run = store.begin_run("gemm", {{"cpu_model", "test"}}, {{"threads", 2}}, "k", 0);
    // Picks X: P1 the oracle; P2 10% slower than D, the oracle; P3 0.8 of Y, faster than D.
    const double times[3][3] = {{1.0, 0.5, 2.0}, {1.0, 1.1, 3.0}, {2.0, 1.0, 0.8}};
    std::string oof = "problem,kernel,fold,predicted,measured\n";
    for (std::size_t p = 0; p < kProblems.size(); ++p) {
      std::vector<data::Measurement> rows = {timed(deflt_, times[p][0]), timed("X", times[p][1]),
                                             timed("Y", times[p][2])};
      store.write_problem(run, "k", "gemm", kProblems[p], rows, [](const std::string& k) {
        return nlohmann::json{{"name", k}};
      });
      for (std::size_t k = 0; k < rows.size(); ++k)
        oof += "\"" + kProblems[p] + "\"," + rows[k].kernel + "," + std::to_string(p) + "," +
               (k == 1 ? "9" : "1") + "," + std::to_string(rows[k].tflops) + "\n";
    }
    store.finish_run(run, 0, false, "finished");
    write_bytes(oof_, oof);
  }

  nlohmann::json eval_json() {
    auto r = run_cli({"eval", "--db", db_, "--oof-file", oof_, "--json"});
    EXPECT_EQ(r.code, 0);
    return nlohmann::json::parse(r.out);
  }

  TempDir dir_;
  std::string db_ = dir_.file("m.sqlite"), oof_ = dir_.file("oof_tflops.csv");
  std::string deflt_;
};

TEST_F(EvalCli, OutOfFoldReport) {
  nlohmann::json j = eval_json();
  EXPECT_EQ(j["protocol"], "out-of-fold");
  EXPECT_EQ(j["problems"], 3);
  EXPECT_NEAR(j["efficiency"]["mean"].get<double>(), (1.0 + 1.0 / 1.1 + 0.8) / 3.0, 1e-9);
  EXPECT_NEAR(j["efficiency"]["min"].get<double>(), 0.8, 1e-9);
  EXPECT_NEAR(j["top1"].get<double>(), 1.0 / 3.0, 1e-9);
  EXPECT_EQ(j["worse_than_default"], 1);
  EXPECT_EQ(j["options"]["cores"], 2);  // the sweep's threads
  EXPECT_EQ(j["worst"][0]["problem"], kProblems[2]);

  // The hybrid selector measures the model's top 3 (by default): here every kernel.
  EXPECT_EQ(j["options"]["hybrid_top"], nlohmann::json::array({3}));
  EXPECT_NEAR(j["baselines"]["hybrid_top3_split_half"]["efficiency"]["mean"].get<double>(), 1.0,
              1e-9);
  EXPECT_NEAR(j["baselines"]["split_half_oracle"]["efficiency"]["mean"].get<double>(), 1.0, 1e-9);

  auto text = run_cli({"eval", "--db", db_, "--oof-file", oof_});
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("efficiency mean"), std::string::npos);
  EXPECT_NE(text.out.find("90.30%"), std::string::npos);
}

TEST_F(EvalCli, HybridTopJudgesTheModelsTopK) {
  auto r = run_cli({"eval", "--db", db_, "--oof-file", oof_, "--json", "--hybrid-top", "1,2"});
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["options"]["hybrid_top"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(j["baselines"].count("hybrid_top3_split_half"), 0u);
  // k = 1 is the model's pick (X), timed alike in both halves: the efficiency of the picks.
  EXPECT_NEAR(j["baselines"]["hybrid_top1_split_half"]["efficiency"]["mean"].get<double>(),
              j["efficiency"]["mean"].get<double>(), 1e-9);
  // k = 2 adds the second ranked kernel, measured too.
  EXPECT_EQ(j["baselines"]["hybrid_top2_split_half"]["coverage"], 3);
  auto off = run_cli({"eval", "--db", db_, "--oof-file", oof_, "--json", "--hybrid-top", "0"});
  ASSERT_EQ(off.code, 0);
  EXPECT_EQ(nlohmann::json::parse(off.out)["baselines"].count("hybrid_top3_split_half"), 0u);
}

TEST_F(EvalCli, BadInputsExitThree) {
  EXPECT_EQ(run_cli({"eval", "--db", db_, "--oof", "--model", dir_.file("none")}).code, kExitInput);
  write_bytes(dir_.file("other.csv"),
              "problem,kernel,fold,predicted,measured\n"
              "\"m=3,n=3,k=3\",X,0,1,1\n");
  auto r = run_cli({"eval", "--db", db_, "--oof-file", dir_.file("other.csv")}, true);
  EXPECT_EQ(r.code, kExitInput);
  EXPECT_NE(r.out.find("not out-of-fold predictions for this database"), std::string::npos);
  EXPECT_EQ(run_cli({"eval", "--db", db_, "--oof-file", oof_, "--target", "gflops"}).code,
            kExitInput);
  auto negative = run_cli({"eval", "--db", db_, "--oof-file", oof_, "--hybrid-top", "1,-2"}, true);
  EXPECT_EQ(negative.code, kExitInput);
  EXPECT_NE(negative.out.find("hybrid-top"), std::string::npos) << negative.out;
  // A model is evaluated as the op it was trained for, as predict requires.
  std::filesystem::create_directories(dir_.file("generic_model"));
  write_bytes(dir_.file("generic_model/feature_spec.json"),
              R"({"format_version": 1, "op": "generic", "dtype": "fp32",)"
              R"( "feature_names": ["d_log_flops"], "targets": ["latency"]})");
  auto wrong_op =
      run_cli({"eval", "--db", db_, "--model", dir_.file("generic_model"), "--op", "gemm"}, true);
  EXPECT_EQ(wrong_op.code, kExitInput);
  EXPECT_NE(wrong_op.out.find("the model is for 'generic', not 'gemm'"), std::string::npos)
      << wrong_op.out;
}

TEST_F(EvalCli, CompareAcceptsRejectsAndFailsOnBadReports) {
  nlohmann::json base = eval_json();
  write_bytes(dir_.file("base.json"), base.dump());
  nlohmann::json worse = base;
  worse["per_problem"][0]["efficiency"] = base["per_problem"][0]["efficiency"].get<double>() - 0.2;
  write_bytes(dir_.file("worse.json"), worse.dump());
  write_bytes(dir_.file("bad.json"), "{\"per_problem\": [{\"problem\": 1}]}");

  auto same = run_cli(
      {"compare", "--baseline", dir_.file("base.json"), "--candidate", dir_.file("base.json")});
  EXPECT_EQ(same.code, kExitOk);
  EXPECT_NE(same.out.find("ACCEPTED"), std::string::npos);
  auto rejected = run_cli({"compare", "--baseline", dir_.file("base.json"), "--candidate",
                           dir_.file("worse.json"), "--json"});
  EXPECT_EQ(rejected.code, kExitFailure);
  EXPECT_FALSE(nlohmann::json::parse(rejected.out)["accepted"].get<bool>());
  auto bad = run_cli(
      {"compare", "--baseline", dir_.file("base.json"), "--candidate", dir_.file("bad.json")},
      true);
  EXPECT_EQ(bad.code, kExitInput);
  EXPECT_NE(bad.out.find("per_problem[0].problem"), std::string::npos);
  EXPECT_EQ(run_cli({"compare", "--baseline", dir_.file("missing.json"), "--candidate",
                     dir_.file("base.json")})
                .code,
            kExitInput);
}

}  // namespace
}  // namespace kselect::eval
