// End-to-end tests of the conv operation on the real binary: its rule sets through
// `kselect configs` and `kselect rules check`, and a measured sweep through `kselect bench`.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

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
