#include "ops/gemm/config.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace kselect::gemm {

TEST(GemmConfigName, MatchesCkFormat) {
  GemmConfig c;
  c.dtype = DType::kBf16;
  c.layout = Layout::kRcr;
  c.pipeline = Pipeline::kCompV4;
  c.epilogue = Epilogue::kCShuffle;
  c.scheduler = Scheduler::kIntrawave;
  c.pad_m = c.pad_n = c.pad_k = true;
  c.persistent = false;
  c.tile_m = 128;
  c.tile_n = 128;
  c.tile_k = 32;
  c.warp_m = 2;
  c.warp_n = 2;
  c.warp_k = 1;
  c.warp_tile_m = 32;
  c.warp_tile_n = 32;
  c.warp_tile_k = 16;
  EXPECT_EQ(c.name(),
            "gemm_universal_bf16_rcr_compv4_cshuffle_intrawave_True_True_True_False_128x128x32_"
            "2x2x1_32x32x16");
  EXPECT_EQ(GemmConfig::parse_name(c.name()), c);
}

TEST(GemmConfigName, RejectsMalformedNames) {
  for (const char* bad :
       {"", "gemm_universal_",
        "gemm_universal_fp64_rcr_mem_default_intrawave_True_True_True_False_8x8x8_1x1x1_1x16x1",
        "gemm_universal_fp32_rcr_mem_default_intrawave_Yes_True_True_False_8x8x8_1x1x1_1x16x1",
        "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_8x8_1x1x1_1x16x1",
        "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_8x8x0_1x1x1_1x16x1"}) {
    EXPECT_FALSE(GemmConfig::from_name(bad).has_value()) << bad;
    EXPECT_THROW(GemmConfig::parse_name(bad), InputError) << bad;
  }
}

TEST(GemmProblem, ParsesAndFormatsCanonically) {
  auto p = GemmProblem::parse("m=128, n=1536,k=7168,layout=crr,dtype=bf16");
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.layout, Layout::kCrr);
  EXPECT_EQ(p.to_string(), "m=128,n=1536,k=7168,layout=crr,dtype=bf16");
  EXPECT_EQ(GemmProblem::parse(p.to_string()), p);
}

TEST(GemmProblem, RejectsBadInputNamingTheField) {
  try {
    GemmProblem::parse("m=0,n=1,k=1");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(">= 1"), std::string::npos);
  }
  try {
    GemmProblem::parse("m=4,nn=1,k=1", "shapes.csv:3");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'nn'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(GemmProblem::parse("m=4,n=x,k=1"), InputError);
  EXPECT_THROW(GemmProblem::parse("m=4,n=4,k=4,layout=abc"), InputError);
  EXPECT_THROW(GemmProblem::parse("m=4,n=4,k=4,split_k=5"), InputError);
}

}  // namespace kselect::gemm
