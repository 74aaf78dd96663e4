#include "ops/gemm/operation.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "ops/gemm/config.h"

namespace kselect::gemm {
namespace {

const Operation& op() {
  return operation();
}

TEST(GemmOperation, CanonicalProblemsAndFieldErrors) {
  EXPECT_EQ(op().name(), "gemm");
  EXPECT_EQ(op().canonical_problem(" n=4, m=3 ,k=5", "cli"), "m=3,n=4,k=5,layout=rcr,dtype=fp32");
  EXPECT_EQ(op().problem_columns(),
            (std::vector<std::string>{"m", "n", "k", "layout", "dtype", "split_k"}));
  try {
    op().canonical_problem("m=0,n=4,k=5", "f.csv:3");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "f.csv:3: field 'm': must be >= 1");
  }
  EXPECT_THROW(op().canonical_problem("m=1,n=4,k=5,layout=xyz", ""), InputError);
  EXPECT_THROW(op().canonical_problem("m=1,n=4,k=5,mm=3", ""), InputError);
}

// The memory a workload needs counts every operand and the packing: the 2^32 + 1 row problem
// of issue 30 needs far more than its A alone (16 GiB of fp32).
TEST(GemmOperation, WorkloadBytesCoverOperandsAndPacking) {
  const double a = 4.0 * (double(1ull << 32) + 1);
  EXPECT_GE(op().workload_bytes("m=4294967297,n=1,k=1,layout=rcr,dtype=fp32"), 3 * a);
  const double small = op().workload_bytes("m=64,n=32,k=16,layout=rcr,dtype=bf16");
  EXPECT_GE(small, 2.0 * (64 * 16 + 16 * 32) + 4.0 * 64 * 32);
  EXPECT_LT(small, 1e6);
}

TEST(GemmOperation, KernelNamesFilterByFields) {
  auto all = op().kernel_names("default", KeyValues());
  ASSERT_FALSE(all.empty());
  auto bf16_crr = op().kernel_names("default", KeyValues::parse("dtype=bf16,layout=crr"));
  ASSERT_FALSE(bf16_crr.empty());
  EXPECT_LT(bf16_crr.size(), all.size());
  for (const auto& name : bf16_crr) {
    nlohmann::json fields = op().kernel_fields(name);
    EXPECT_EQ(fields["name"], name);
    EXPECT_EQ(fields["dtype"], "bf16");
    EXPECT_EQ(fields["layout"], "crr");
  }
  EXPECT_THROW(op().kernel_names("default", KeyValues::parse("colour=red")), InputError);
  EXPECT_THROW(op().kernel_names("no-such-set", KeyValues()), InputError);
}

TEST(GemmOperation, MismatchedKernelsAreUnsupportedWithAReason) {
  auto fp32 = op().kernel_names("default", KeyValues::parse("dtype=fp32,layout=rcr"));
  ASSERT_FALSE(fp32.empty());
  std::string why = op().unsupported_reason(fp32[0], "m=8,n=8,k=8,layout=rcr,dtype=bf16");
  EXPECT_NE(why.find("dtype"), std::string::npos) << why;
  why = op().unsupported_reason(fp32[0], "m=8,n=8,k=8,layout=ccr,dtype=fp32");
  EXPECT_NE(why.find("layout"), std::string::npos) << why;
  auto workload = op().make_workload("m=8,n=8,k=8,layout=ccr,dtype=fp32", 1);
  EXPECT_THROW(op().bind(fp32[0], *workload, 1), InputError);
}

// Every kernel of the default set gives the reference result on an odd-sized problem of its
// dtype and layout, and on one large enough that only a sample of entries is checked. Kernels
// share one workload per problem, as in a sweep.
TEST(GemmOperation, KernelsMatchTheReference) {
  int checked = 0;
  for (const char* dtype : {"fp32", "bf16"}) {
    for (const char* layout : {"rcr", "rrr", "crr", "ccr"}) {
      std::string fields = std::string("dtype=") + dtype + ",layout=" + layout;
      auto kernels = op().kernel_names("default", KeyValues::parse(fields));
      for (const char* dims : {"m=37,n=45,k=29", "m=130,n=70,k=7400"}) {
        std::string problem = std::string(dims) + "," + fields;
        auto workload = op().make_workload(problem, 3);
        EXPECT_EQ(workload->problem(), op().canonical_problem(problem, ""));
        GemmProblem p = GemmProblem::parse(problem);
        EXPECT_DOUBLE_EQ(workload->flops(), 2.0 * double(p.m) * double(p.n) * double(p.k));
        for (const auto& kernel : kernels) {
          if (!op().unsupported_reason(kernel, problem).empty()) continue;
          auto bound = op().bind(kernel, *workload, 1);
          bound->run();
          EXPECT_EQ(bound->verify(), "") << kernel << " " << problem;
          checked += 1;
        }
      }
    }
  }
  EXPECT_GT(checked, 16);
}

// With rotated operands every call reads and writes the next copy: each copy holds the inputs
// (every run verifies its own C).
TEST(GemmOperation, RotatedCopiesHoldTheSameOperands) {
  auto kernels = op().kernel_names("default", KeyValues::parse("dtype=bf16,layout=rcr"));
  ASSERT_FALSE(kernels.empty());
  const std::string problem = "m=37,n=45,k=29,layout=rcr,dtype=bf16";
  auto workload = op().make_workload(problem, 3);
  workload->rotate_operands(3);
  auto bound = op().bind(kernels[0], *workload, 1);
  EXPECT_EQ(bound->verify().rfind("wrong result", 0), 0u);  // no call yet
  for (int call = 0; call < 4; ++call) {                    // copies 1, 2, 0, 1
    bound->run();
    EXPECT_EQ(bound->verify(), "") << "call " << call;
  }
}

TEST(GemmOperation, VerifyCatchesAnUnwrittenOutput) {
  auto kernels = op().kernel_names("default", KeyValues::parse("dtype=fp32,layout=rcr"));
  ASSERT_FALSE(kernels.empty());
  for (const char* problem :
       {"m=16,n=16,k=16,layout=rcr,dtype=fp32", "m=200,n=200,k=2000,layout=rcr,dtype=fp32"}) {
    auto workload = op().make_workload(problem, 1);
    auto bound = op().bind(kernels[0], *workload, 1);
    std::string why = bound->verify();  // C is still zero: never run
    EXPECT_EQ(why.rfind("wrong result", 0), 0u) << problem << ": " << why;
  }
}

}  // namespace
}  // namespace kselect::gemm
