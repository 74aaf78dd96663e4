// Every configuration the rule engine generates can be built, and the `tests` set computes
// correct results (small shapes with remainders, M = N = K = 1 edges, split-K, 1 and 2 threads).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "ops/gemm/kernel.h"
#include "ops/gemm/rule_sets.h"
#include "test_kernel_support.h"

namespace kselect::gemm {
namespace {

TEST(GemmKernelRuleSets, EveryFullConfigBuilds) {
  const auto& full = rule_set("full");
  ASSERT_FALSE(full.empty());
  for (const GemmConfig& c : full) ASSERT_NO_THROW(GemmKernel{c}) << c.name();
}

// The shapes a configuration supports: remainders where it pads, tile multiples where not.
std::vector<GemmProblem> shapes_for(const GemmConfig& c) {
  std::vector<GemmProblem> out;
  for (auto [m, n, k, split] : std::vector<std::array<int, 4>>{
           {37, 83, 45, 1}, {1, 19, 33, 1}, {9, 1, 20, 1}, {13, 21, 1, 1}, {20, 40, 600, 2}}) {
    GemmProblem p;
    p.m = c.pad_m ? m : 2 * c.tile_m;
    p.n = c.pad_n ? n : c.tile_n;
    p.k = c.pad_k ? k : 2 * c.tile_k;
    p.split_k = (p.k + c.tile_k - 1) / c.tile_k >= split ? split : 1;
    p.layout = c.layout;
    p.dtype = c.dtype;
    out.push_back(p);
  }
  return out;
}

TEST(GemmKernelRuleSets, TestsSetMatchesReference) {
  const auto& set = rule_set("tests");
  ASSERT_FALSE(set.empty());
  for (const GemmConfig& c : set) {
    GemmKernel kernel(c);
    for (const GemmProblem& p : shapes_for(c)) {
      ASSERT_EQ(kernel.unsupported_reason(p), "") << c.name() << " " << p.to_string();
      auto operands = testing::make_operands(p, 11);
      auto ref = testing::reference(p, operands);
      for (int threads : {1, 2})
        ASSERT_TRUE(testing::runs_correctly(kernel, p, operands, ref, threads));
    }
  }
}

}  // namespace
}  // namespace kselect::gemm
