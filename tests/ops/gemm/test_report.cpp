#include "ops/gemm/report.h"
#include "ops/operation.h"

#include <gtest/gtest.h>

namespace kselect::gemm {
namespace {

TEST(GemmReport, ShapeFamilyBoundaries) {
  using Bin = std::string (*)(std::int64_t);
  struct Case {
    Bin bin;
    std::int64_t value;
    const char* bucket;
  };
  for (const Case& c : {Case{m_family_fp16, 7, "tiny"}, Case{m_family_fp16, 8, "small"},
                        Case{m_family_fp16, 127, "small"}, Case{m_family_fp16, 128, "medium"},
                        Case{m_family_fp16, 1024, "large"}, Case{m_family_eval, 31, "tiny"},
                        Case{m_family_eval, 32, "small"}, Case{m_family_eval, 256, "medium"},
                        Case{m_family_eval, 4095, "medium"}, Case{m_family_eval, 4096, "large"},
                        Case{k_regime, 511, "shallow"}, Case{k_regime, 512, "medium"},
                        Case{k_regime, 4096, "deep"}})
    EXPECT_EQ(c.bin(c.value), c.bucket) << c.value;
}

TEST(GemmReport, NonGemmProblemsOnlyHaveTheAllStratum) {
  GemmView conv = gemm_view("n=1,c=64", "grouped_conv_fwd_x");
  EXPECT_FALSE(conv.problem);
  EXPECT_TRUE(slice_buckets(conv).empty());
  EXPECT_EQ(regret_strata(conv, 2), std::vector<std::string>{"all"});
  GemmView bad_text = gemm_view("not a problem", "x");
  EXPECT_FALSE(bad_text.problem);
}

TEST(GemmReport, TheOperationAsksTheSameGroups) {
  const std::string problem = "m=16,n=48,k=4096,layout=ccr,dtype=bf16";
  ReportGroups groups = find_operation("gemm").report_groups(problem, "not_a_gemm_kernel", 2);
  GemmView v = gemm_view(problem, "not_a_gemm_kernel");
  EXPECT_EQ(groups.slices, slice_buckets(v));
  EXPECT_EQ(groups.strata, regret_strata(v, 2));
  // An op without report groups has the "all" stratum only.
  ReportGroups generic = find_operation("generic").report_groups(problem, "x", 2);
  EXPECT_TRUE(generic.slices.empty());
  EXPECT_EQ(generic.strata, std::vector<std::string>{"all"});
}

TEST(GemmReport, GemmProblemWithUnknownKernelHasShapeSlicesOnly) {
  GemmView v = gemm_view("m=16,n=48,k=4096,layout=ccr,dtype=bf16", "not_a_gemm_kernel");
  ASSERT_TRUE(v.problem);
  EXPECT_FALSE(v.picked);
  auto buckets = slice_buckets(v);
  EXPECT_EQ(buckets.size(), 5u);  // no pipeline slice without the kernel's configuration
  EXPECT_EQ(regret_strata(v, 2), (std::vector<std::string>{"all", "m_le_16", "large_k"}));
}

}  // namespace
}  // namespace kselect::gemm
