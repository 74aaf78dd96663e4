// The GEMM op's kernel catalogue and its runs on a caller's buffers (Operation::catalogue,
// operand_names, wrap_buffers).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../catalogue_support.h"
#include "core/error.h"
#include "ops/gemm/config.h"
#include "ops/gemm/kernel.h"
#include "ops/gemm/operation.h"
#include "ops/gemm/problem.h"
#include "test_kernel_support.h"

namespace kselect::gemm {
namespace {

const Operation& op() {
  return operation();
}

// The `tests` set and every 23rd kernel of `full`.
std::vector<std::string> sample_kernels() {
  std::vector<std::string> kernels = op().kernel_names("tests", {});
  const std::vector<std::string> full = op().kernel_names("full", {});
  for (std::size_t i = 0; i < full.size(); i += 23) kernels.push_back(full[i]);
  return kernels;
}

TEST(GemmCatalogue, AnswersAsTheOpDoesByName) {
  const std::vector<std::string> kernels = sample_kernels();
  kselect::testing::expect_catalogue_answers_as_names(
      op(), kernels,
      {"m=128,n=256,k=512,layout=rcr,dtype=fp32", "m=1,n=1000,k=37,layout=rcr,dtype=fp32",
       "m=96,n=64,k=4096,layout=rrr,dtype=fp32,split_k=4", "m=33,n=65,k=129,layout=crr,dtype=bf16",
       "m=256,n=256,k=256,layout=ccr,dtype=bf16,split_k=2",
       "m=64,n=64,k=64,layout=rcr,dtype=fp32,split_k=64"});
  auto catalogue = op().catalogue(kernels);
  EXPECT_EQ(catalogue->find(kernels[1]), 1u);
  EXPECT_THROW(catalogue->supported("m=0,n=1,k=1"), InputError);
}

TEST(GemmCatalogue, UnknownKernelsAreNamed) {
  auto tests = op().kernel_names("tests", {});
  try {
    op().catalogue({tests[0], "gemm_universal_fp32_nope"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gemm_universal_fp32_nope"), std::string::npos)
        << e.what();
  }
}

// Packing kernels need scratch; split-K adds M x N fp32 partial sums per part beyond the first
// (each part packs only its share of K, so a packing kernel's panels shrink meanwhile).
TEST(GemmCatalogue, WorkspaceCountsPackingAndSplitKPartials) {
  std::vector<std::string> kernels = sample_kernels();
  const auto mem =
      op().kernel_names("full", KeyValues::parse("pipeline=mem,dtype=fp32,layout=rcr"));
  ASSERT_FALSE(mem.empty());
  kernels.insert(kernels.end(), mem.begin(), mem.begin() + std::min<std::size_t>(mem.size(), 8));
  auto catalogue = op().catalogue(kernels);
  const std::string one = "m=1024,n=1024,k=2048,layout=rcr,dtype=fp32";
  const std::string four = one + ",split_k=4";
  const double partials = 3 * 4.0 * 1024 * 1024;
  int packing = 0, in_place = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (!catalogue->unsupported_reason(i, one).empty()) {
      EXPECT_EQ(catalogue->workspace_bytes(i, one), 0) << kernels[i];  // never bound to it
      continue;
    }
    const GemmConfig c = GemmConfig::parse_name(kernels[i]);
    const double ws = catalogue->workspace_bytes(i, one);
    if (c.pipeline != Pipeline::kMem) {
      EXPECT_GT(ws, 0) << kernels[i];
      ++packing;
    }
    if (!catalogue->unsupported_reason(i, four).empty()) continue;
    const double split = catalogue->workspace_bytes(i, four);
    EXPECT_GE(split, partials) << kernels[i];
    if (c.pipeline == Pipeline::kMem && c.warp_k == 1 && c.epilogue == Epilogue::kDefault) {
      EXPECT_EQ(ws, 0) << kernels[i];  // reads A and B in place, writes C directly
      EXPECT_EQ(split, partials) << kernels[i];
      ++in_place;
    }
  }
  EXPECT_GT(packing, 0);
  EXPECT_GT(in_place, 0);
}

TEST(GemmCatalogue, WorkspaceIsPerWorkerPlusSharedPartials) {
  GemmConfig c;  // compv4: packs A and B
  const GemmKernel kernel(c);
  const GemmProblem p = GemmProblem::parse("m=256,n=256,k=1024,layout=rcr,dtype=fp32,split_k=2");
  const double w1 = kernel.workspace_bytes(p, 1), w2 = kernel.workspace_bytes(p, 2);
  const double partial = 4.0 * 256 * 256;  // the second part's sums
  EXPECT_GT(w1, partial);
  EXPECT_DOUBLE_EQ(w2 - w1, w1 - partial);  // each worker adds its own panels
  auto catalogue = op().catalogue({c.name()});
  EXPECT_DOUBLE_EQ(catalogue->workspace_bytes(0, p.to_string()),
                   kernel.workspace_bytes(p, omp_get_max_threads()));
}

// Supported kernels of `problem` from the tests set: up to `count`, the split-K ones included.
std::vector<std::string> runnable(const std::string& problem, std::size_t count) {
  std::vector<std::string> out;
  for (const auto& kernel : op().kernel_names("tests", {}))
    if (out.size() < count && op().unsupported_reason(kernel, problem).empty())
      out.push_back(kernel);
  return out;
}

TEST(GemmWrapBuffers, KernelsRunOnTheCallersMemory) {
  for (const char* text :
       {"m=37,n=45,k=70,layout=rcr,dtype=fp32", "m=64,n=48,k=300,layout=crr,dtype=fp32,split_k=3",
        "m=20,n=33,k=64,layout=rrr,dtype=bf16",
        "m=16,n=64,k=256,layout=ccr,dtype=bf16,split_k=2"}) {
    const GemmProblem p = GemmProblem::parse(text);
    const std::string problem = p.to_string();
    EXPECT_EQ(op().operand_names(problem), (std::vector<std::string>{"a", "b", "c"}));
    testing::Operands o = testing::make_operands(p, 7);  // caller-owned, uniform in [-1, 1]
    const testing::Reference ref = testing::reference(p, o);
    std::vector<float> c(std::size_t(p.m * p.n), NAN);
    std::vector<void*> buffers{const_cast<void*>(o.a_data()), const_cast<void*>(o.b_data()),
                               c.data()};
    auto workload = op().wrap_buffers(problem, buffers);
    EXPECT_EQ(workload->problem(), problem);
    const auto kernels = runnable(problem, 3);
    ASSERT_FALSE(kernels.empty()) << problem;
    for (const auto& kernel : kernels) {
      std::fill(c.begin(), c.end(), NAN);
      auto bound = op().bind(kernel, *workload, 2);
      bound->run();
      EXPECT_TRUE(testing::matches(p, c, ref)) << kernel;
      EXPECT_EQ(bound->verify(), "") << kernel << " on " << problem;
      const float saved = c[5];
      c[5] += 100.0f;  // a corrupted output is reported
      EXPECT_NE(bound->verify(), "") << kernel;
      c[5] = saved;
    }
    // The inputs are read in place: zeroing the caller's A zeroes the next result.
    if (p.dtype == DType::kFp32)
      std::fill(o.a32.begin(), o.a32.end(), 0.0f);
    else
      std::fill(o.a16.begin(), o.a16.end(), std::uint16_t(0));
    auto bound = op().bind(kernels[0], *workload, 1);
    bound->run();
    for (float value : c) ASSERT_EQ(value, 0.0f) << problem;
    EXPECT_EQ(bound->verify(), "");  // the reference follows the caller's inputs
    EXPECT_THROW(workload->rotate_operands(2), InputError);
  }
}

TEST(GemmWrapBuffers, OperandCountsAndNullsAreRejected) {
  const std::string problem = "m=8,n=8,k=8,layout=rcr,dtype=fp32";
  std::vector<float> a(64), b(64), c(64);
  auto message = [&](std::vector<void*> buffers) {
    return kselect::testing::wrap_error(op(), problem, std::move(buffers));
  };
  EXPECT_NE(message({a.data(), b.data()}).find("expected 3 (a, b, c), got 2"), std::string::npos);
  EXPECT_NE(message({a.data(), b.data(), c.data(), c.data()}).find("got 4"), std::string::npos);
  EXPECT_NE(message({a.data(), nullptr, c.data()}).find("'b'"), std::string::npos);
  EXPECT_NE(message({a.data(), b.data(), nullptr}).find("'c'"), std::string::npos);
  EXPECT_EQ(message({a.data(), b.data(), c.data()}), "no error");
  EXPECT_NE(kselect::testing::wrap_error(op(), "m=0,n=8,k=8", {a.data(), b.data(), c.data()}),
            "no error");
}

}  // namespace
}  // namespace kselect::gemm
