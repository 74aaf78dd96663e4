#include "ops/gemm/problem.h"

#include <gtest/gtest.h>

namespace kselect::gemm {
namespace {

TEST(GemmProblemDescription, TextInBothOrders) {
  ProblemDescription p{1024, 512, 64, 1, "rcr", "fp16", "gfx942"};
  EXPECT_EQ(to_text(p, TextOrder::kImported),
            "m=1024,n=512,k=64,split_k=1,layout=rcr,dtype=fp16,device=gfx942");
  p.layout = p.device = "";
  EXPECT_EQ(to_text(p, TextOrder::kImported), "m=1024,n=512,k=64,split_k=1,dtype=fp16");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 1024 * 512 * 64);
}

TEST(GemmProblemDescription, NativeProblemsWriteTheirCanonicalText) {
  GemmProblem p = GemmProblem::parse("m=128,n=1536,k=7168,layout=crr,dtype=bf16,split_k=4");
  EXPECT_EQ(p.describe(), (ProblemDescription{128, 1536, 7168, 4, "crr", "bf16", ""}));
  EXPECT_EQ(p.to_string(), "m=128,n=1536,k=7168,layout=crr,dtype=bf16,split_k=4");
  EXPECT_EQ(to_text(p.describe(), TextOrder::kNative), p.to_string());
  EXPECT_EQ(p.describe().flops(), p.flops());
}

}  // namespace
}  // namespace kselect::gemm
