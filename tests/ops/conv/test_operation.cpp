// The conv operation through the seam: what the generic stages ask of it.
#include "ops/conv/operation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "ops/conv/config.h"
#include "ops/operation.h"
#include "ops/shape_csv.h"

namespace kselect::conv {
namespace {

const Operation& op() {
  return find_operation("conv");
}

TEST(ConvOperation, IsRegistered) {
  EXPECT_EQ(&op(), &operation());
  EXPECT_EQ(op().name(), "conv");
  EXPECT_TRUE(op().capabilities().kernels_from_rule_sets);
  EXPECT_FALSE(op().capabilities().learns_from_any_op);
  EXPECT_NE(&default_operation(), &op());  // gemm stays the default
}

TEST(ConvOperation, ProblemsThroughAShapeCsv) {
  const std::string csv =
      "n,c,k,g,hi,wi,y,x,pad_h,pad_w,stride_h,stride_w,dir,dtype\n"
      "2,64,64,1,28,28,3,3,1,1,1,1,fwd,fp32\n"
      "1,32,32,32,14,14,3,3,1,1,2,2,bwd_data,bf16\n";
  auto problems = parse_shape_csv(op(), csv, "shapes.csv");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("ho=28"), std::string::npos);
  EXPECT_NE(problems[1].find("ho=7"), std::string::npos);
  // Written back with every column and read again: the same problems.
  EXPECT_EQ(parse_shape_csv(op(), format_shape_csv(op(), problems), "again.csv"), problems);
  try {
    parse_shape_csv(op(), "n,c,k,hi,wi,y,x,dir,dtype\n1,8,8,2,2,3,3,fwd,fp32\n", "bad.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ho"), std::string::npos) << e.what();
  }
}

TEST(ConvOperation, KernelNamesFieldsAndFilters) {
  auto tiny = op().kernel_names("tiny", {});
  ASSERT_FALSE(tiny.empty());
  auto bf16 = op().kernel_names("tiny", KeyValues::parse("dtype=bf16,dir=bwd_weight"));
  ASSERT_FALSE(bf16.empty());
  EXPECT_LT(bf16.size(), tiny.size());
  for (const auto& name : bf16) {
    nlohmann::json fields = op().kernel_fields(name);
    EXPECT_EQ(fields["dtype"], "bf16");
    EXPECT_EQ(fields["dir"], "bwd_weight");
    EXPECT_EQ(fields["name"], name);
  }
  EXPECT_THROW(op().kernel_names("tiny", KeyValues::parse("colour=red")), InputError);
  EXPECT_THROW(op().kernel_names("nope", {}), InputError);
  auto both = op().kernel_names("tiny+default", {});
  EXPECT_GT(both.size(), tiny.size());
}

TEST(ConvOperation, WorkloadsVerifyEveryDirection) {
  for (const char* dir : {"fwd", "bwd_data", "bwd_weight"})
    for (const char* dtype : {"fp32", "bf16"}) {
      const std::string problem = op().canonical_problem(
          std::string("n=2,c=16,k=16,g=2,hi=9,wi=8,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,dir=") + dir +
              ",dtype=" + dtype,
          "test");
      auto workload = op().make_workload(problem, 3);
      EXPECT_GT(workload->flops(), 0);
      EXPECT_GT(op().workload_bytes(problem), workload->bytes());
      workload->rotate_operands(2);
      int ran = 0;
      for (const auto& kernel : op().kernel_names("default", {})) {
        if (!op().unsupported_reason(kernel, problem).empty()) continue;
        auto bound = op().bind(kernel, *workload, 2);
        bound->run();
        EXPECT_EQ(bound->verify(), "") << kernel << " on " << problem;
        bound->run();  // the second operand copy
        EXPECT_EQ(bound->verify(), "") << kernel << " on " << problem;
        ++ran;
      }
      EXPECT_GE(ran, 4) << problem;
    }
}

TEST(ConvOperation, UnsupportedKernelsAreRefusedWithTheReason) {
  const std::string problem =
      op().canonical_problem("n=1,c=8,k=8,hi=6,wi=6,y=3,x=3,dir=fwd,dtype=fp32", "test");
  const std::string bwd = op().kernel_names("default", KeyValues::parse("dir=bwd_data")).front();
  EXPECT_NE(op().unsupported_reason(bwd, problem).find("direction mismatch"), std::string::npos);
  auto workload = op().make_workload(problem, 1);
  EXPECT_THROW(op().bind(bwd, *workload, 1), InputError);
  EXPECT_THROW(op().unsupported_reason("grouped_conv_fwd_fp32", problem), InputError);
}

TEST(ConvOperation, HeuristicOrderPrefersSpecialisationsThatApply) {
  const std::string problem =
      op().canonical_problem("n=4,c=64,k=64,hi=14,wi=14,y=1,x=1,dir=fwd,dtype=fp32", "test");
  ConvConfig general;
  general.tile_m = 96, general.tile_n = 64, general.tile_k = 128;
  ConvConfig special = general;
  special.specialization = Specialization::kFilter1x1Pad0;
  ConvConfig small = general;  // a 48x32 block moves more operand data per multiply-add
  small.tile_m = 48, small.tile_n = 32;
  small.specialization = Specialization::kFilter1x1Stride1Pad0;
  const std::vector<std::string> ordered =
      op().heuristic_order(problem, {small.name(), general.name(), special.name()});
  EXPECT_EQ(ordered, (std::vector<std::string>{special.name(), general.name(), small.name()}));
}

}  // namespace
}  // namespace kselect::conv
