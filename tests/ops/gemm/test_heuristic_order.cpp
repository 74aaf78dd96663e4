// The no-model order of the GEMM operation: least operand traffic over the padded M x N extent.
#include <gtest/gtest.h>

#include "ops/operation.h"

namespace kselect {
namespace {

const char* kBig =
    "gemm_universal_fp32_rcr_compv4_cshuffle_intrawave_True_True_True_False_128x128x128_2x2x1_"
    "8x32x2";
const char* kRow =
    "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_1x256x64_1x2x1_1x64x1";
const char* kFour =
    "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_4x256x64_1x2x1_4x64x1";

TEST(GemmHeuristicOrder, SingleRowProblemsPreferSingleRowTiles) {
  // 1 x 256: 4096 * (1 + 1/256); 4 x 256 pads M to 4; 128 x 128 pads M to 128.
  const Operation& op = find_operation("gemm");
  auto order = op.heuristic_order("m=1,n=4096,k=512,layout=rcr,dtype=fp32", {kBig, kFour, kRow});
  EXPECT_EQ(order, (std::vector<std::string>{kRow, kFour, kBig}));
}

TEST(GemmHeuristicOrder, LargeShapesPreferLargeTiles) {
  const Operation& op = find_operation("gemm");
  // No padding anywhere: the 128x128 tile reads 2/128 operand elements per multiply-add.
  auto order = op.heuristic_order("m=1024,n=1024,k=512,layout=rcr,dtype=fp32", {kRow, kFour, kBig});
  EXPECT_EQ(order, (std::vector<std::string>{kBig, kFour, kRow}));
}

}  // namespace
}  // namespace kselect
