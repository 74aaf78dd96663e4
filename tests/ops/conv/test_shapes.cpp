// Conv shape families (src/ops/conv/shapes.h) and `kselect shapes --op conv`.
#include "ops/conv/shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../../cli/cli_runner.h"
#include "core/error.h"
#include "ops/conv/operation.h"

namespace kselect::conv {
namespace {

std::vector<std::string> texts(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(native_text(p));
  return out;
}

// Every problem of every family.
std::vector<Problem> all_of(const std::string& family, double max_gflop = 2.0) {
  ShapeOptions o;
  o.family = family, o.count = 100000, o.max_gflop = max_gflop;
  if (family == "edge" || family == "random" || family == "backward") o.count = 60;
  return generate_shapes(o);
}

TEST(ConvShapes, EveryFamilyIsDeterministicValidCanonicalDistinctAndWithinBudget) {
  for (const auto& family : shape_families()) {
    ShapeOptions o;
    o.family = family, o.count = 30, o.max_gflop = 0.5, o.dtypes = {"fp32", "bf16"};
    const auto first = generate_shapes(o);
    EXPECT_EQ(texts(first), texts(generate_shapes(o))) << family;
    EXPECT_GE(first.size(), 10u) << family;
    EXPECT_LE(first.size(), 30u) << family;
    std::set<std::string> distinct;
    for (size_t i = 0; i < first.size(); ++i) {
      const Problem& p = first[i];
      const std::string text = native_text(p);
      EXPECT_LE(p.flops(), 0.5e9) << family << " " << text;
      EXPECT_EQ(p.invalid_reason(), "") << text;
      Problem parsed;
      ASSERT_NO_THROW(parsed = parse_native_problem(text)) << text;
      EXPECT_EQ(native_text(parsed), text) << "not canonical";
      EXPECT_EQ(operation().canonical_problem(text, ""), text);
      EXPECT_EQ(p.dtype, i % 2 ? "bf16" : "fp32") << "dtypes round-robin";
      // FLOPs by the formula, independently of Problem::flops.
      const double flops = 2.0 * double(p.n) * double(p.k) * double(p.c / p.g) *
                           double(parsed.do_ * parsed.ho * parsed.wo) * double(p.z * p.y * p.x);
      EXPECT_LE(flops, 0.5e9) << text;
      distinct.insert(text);
    }
    EXPECT_EQ(distinct.size(), first.size()) << family;
    // Another seed, another sample (of a network, whose layers all fit 30).
    o.count = 10;
    const auto seed1 = generate_shapes(o);
    o.seed = 2;
    EXPECT_NE(texts(seed1), texts(generate_shapes(o))) << family;
  }
}

TEST(ConvShapes, NetworkFamiliesHoldTheirKnownLayers) {
  auto has = [](const std::vector<Problem>& problems, auto predicate) {
    return std::any_of(problems.begin(), problems.end(), predicate);
  };
  const auto resnet = all_of("resnet50");
  // conv2_x's 3x3 64->64 on 56x56, in all three directions.
  for (Direction dir : {Direction::kForward, Direction::kBackwardData, Direction::kBackwardWeight})
    EXPECT_TRUE(has(resnet, [&](const Problem& p) {
      return p.c == 64 && p.k == 64 && p.g == 1 && p.hi == 56 && p.wi == 56 && p.y == 3 &&
             p.x == 3 && p.stride[1] == 1 && p.pad[1] == 1 && p.dir == dir;
    })) << letter(dir);
  EXPECT_TRUE(has(resnet, [](const Problem& p) {
    return p.c == 3 && p.y == 7 && p.stride[1] == 2;
  })) << "the stem";
  EXPECT_TRUE(has(resnet, [](const Problem& p) {
    return p.y == 3 && p.stride[1] == 2 && p.c == 128;
  })) << "a stride-2 3x3";
  const auto vgg = all_of("vgg16");
  for (const Problem& p : vgg) EXPECT_EQ(p.y * p.x, 9) << native_text(p);
  EXPECT_TRUE(has(vgg, [](const Problem& p) { return p.c == 512 && p.hi == 14; }));
  const auto mobilenet = all_of("mobilenetv2");
  EXPECT_TRUE(has(mobilenet, [](const Problem& p) {
    return p.g > 1 && p.g == p.c && p.g == p.k && p.y == 3 && p.stride[1] == 2;
  })) << "a strided depthwise 3x3";
  EXPECT_TRUE(has(mobilenet, [](const Problem& p) {
    return p.g > 1 && p.g == p.c && p.g == p.k && p.y == 3 && p.stride[1] == 1;
  }));
  EXPECT_TRUE(has(mobilenet, [](const Problem& p) { return p.g == 1 && p.y == 1; }))
      << "a pointwise 1x1";
  const auto unet = all_of("unet3d");
  ASSERT_FALSE(unet.empty());
  for (const Problem& p : unet) {
    EXPECT_EQ(p.layout, kLayout3d) << native_text(p);
    EXPECT_GT(p.di, 1) << native_text(p);
  }
  EXPECT_TRUE(has(unet, [](const Problem& p) { return p.z == 3 && p.y == 3 && p.x == 3; }));
}

TEST(ConvShapes, LayersOverTheBudgetShrinkOrGo) {
  // At 0.01 GFLOP the 56x56 layers of ResNet-50 lose their batch, then their image.
  const auto small = all_of("resnet50", 0.01);
  ASSERT_FALSE(small.empty());
  for (const Problem& p : small) EXPECT_LE(p.flops(), 0.01e9) << native_text(p);
  EXPECT_TRUE(std::any_of(small.begin(), small.end(),
                          [](const Problem& p) { return p.c == 64 && p.k == 64 && p.hi < 56; }));
  // A larger budget keeps more of the real geometry.
  EXPECT_GT(all_of("resnet50", 4.0).size(), all_of("resnet50", 0.01).size() / 2);
}

TEST(ConvShapes, CategoriesDrawWhatTheyPromise) {
  const auto edge = all_of("edge");
  for (const Problem& p : edge) EXPECT_EQ(p.n, 1) << native_text(p);
  auto any = [](const std::vector<Problem>& v, auto pred) {
    return std::any_of(v.begin(), v.end(), pred);
  };
  EXPECT_TRUE(any(edge, [](const Problem& p) {
    return p.pad_right[1] >= 0 || p.pad_right[2] >= 0;
  })) << "asymmetric padding";
  EXPECT_TRUE(any(edge, [](const Problem& p) { return p.dil[1] == 2; }));
  EXPECT_TRUE(any(edge, [](const Problem& p) { return p.hi <= 7 && p.wi <= 7; }));
  EXPECT_TRUE(any(edge, [](const Problem& p) { return p.c % 8 != 0 || p.k % 8 != 0; }));
  const auto random = all_of("random");
  EXPECT_TRUE(any(random, [](const Problem& p) { return p.layout == kLayout3d; }));
  EXPECT_TRUE(any(random, [](const Problem& p) { return p.layout == kLayout2d; }));
  const auto backward = all_of("backward");
  for (const Problem& p : backward) EXPECT_NE(p.dir, Direction::kForward) << native_text(p);
  EXPECT_TRUE(any(backward, [](const Problem& p) { return p.g > 1 && p.g == p.c && p.g == p.k; }));
  EXPECT_TRUE(any(backward, [](const Problem& p) { return p.g > 1 && p.g <= 8 && p.c != p.g; }));
  EXPECT_TRUE(any(backward, [](const Problem& p) { return p.stride[1] == 2; }));
}

TEST(ConvShapes, OptionsFilterAndRefuse) {
  ShapeOptions o;
  o.family = "random", o.count = 40, o.spatial_dims = {3};
  for (const Problem& p : generate_shapes(o)) EXPECT_EQ(p.layout, kLayout3d);
  o.family = "resnet50", o.count = 1000, o.spatial_dims = {2, 3},
  o.directions = {Direction::kBackwardWeight};
  for (const Problem& p : generate_shapes(o)) EXPECT_EQ(p.dir, Direction::kBackwardWeight);
  o.spatial_dims = {2}, o.family = "unet3d";
  EXPECT_THROW(generate_shapes(o), InputError) << "no 2-D layer in a 3-D U-Net";
  o = ShapeOptions{};
  o.family = "wide";
  EXPECT_THROW(generate_shapes(o), InputError);
  o.family = "vgg16", o.dtypes = {"fp16"};
  EXPECT_THROW(generate_shapes(o), InputError);
  o.dtypes = {"fp32"}, o.count = 0;
  EXPECT_THROW(generate_shapes(o), InputError);
  o.count = 5, o.max_gflop = 0;
  EXPECT_THROW(generate_shapes(o), InputError);
}

TEST(ConvShapes, TheOperationGeneratesThroughItsSeam) {
  const Operation& op = operation();
  EXPECT_EQ(op.shape_families(), shape_families());
  auto problems = op.generate_problems({.family = "mobilenetv2",
                                        .count = 12,
                                        .seed = 3,
                                        .max_gflop = 0.5,
                                        .dtypes = {"all"},
                                        .layouts = {"rcr"}});
  ASSERT_EQ(problems.size(), 12u);
  EXPECT_NE(problems[0].find("dtype=fp32"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("dtype=bf16"), std::string::npos) << problems[1];
  // The default family (what `kselect bench --stability` asks for without --shapes).
  EXPECT_EQ(op.generate_problems({.count = 6, .max_gflop = 0.2}).size(), 6u);
  for (const auto& text :
       op.generate_problems({.family = "random", .count = 20, .layouts = {"ndhwgc"}}))
    EXPECT_NE(text.find("layout=ndhwgc"), std::string::npos) << text;
  EXPECT_THROW(op.generate_problems({.family = "random", .layouts = {"rrr"}}), InputError);
}

TEST(ConvShapes, CliWritesAConvShapeCsv) {
  auto result =
      testing::run_cli({"shapes", "--op", "conv", "--family", "resnet50", "--count", "5"});
  ASSERT_EQ(result.code, 0) << result.out;
  std::vector<std::string> lines;
  for (size_t start = 0, end; start < result.out.size(); start = end + 1) {
    end = result.out.find('\n', start);
    if (end == std::string::npos) end = result.out.size();
    if (end > start) lines.push_back(result.out.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), 6u) << result.out;
  EXPECT_EQ(lines[0].rfind("n,c,k,g,", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("dir"), std::string::npos);
  auto unknown = testing::run_cli({"shapes", "--op", "conv", "--family", "wide"}, true);
  EXPECT_EQ(unknown.code, 3) << unknown.out;
  EXPECT_NE(unknown.out.find("resnet50"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace kselect::conv
