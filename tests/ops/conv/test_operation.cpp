// The conv operation through the seam: what the generic stages ask of it.
#include "ops/conv/operation.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// Imported convolutions (MIOpen's, CK's GPU benchmarks) are conv problems too: their texts are
// their own canonical forms, and the CPU kernels refuse what they cannot run, saying why.
TEST(ConvOperation, ImportedProblemsAreDataItsKernelsRefuse) {
  const std::string miopen =
      "device=gfx90a68,dir=F,dtype=fp16,layout=NCHW,n=32,c=64,k=128,g=1,di=1,hi=56,wi=56,z=1,"
      "y=3,x=3,do=1,ho=28,wo=28,pad_d=0,pad_h=1,pad_w=1,stride_d=1,stride_h=2,stride_w=2,"
      "dil_d=1,dil_h=1,dil_w=1,bias=0";
  const std::string ck =
      "n=2,c=8,k=16,g=1,di=9,hi=10,wi=10,z=3,y=3,x=3,do=5,ho=8,wo=8,pad_d=1,pad_h=1,pad_w=1,"
      "stride_d=2,stride_h=1,stride_w=1,dil_d=1,dil_h=2,dil_w=2,dir=F,dtype=fp32,device=unknown";
  EXPECT_EQ(op().canonical_problem(miopen, "test"), miopen);
  EXPECT_EQ(op().canonical_problem(ck, "test"), ck);
  // Spelt otherwise, the same problem: the source's order, MIOpen's direction letter.
  std::string reordered = miopen;
  reordered.replace(reordered.find("dir=F"), 5, "dir=fwd");
  EXPECT_EQ(op().canonical_problem(reordered, "test"), miopen);
  // Through a shape CSV (its columns in problem_columns order) and back: the same texts.
  EXPECT_EQ(parse_shape_csv(op(), format_shape_csv(op(), {miopen, ck}), "imported.csv"),
            (std::vector<std::string>{miopen, ck}));
  // A native problem names no device and keeps its native form.
  const std::string native =
      op().canonical_problem("n=1,c=4,k=4,hi=8,wi=8,y=3,x=3,dir=F,dtype=fp32", "test");
  EXPECT_NE(native.find("dir=fwd,dtype=fp32,layout=nhwgc"), std::string::npos) << native;
  EXPECT_EQ(native.find("device"), std::string::npos);

  const std::string fp32_kernel =
      op().kernel_names("tiny", KeyValues::parse("dtype=fp32,dir=fwd")).front();
  const std::string fp32_nchw =
      "device=gfx90a68,dir=F,dtype=fp32,layout=NCHW,n=32,c=64,k=128,g=1,di=1,hi=56,wi=56,z=1,"
      "y=3,x=3,do=1,ho=28,wo=28,pad_d=0,pad_h=1,pad_w=1,stride_d=1,stride_h=2,stride_w=2,"
      "dil_d=1,dil_h=1,dil_w=1,bias=0";
  EXPECT_EQ(op().unsupported_reason(fp32_kernel, miopen),
            "dtype mismatch: kernel fp32, problem fp16");
  const std::string layout = op().unsupported_reason(fp32_kernel, fp32_nchw);
  EXPECT_EQ(layout.rfind("layout mismatch: kernel ", 0), 0u) << layout;
  EXPECT_NE(layout.find(", problem NCHW"), std::string::npos) << layout;
  auto catalogue = op().catalogue({fp32_kernel});
  EXPECT_TRUE(catalogue->supported(miopen).empty());
  EXPECT_EQ(catalogue->workspace_bytes(0, miopen), 0);
  EXPECT_EQ(op().heuristic_order(miopen, {fp32_kernel}), std::vector<std::string>{fp32_kernel});
  EXPECT_THROW(op().make_workload(miopen, 1), InputError);  // it cannot run it

  // Its own kernels are its rule sets'; a MIOpen solver stored under conv is imported.
  EXPECT_TRUE(op().owns_kernel(fp32_kernel));
  EXPECT_FALSE(op().owns_kernel("ConvBinWinograd3x3U"));
  EXPECT_EQ(&learning_operation(op(), {fp32_kernel}), &op());
  EXPECT_EQ(&learning_operation(op(), {fp32_kernel, "ConvBinWinograd3x3U"}),
            &imported_data_operation());

  // The shape CSV and the store have columns for what imported problems add.
  auto columns = op().problem_columns();
  EXPECT_NE(std::find(columns.begin(), columns.end(), "device"), columns.end());
  EXPECT_NE(std::find(columns.begin(), columns.end(), "bias"), columns.end());
  try {
    op().canonical_problem("device=x,dir=F,dtype=fp16,n=1,c=4,k=4,hi=8,wi=8,y=3,x=3", "s.csv");
    FAIL();
  } catch (const InputError& e) {  // an imported problem gives every field
    EXPECT_NE(std::string(e.what()).find("s.csv: field 'ho'"), std::string::npos) << e.what();
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
