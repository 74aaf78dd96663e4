// kselect eval --protocol strict|transfer end to end on the shipped Kernel Tuner caches (read in
// place from ../shared/data) and on a small imported find-db written here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <vector>

#include "../data/temp_dir.h"
#include "cli_runner.h"

namespace kselect {
namespace {

using kselect::testing::run_cli;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;

const std::string kData = KSELECT_SHARED_DATA_DIR;

TEST(EvalProtocolsCli, TransferRanksEachHeldOutGpu) {
  std::vector<std::string> caches;
  for (const char* gpu : {"A100", "MI250X", "W6600"}) {
    caches.push_back(kData + "/kernel-tuner/convolution_milo_" + gpu + ".json.gz");
    if (!std::filesystem::exists(caches.back()))
      GTEST_SKIP() << "shared data not present: " << caches.back();
  }
  TempDir dir;
  const std::string db = dir.file("kt.sqlite");
  for (const auto& cache : caches) {
    auto imported = run_cli({"import", "kernel-tuner", cache, "--db", db, "--quiet", "--json"});
    ASSERT_EQ(imported.code, 0) << imported.out;
    // A present file that yields nothing is a failure, not a reason to skip.
    ASSERT_GT(nlohmann::json::parse(imported.out)["added"].get<long>(), 0) << cache;
  }
  auto r = run_cli({"eval", "--protocol", "transfer", "--db", db, "--transfer-trees", "20",
                    "--threads", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["devices"].size(), 3u);
  for (const auto& d : j["devices"]) {
    EXPECT_EQ(d["kernels"], 4362) << d;
    EXPECT_GE(d["topk_efficiency"].get<double>(), d["top1_efficiency"].get<double>()) << d;
    EXPECT_GT(d["random_topk_efficiency"].get<double>(), d["random_efficiency"].get<double>());
  }
  // A model is not what these protocols evaluate.
  EXPECT_EQ(run_cli({"eval", "--protocol", "transfer", "--db", db, "--model", "m"}).code, 3);
  EXPECT_EQ(
      run_cli({"eval", "--protocol", "transfer", "--db", db, "--default-margin", "0.05"}).code, 3);
}

// A find-db of 60 geometries x 2 directions where "Gemm1x1" applies only to 1x1 filters and
// wins there, "Direct" wins 3x3 problems with few channels and "Wino" the others; each line
// lists only its two fastest applicable solvers.
std::string synthetic_find_db() {
  std::string text;
  for (int g = 0; g < 60; ++g) {
    int c = 4 << (g % 6), k = 8 << (g % 5), hw = 7 + g, y = g % 2 ? 3 : 1;
    for (const char* dir : {"F", "W"}) {
      std::string key = std::to_string(c) + "-" + std::to_string(hw) + "-" + std::to_string(hw) +
                        "-" + std::to_string(y) + "x" + std::to_string(y) + "-" +
                        std::to_string(k) + "-" + std::to_string(hw - y + 1) + "-" +
                        std::to_string(hw - y + 1) + "-4-0x0-1x1-1x1-0-NCHW-FP32-" + dir;
      std::string direct = "ConvDirect:" + std::to_string(1 + c / 64.0) + ",0,miopenDirect";
      std::string naive = "ConvNaive:" + std::to_string(9 + c / 8.0) + ",0,miopenDirect";
      std::string best =
          y == 1 ? "Gemm1x1:0.5,0,miopenGEMM" : (c >= 32 ? "Wino:0.8,0,miopenWinograd" : direct);
      std::string second = y == 1 || c >= 32 ? direct : naive;
      text += key + "=" + best + ";" + second + "\n";
    }
  }
  return text;
}

// A find-db's rows are conv problems whose kernels are MIOpen's solvers: train without --op
// learns them through the generic op, and --op conv says why it cannot.
TEST(EvalProtocolsCli, AnImportedFindDbIsConvDataTheGenericOpLearns) {
  TempDir dir;
  const std::string fdb = dir.file("synthetic.fdb.txt"), db = dir.file("fdb.sqlite");
  write_bytes(fdb, synthetic_find_db());
  ASSERT_EQ(run_cli({"import", "miopen-fdb", fdb, "--db", db, "--device", "test", "--quiet"}).code,
            0);
  auto info = run_cli({"db", "info", db, "--json"});
  ASSERT_EQ(info.code, 0) << info.out;
  EXPECT_EQ(nlohmann::json::parse(info.out)["runs"][0]["op"], "conv");

  const std::string model = dir.file("model");
  auto trained = run_cli({"train", "--db", db, "--out", model, "--trees", "5", "--folds", "2",
                          "--target", "latency", "--json"});
  ASSERT_EQ(trained.code, 0) << trained.out;
  std::ifstream spec_in(model + "/feature_spec.json");
  auto spec = nlohmann::json::parse(spec_in);
  EXPECT_EQ(spec["op"], "generic");
  EXPECT_EQ(spec["data_op"], "conv");
  auto eval = run_cli({"eval", "--db", db, "--model", model, "--json"});
  ASSERT_EQ(eval.code, 0) << eval.out;

  auto own = run_cli({"train", "--db", db, "--op", "conv", "--out", dir.file("m2")},
                     /*with_stderr=*/true);
  EXPECT_EQ(own.code, 3);
  EXPECT_NE(own.out.find("only --op generic learns from"), std::string::npos) << own.out;
}

TEST(EvalProtocolsCli, StrictProtocolOnAnImportedFindDb) {
  TempDir dir;
  const std::string fdb = dir.file("synthetic.fdb.txt"), db = dir.file("fdb.sqlite");
  write_bytes(fdb, synthetic_find_db());
  ASSERT_EQ(run_cli({"import", "miopen-fdb", fdb, "--db", db, "--device", "test", "--quiet"}).code,
            0);
  const std::string report = dir.file("strict.json");
  auto r =
      run_cli({"eval", "--protocol", "strict", "--db", db, "--trees", "20", "--json-file", report});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("unlisted"), std::string::npos) << r.out;
  std::ifstream in(report);
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["problems"], 120);
  EXPECT_GE(j["top1"].get<double>(), 0.9);
  EXPECT_LE(j["unlisted"].get<double>(), 0.05);
  EXPECT_TRUE(j.contains("baseline"));
  EXPECT_LE(j["worst"].size(), 10u);
  EXPECT_EQ(j["slices"]["context"].size(), 2u);
  EXPECT_EQ(run_cli({"eval", "--protocol", "strict", "--db", db, "--method", "magic"}).code, 3);

  auto forward = run_cli(
      {"eval", "--protocol", "strict", "--db", db, "--trees", "20", "--where", "dir=F", "--json"});
  ASSERT_EQ(forward.code, 0) << forward.out;
  auto f = nlohmann::json::parse(forward.out);
  EXPECT_EQ(f["problems"], 60);
  EXPECT_EQ(f["slices"]["context"].size(), 1u);
  EXPECT_EQ(run_cli({"eval", "--protocol", "strict", "--db", db, "--where", "dir=X"}).code, 3);

  // "!=" excludes; --picks writes one CSV row per problem.
  const std::string picks = dir.file("picks.csv");
  auto backward = run_cli({"eval", "--protocol", "strict", "--db", db, "--trees", "20", "--where",
                           "dir!=F", "--picks", picks, "--json"});
  ASSERT_EQ(backward.code, 0) << backward.out;
  EXPECT_EQ(nlohmann::json::parse(backward.out)["problems"], 60);
  std::ifstream picks_in(picks);
  std::string line;
  int lines = 0;
  while (std::getline(picks_in, line)) ++lines;
  EXPECT_EQ(lines, 61);

  // "=" and "!=" mix; several "!=" on one field all apply; --picks needs the strict protocol.
  auto mixed = run_cli({"eval", "--protocol", "strict", "--db", db, "--trees", "10", "--where",
                        "dir=F,dir!=B,dtype!=fp16", "--dtype", "fp32", "--json"});
  ASSERT_EQ(mixed.code, 0) << mixed.out;
  EXPECT_EQ(nlohmann::json::parse(mixed.out)["problems"], 60);
  EXPECT_EQ(run_cli({"eval", "--protocol", "strict", "--db", db, "--where", "dir!=F,dir!=W"}).code,
            3);
  EXPECT_EQ(run_cli({"eval", "--protocol", "transfer", "--db", db, "--picks", picks}).code, 3);

  // The same file imported again under another name lists each kernel once.
  const std::string again = dir.file("again.fdb.txt");
  write_bytes(again, synthetic_find_db());
  ASSERT_EQ(
      run_cli({"import", "miopen-fdb", again, "--db", db, "--device", "test", "--quiet"}).code, 0);
  auto twice = run_cli({"eval", "--protocol", "strict", "--db", db, "--trees", "10", "--json"});
  ASSERT_EQ(twice.code, 0) << twice.out;
  EXPECT_EQ(nlohmann::json::parse(twice.out)["rows"], j["rows"]);

  // Boosting settings reach the protocol; bad ones are input errors.
  auto tuned = run_cli({"eval", "--protocol", "strict", "--db", db, "--trees", "10", "--eta", "0.3",
                        "--max-leaves", "7", "--min-child-weight", "1", "--seed", "3", "--json"});
  ASSERT_EQ(tuned.code, 0) << tuned.out;
  EXPECT_EQ(nlohmann::json::parse(tuned.out)["problems"], 120);
  EXPECT_EQ(run_cli({"eval", "--protocol", "strict", "--db", db, "--eta", "0"}).code, 3);
  EXPECT_EQ(run_cli({"eval", "--protocol", "strict", "--db", db, "--max-leaves", "1"}).code, 3);
}

}  // namespace
}  // namespace kselect
