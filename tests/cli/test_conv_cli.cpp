// End-to-end tests of the conv operation on the real binary: its rule sets through
// `kselect configs` and `kselect rules check`, and a measured sweep through `kselect bench`.
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

}  // namespace
}  // namespace kselect
