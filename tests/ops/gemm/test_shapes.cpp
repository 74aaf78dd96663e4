#include "ops/gemm/shapes.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace kselect::gemm {
namespace {

std::vector<std::string> texts(const std::vector<GemmProblem>& shapes) {
  std::vector<std::string> out;
  for (const auto& p : shapes) out.push_back(p.to_string());
  return out;
}

TEST(Shapes, EveryFamilyIsDeterministicWithinBudgetAndDistinct) {
  for (const auto& family : shape_families()) {
    ShapeOptions o;
    o.family = family, o.count = 16, o.max_gflop = 0.5;
    auto first = generate_shapes(o);
    EXPECT_EQ(texts(first), texts(generate_shapes(o))) << family;
    EXPECT_GE(first.size(), 8u) << family;
    EXPECT_LE(first.size(), 16u) << family;
    std::set<std::string> distinct;
    for (const auto& p : first) {
      EXPECT_LE(p.flops(), 0.5e9) << family << " " << p.to_string();
      EXPECT_EQ(p.invalid_reason(), "") << p.to_string();
      distinct.insert(p.to_string());
    }
    EXPECT_EQ(distinct.size(), first.size()) << family;
    o.seed = 2;
    if (family != "square") EXPECT_NE(texts(first), texts(generate_shapes(o))) << family;
  }
}

TEST(Shapes, ShallowKeepsKSmallUnderALargeC) {
  ShapeOptions o;
  o.family = "shallow", o.count = 50;
  auto shapes = generate_shapes(o);
  ASSERT_EQ(shapes.size(), 50u);
  std::set<std::int64_t> ks;
  for (const auto& p : shapes) {
    EXPECT_LE(p.k, 16) << p.to_string();
    EXPECT_GE(std::min(p.m, p.n), 8) << p.to_string();
    ks.insert(p.k);
  }
  EXPECT_GE(ks.size(), 10u);  // K spread over 1..16, not one value
}

TEST(Shapes, WideCoversTheCkCategories) {
  ShapeOptions o;
  o.count = 40;
  auto shapes = generate_shapes(o);
  ASSERT_EQ(shapes.size(), 40u);
  int m1 = 0, tiny_m = 0, skinny_n = 0, shallow_k = 0, deep_k = 0;
  for (const auto& p : shapes) {
    m1 += p.m == 1;
    tiny_m += p.m > 1 && p.m <= 16;
    skinny_n += p.n <= 16;
    shallow_k += p.k <= 32;
    deep_k += p.k >= 8 * std::max(p.m, p.n);
  }
  EXPECT_GE(m1, 4);
  EXPECT_GE(tiny_m, 4);
  EXPECT_GE(skinny_n, 4);
  EXPECT_GE(shallow_k, 4);
  EXPECT_GE(deep_k, 4);
}

TEST(Shapes, EdgeDimsAreTileNeighboursPrimesOrOne) {
  ShapeOptions o;
  o.family = "edge", o.count = 30;
  std::set<std::int64_t> allowed = {1, 2, 3, 13, 61, 251, 509, 1021, 2039, 31, 127};
  for (std::int64_t p = 8; p <= 2048; p *= 2) allowed.insert({p - 1, p, p + 1});
  for (const auto& p : generate_shapes(o))
    for (auto d : {p.m, p.n, p.k}) EXPECT_TRUE(allowed.count(d)) << p.to_string();
}

TEST(Shapes, LlmAndSquareFollowTheirPatterns) {
  ShapeOptions o;
  o.family = "llm", o.count = 1000, o.max_gflop = 2;
  auto llm = generate_shapes(o);
  EXPECT_GE(llm.size(), 40u);
  std::set<std::int64_t> tokens;
  for (const auto& p : llm) tokens.insert(p.m);
  EXPECT_EQ(tokens, (std::set<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  o.family = "square", o.max_gflop = 2;
  for (const auto& p : generate_shapes(o)) {
    EXPECT_EQ(p.m, p.n);
    EXPECT_EQ(p.n, p.k);
    EXPECT_LE(p.m, 1000);  // 2 * 1024^3 > 2 GFLOP
  }
}

TEST(Shapes, SpreadsDtypesAndLayoutsRoundRobin) {
  ShapeOptions o;
  o.family = "random", o.count = 16;
  o.dtypes = {DType::kFp32, DType::kBf16};
  o.layouts = {Layout::kRcr, Layout::kRrr, Layout::kCrr, Layout::kCcr};
  std::set<std::string> combos;
  for (const auto& p : generate_shapes(o))
    combos.insert(std::string(to_string(p.dtype)) + "/" + std::string(to_string(p.layout)));
  EXPECT_EQ(combos.size(), 8u);
}

TEST(Shapes, RejectsBadOptions) {
  ShapeOptions o;
  o.family = "huge";
  EXPECT_THROW(generate_shapes(o), InputError);
  o.family = "wide", o.count = 0;
  EXPECT_THROW(generate_shapes(o), InputError);
  o.count = 3, o.max_gflop = 0;
  EXPECT_THROW(generate_shapes(o), InputError);
}

}  // namespace
}  // namespace kselect::gemm
