// End-to-end tests of the conv operation on the real binary: its rule sets through
// `kselect configs` and `kselect rules check`, a measured sweep through `kselect bench`, and
// learning on a tiny sweep: train, eval, predict, select and run (and --where).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../data/temp_dir.h"
#include "cli_runner.h"
#include "core/error.h"
#include "data/store.h"

namespace kselect {
namespace {

using testing::run_cli;
using testing::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ConvCli, ConfigsListsConvKernels) {
  auto tiny = run_cli({"configs", "--op", "conv", "--rules", "tiny"});
  ASSERT_EQ(tiny.code, 0) << tiny.out;
  EXPECT_EQ(tiny.out.rfind("grouped_conv_", 0), 0u) << tiny.out;
  auto filtered = run_cli({"configs", "--op", "conv", "--rules", "default", "--dtype", "bf16",
                           "--filter", "dir=bwd_weight,ndim=3", "--json"});
  ASSERT_EQ(filtered.code, 0) << filtered.out;
  auto kernels = nlohmann::json::parse(filtered.out);
  ASSERT_FALSE(kernels.empty());
  for (const auto& k : kernels) {
    EXPECT_EQ(k["dtype"], "bf16");
    EXPECT_EQ(k["layout"], "ndhwgc");
  }
  EXPECT_EQ(run_cli({"configs", "--op", "conv", "--rules", "tiny", "--filter", "colour=red"}).code,
            kExitInput);
}

TEST(ConvCli, RulesCheckPassesForTheConvRules) {
  auto check = run_cli({"rules", "check", "--json"});
  ASSERT_EQ(check.code, 0) << check.out;
  EXPECT_NE(check.out.find("conv_cpu"), std::string::npos);
}

// CK's GPU kernels: listed by target, checked by `rules check`, refused by `bench`.
TEST(ConvCli, ConfigsListsCksGpuKernelsByArch) {
  auto tiny = run_cli({"configs", "--op", "conv", "--arch", "gfx950", "--rules", "tiny"});
  ASSERT_EQ(tiny.code, 0) << tiny.out;
  std::set<std::string> names;
  std::istringstream lines(tiny.out);
  for (std::string line; std::getline(lines, line);) names.insert(line);
  EXPECT_EQ(names.size(), 102u);
  for (const auto& name : names) EXPECT_EQ(name.rfind("grouped_conv_", 0), 0u) << name;
  // The CPU op's own kernels stay the default, and differ from the GPU ones.
  auto cpu = run_cli({"configs", "--op", "conv", "--rules", "tiny"});
  auto cpu_arch = run_cli({"configs", "--op", "conv", "--arch", "cpu", "--rules", "tiny"});
  ASSERT_EQ(cpu.code, 0);
  EXPECT_EQ(cpu.out, cpu_arch.out);
  EXPECT_EQ(cpu.out.find("fp16"), std::string::npos);
  EXPECT_EQ(names.count(cpu.out.substr(0, cpu.out.find('\n'))), 0u);

  auto fwd = run_cli({"configs", "--op", "conv", "--arch", "gfx942", "--rules", "default",
                      "--dtype", "fp16", "--filter", "direction=fwd,ndim=2", "--json"});
  ASSERT_EQ(fwd.code, 0) << fwd.out;
  auto kernels = nlohmann::json::parse(fwd.out);
  EXPECT_EQ(kernels.size(), 76u);
  for (const auto& k : kernels) EXPECT_EQ(k["dtype"], "fp16");

  auto unknown = run_cli({"configs", "--op", "conv", "--arch", "gfx1100"}, true);
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_NE(unknown.out.find("targets: cpu, gfx942, gfx950"), std::string::npos) << unknown.out;
  EXPECT_EQ(run_cli({"configs", "--op", "gemm", "--arch", "gfx950"}).code, kExitUsage);
}

TEST(ConvCli, RulesCheckJsonCoversTheGpuFiles) {
  auto check = run_cli({"rules", "check", "--json"});
  ASSERT_EQ(check.code, 0) << check.out;
  std::map<std::string, nlohmann::json> by_target;
  for (const auto& report : nlohmann::json::parse(check.out))
    if (report["op"] == "conv") by_target[report["target"]] = report;
  ASSERT_EQ(by_target.size(), 3u);
  for (const char* arch : {"gfx942", "gfx950"}) {
    const auto& report = by_target[arch];
    EXPECT_TRUE(report["ok"].get<bool>()) << report.dump();
    EXPECT_EQ(report["source"], std::string("rules/conv_") + arch + ".json");
    std::map<std::string, nlohmann::json> sets;
    for (const auto& set : report["sets"]) sets[set["name"]] = set;
    EXPECT_EQ(sets["pipeline-variants"]["per_group"]["fwd/fp16/2"], 30);
    EXPECT_EQ(sets["default"]["per_group"]["fwd/bf16/2"], 76);
    EXPECT_EQ(sets["tiny"]["total"], 102);
    EXPECT_LT(sets["tiny"]["total"], sets["full-tests"]["total"]);
    EXPECT_LT(sets["full-tests"]["total"], sets["full"]["total"]);
  }
}

TEST(ConvCli, BenchRefusesGpuKernels) {
  TempDir dir;
  const std::string db = dir.file("gpu.sqlite");
  auto refused = run_cli({"bench", "--op", "conv", "--arch", "gfx950", "--rules", "tiny",
                          "--shapes", dir.file("none.csv"), "--db", db},
                         true);
  EXPECT_EQ(refused.code, kExitUsage);
  EXPECT_NE(refused.out.find("cannot build or run"), std::string::npos) << refused.out;
  EXPECT_FALSE(std::ifstream(db).good());  // refused before anything was opened
  auto unknown = run_cli({"bench", "--op", "conv", "--arch", "gfx1100", "--stability"}, true);
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_NE(unknown.out.find("do not exist"), std::string::npos) << unknown.out;
}

TEST(ConvCli, BenchMeasuresRealConvKernels) {
  TempDir dir;
  const std::string shapes = dir.file("conv.csv"), db = dir.file("conv.sqlite");
  {
    std::ofstream out(shapes);
    out << "n,c,k,g,hi,wi,y,x,pad_h,pad_w,stride_h,stride_w,dir,dtype\n"
           "1,16,16,1,8,8,3,3,1,1,1,1,fwd,fp32\n"
           "1,16,16,1,8,8,1,1,0,0,1,1,bwd_weight,fp32\n";
  }
  auto sweep = run_cli({"bench", "--op", "conv", "--rules", "tiny", "--shapes", shapes, "--db", db,
                        "--threads", "1", "--warmup", "1", "--repeat", "2", "--verify",
                        "--no-progress", "--json"});
  ASSERT_EQ(sweep.code, 0) << sweep.out;
  data::Store store(db, data::StoreOptions{.read_only = true});
  auto rows = store.read_measurements();
  std::map<std::string, int> valid_per_problem;
  for (const auto& m : rows) {
    EXPECT_EQ(m.op, "conv");
    EXPECT_EQ(m.kernel.rfind("grouped_conv_", 0), 0u);
    if (m.valid) {
      EXPECT_GT(m.tflops, 0.0) << m.kernel;
      EXPECT_TRUE(m.verified) << m.kernel;
      ++valid_per_problem[m.problem];
    } else {
      // Only kernels whose specialisation or copy width the problem does not match are
      // refused, and the row says why; a wrong result would be invalid too.
      EXPECT_EQ(m.reason.find("wrong result"), std::string::npos) << m.kernel << ": " << m.reason;
      EXPECT_FALSE(m.reason.empty()) << m.kernel;
    }
  }
  EXPECT_EQ(valid_per_problem.size(), 2u);  // every problem ran kernels of its direction
}

// A tiny sweep (the `tiny` set on six small problems, four forward geometries and one of each
// backward direction), trained with few trees, then every learning verb on it.
TEST(ConvCli, LearnsAndSelectsFromATinySweep) {
  TempDir dir;
  const std::string shapes = dir.file("conv.csv"), db = dir.file("conv.sqlite");
  const std::string all = dir.file("all"), fwd = dir.file("fwd");
  {
    std::ofstream out(shapes);
    out << "n,c,k,g,hi,wi,y,x,pad_h,pad_w,stride_h,stride_w,dir,dtype\n"
           "1,16,16,1,8,8,3,3,1,1,1,1,fwd,fp32\n"
           "1,16,32,1,6,6,1,1,0,0,1,1,fwd,fp32\n"
           "2,8,16,2,6,6,3,3,1,1,2,2,fwd,fp32\n"
           "1,32,16,1,5,5,3,3,0,0,1,1,fwd,fp32\n"
           "1,16,16,1,8,8,3,3,1,1,1,1,bwd_data,fp32\n"
           "1,16,16,1,8,8,1,1,0,0,1,1,bwd_weight,fp32\n";
  }
  auto sweep = run_cli({"bench", "--op", "conv", "--rules", "tiny", "--shapes", shapes, "--db", db,
                        "--threads", "1", "--warmup", "1", "--repeat", "2", "--no-progress"});
  ASSERT_EQ(sweep.code, 0) << sweep.out;

  const std::vector<std::string> quick = {"--folds",   "2", "--trees",          "5",
                                          "--threads", "1", "--early-stopping", "5"};
  auto train_args = [&](std::vector<std::string> args) {
    args.insert(args.end(), quick.begin(), quick.end());
    return args;
  };
  auto train = run_cli(train_args({"train", "--db", db, "--out", all, "--json"}));
  ASSERT_EQ(train.code, 0) << train.out;
  const auto trained = nlohmann::json::parse(train.out);
  // Six problems, five geometries: the bwd_data problem is the first forward one's geometry,
  // and a geometry's directions share a fold.
  EXPECT_EQ(trained["unique_shapes"], 5);
  auto spec = nlohmann::json::parse(read_text(all + "/feature_spec.json"));
  EXPECT_EQ(spec["op"], "conv");
  EXPECT_EQ(spec["schema"], "kselect");
  EXPECT_FALSE(spec.contains("where"));

  auto eval = run_cli({"eval", "--model", all, "--db", db, "--rules", "tiny", "--json"});
  ASSERT_EQ(eval.code, 0) << eval.out;
  auto report = nlohmann::json::parse(eval.out);
  EXPECT_EQ(report["problems"], 6);
  EXPECT_EQ(report["slices"]["direction"]["fwd"]["problems"], 4);
  EXPECT_EQ(report["slices"]["ndim"]["2d"]["problems"], 6);
  const double mean = report["efficiency"]["mean"].get<double>();
  EXPECT_GT(mean, 0.0);
  EXPECT_LE(mean, 1.0);

  // ck97 trains and evaluates through the same verbs.
  const std::string ck = dir.file("ck97");
  ASSERT_EQ(run_cli(train_args({"train", "--db", db, "--out", ck, "--schema", "ck97"})).code, 0);
  EXPECT_EQ(nlohmann::json::parse(read_text(ck + "/feature_spec.json"))["feature_names"].size(),
            97u);

  // --where: a forward-only model, recorded in it and taken by eval and features.
  auto where =
      run_cli(train_args({"train", "--db", db, "--out", fwd, "--where", "dir=fwd", "--json"}));
  ASSERT_EQ(where.code, 0) << where.out;
  EXPECT_EQ(nlohmann::json::parse(where.out)["unique_shapes"], 4);
  EXPECT_EQ(nlohmann::json::parse(read_text(fwd + "/feature_spec.json"))["where"], "dir=fwd");
  auto fwd_eval = run_cli({"eval", "--model", fwd, "--db", db, "--rules", "tiny", "--json"});
  ASSERT_EQ(fwd_eval.code, 0) << fwd_eval.out;
  EXPECT_EQ(nlohmann::json::parse(fwd_eval.out)["problems"], 4);
  auto table = run_cli({"features", "--db", db, "--where", "dir!=fwd,layout=nhwgc"});
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_EQ(table.out.find("dir=fwd"), std::string::npos);
  EXPECT_NE(table.out.find("dir=bwd_data"), std::string::npos);
  EXPECT_EQ(run_cli({"train", "--db", db, "--out", dir.file("bad"), "--where", "dir"}).code,
            kExitInput);

  // A route: the forward model and one of the backward directions behind one directory;
  // selection and evaluation give each problem to its member.
  const std::string bwd = dir.file("bwd"), route = dir.file("route");
  ASSERT_EQ(run_cli(train_args({"train", "--db", db, "--out", bwd, "--where", "dir!=fwd"})).code,
            0);
  auto routed = run_cli({"route", "--out", route, "--model", fwd, "--model", bwd});
  ASSERT_EQ(routed.code, 0) << routed.out;
  EXPECT_NE(routed.out.find("dir!=fwd -> " + bwd), std::string::npos) << routed.out;
  auto route_eval = run_cli({"eval", "--model", route, "--db", db, "--rules", "tiny", "--json"});
  ASSERT_EQ(route_eval.code, 0) << route_eval.out;
  EXPECT_EQ(nlohmann::json::parse(route_eval.out)["problems"], 6);
  auto backward = run_cli({"select", "--model", route, "--problem",
                           "n=1,c=16,k=16,hi=8,wi=8,y=1,x=1,dir=bwd_weight,dtype=fp32", "--rules",
                           "tiny", "--strategy", "ml", "--require-model", "--json"});
  ASSERT_EQ(backward.code, 0) << backward.out;
  EXPECT_EQ(nlohmann::json::parse(backward.out)["level"], "model") << backward.out;
  EXPECT_EQ(nlohmann::json::parse(backward.out)["kernel"].get<std::string>().rfind(
                "grouped_conv_bwd_weight", 0),
            0u);
  EXPECT_EQ(run_cli({"route", "--out", dir.file("one"), "--model", fwd}).code, kExitInput);
  EXPECT_EQ(run_cli({"route", "--out", dir.file("first"), "--model", all, "--model", fwd}).code,
            kExitInput);  // the catch-all first would take every problem

  const std::string problem = "n=1,c=16,k=16,hi=8,wi=8,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32";
  auto predict =
      run_cli({"predict", "--model", all, "--problem", problem, "--rules", "tiny", "--json"});
  ASSERT_EQ(predict.code, 0) << predict.out;
  const auto ranked = nlohmann::json::parse(predict.out)["ranked"];
  ASSERT_FALSE(ranked.empty()) << predict.out;
  for (const auto& k : ranked)
    EXPECT_EQ(k["kernel"].get<std::string>().rfind("grouped_conv_fwd_fp32_nhwgc_2d", 0), 0u) << k;

  auto select = run_cli({"select", "--model", all, "--op", "conv", "--problem", problem, "--rules",
                         "tiny", "--strategy", "ml", "--require-model", "--json"});
  ASSERT_EQ(select.code, 0) << select.out;
  const auto decision = nlohmann::json::parse(select.out);
  EXPECT_EQ(decision["level"], "model") << select.out;
  auto run = run_cli({"run", "--model", all, "--op", "conv", "--problem", problem, "--rules",
                      "tiny", "--strategy", "ml", "--require-model", "--runs", "2", "--json"});
  ASSERT_EQ(run.code, 0) << run.out;
  const auto ran = nlohmann::json::parse(run.out);
  EXPECT_TRUE(ran["verified"].get<bool>());
  EXPECT_EQ(ran["kernel"], decision["kernel"]);
}

}  // namespace
}  // namespace kselect
