// The no-model order of the GEMM operation: least M x N tile padding first, ties in set order.
#include <gtest/gtest.h>

#include "ops/operation.h"

namespace kselect {
namespace {

const char* kBig = "gemm_universal_fp32_rcr_compv4_cshuffle_intrawave_True_True_True_False_128x128x128_2x2x1_8x32x2";
const char* kRow = "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_1x256x64_1x2x1_1x64x1";
const char* kFour = "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_4x256x64_1x2x1_4x64x1";

TEST(GemmHeuristicOrder, SingleRowProblemsPreferSingleRowTiles) {
  const Operation& op = find_operation("gemm");
  auto order = op.heuristic_order("m=1,n=4096,k=512,layout=rcr,dtype=fp32", {kBig, kFour, kRow});
  EXPECT_EQ(order, (std::vector<std::string>{kRow, kFour, kBig}));
}

TEST(GemmHeuristicOrder, TiesKeepTheSetOrder) {
  const Operation& op = find_operation("gemm");
  // 1024 x 1024 is a multiple of every tile: no padding anywhere, so the set order stays.
  auto order = op.heuristic_order("m=1024,n=1024,k=512,layout=rcr,dtype=fp32", {kBig, kFour, kRow});
  EXPECT_EQ(order, (std::vector<std::string>{kBig, kFour, kRow}));
}

}  // namespace
}  // namespace kselect
