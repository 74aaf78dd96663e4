#include "ops/conv/problem.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"

namespace kselect::conv {
namespace {

TEST(ConvProblem, DirectionSpellings) {
  for (const char* f : {"F", "f", "fwd", "forward"})
    EXPECT_EQ(parse_direction(f), Direction::kForward);
  for (const char* b : {"B", "b", "bwd", "bwd_data", "backward_data"})
    EXPECT_EQ(parse_direction(b), Direction::kBackwardData) << b;
  for (const char* w : {"W", "w", "wrw", "bwd_weight", "backward_weight"})
    EXPECT_EQ(parse_direction(w), Direction::kBackwardWeight) << w;
  for (const char* bad : {"", "FWD", "sideways", "bwd_"}) EXPECT_FALSE(parse_direction(bad)) << bad;
  for (Direction d : {Direction::kForward, Direction::kBackwardData, Direction::kBackwardWeight})
    EXPECT_EQ(parse_direction(letter(d)), d);
}

TEST(ConvProblem, OutputExtentWithDilation) {
  EXPECT_EQ(output_extent(56, 3, 1, 1), 56);
  EXPECT_EQ(output_extent(28, 1, 0, 2), 14);
  EXPECT_EQ(output_extent(56, 3, 2, 1, 2), 56);  // dilated 3x3 spans 5
  EXPECT_EQ(output_extent(7, 3, 0, 1, 3), 1);    // spans 7
  EXPECT_EQ(output_extent(6, 3, 0, 1, 3), 0);    // does not fit
  EXPECT_EQ(output_extent(2, 5, 1, 1), 0);
  EXPECT_EQ(output_extent(8, 3, 0, 0), 0);
}

Problem resnet_3x3() {
  Problem p;
  p.dir = Direction::kForward;
  p.dtype = "bf16";
  p.n = 32, p.c = 256, p.k = 256, p.hi = 56, p.wi = 56, p.y = 3, p.x = 3;
  p.pad = {0, 1, 1};
  p.compute_output();
  return p;
}

TEST(ConvProblem, TextInBothOrders) {
  Problem p = resnet_3x3();
  EXPECT_EQ(p.ho, 56);
  EXPECT_EQ(p.do_, 1);
  const char* geometry =
      "n=32,c=256,k=256,g=1,di=1,hi=56,wi=56,z=1,y=3,x=3,do=1,ho=56,wo=56,pad_d=0,pad_h=1,pad_w=1,"
      "stride_d=1,stride_h=1,stride_w=1,dil_d=1,dil_h=1,dil_w=1";
  EXPECT_EQ(to_text(p, TextOrder::kWordsLast), std::string(geometry) + ",dir=F,dtype=bf16");
  p.layout = "NCHW";
  p.device = "gfx90a";
  p.bias = 0;
  EXPECT_EQ(to_text(p, TextOrder::kWordsFirst),
            "device=gfx90a,dir=F,dtype=bf16,layout=NCHW," + std::string(geometry) + ",bias=0");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 32 * 256 * 256 * 56 * 56 * 9);
}

TEST(ConvProblem, ParseRoundTripsOverManyProblems) {
  std::mt19937 rng(5);
  auto in = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 1000; ++i) {
    Problem p;
    p.dir = Direction(in(0, 2));
    p.dtype = in(0, 1) ? "fp16" : "";
    p.layout = in(0, 1) ? "NHWC" : "";
    p.device = in(0, 1) ? "gfx942" : "";
    if (in(0, 1)) p.bias = in(0, 1);
    p.g = in(1, 4);
    p.n = in(1, 64), p.c = p.g * in(1, 64), p.k = p.g * in(1, 64);
    p.di = in(1, 4), p.hi = in(8, 64), p.wi = in(8, 64);
    p.z = in(1, 2), p.y = in(1, 5), p.x = in(1, 5);
    for (int a = 0; a < 3; ++a) p.pad[a] = in(0, 2), p.stride[a] = in(1, 3), p.dil[a] = in(1, 2);
    p.compute_output();
    if (!p.invalid_reason().empty()) continue;
    for (TextOrder order : {TextOrder::kWordsFirst, TextOrder::kWordsLast})
      EXPECT_EQ(parse_problem(to_text(p, order)), p) << to_text(p, order);
  }
}

TEST(ConvProblem, ParseRejectsBadProblemsNamingTheField) {
  Problem p = resnet_3x3();
  std::string text = to_text(p, TextOrder::kWordsLast);
  EXPECT_THROW(parse_problem(text + ",hw=3"), InputError);
  EXPECT_THROW(parse_problem(text + ",bias=2"), InputError);
  p.g = 3;  // does not divide 256
  EXPECT_THROW(parse_problem(to_text(p, TextOrder::kWordsLast)), InputError);
  std::string sideways = text;
  sideways.replace(sideways.find("dir=F"), 5, "dir=X");
  EXPECT_THROW(parse_problem(sideways), InputError);
}

// The field an InputError names ("field 'x'"), or "" when parsing succeeds.
std::string rejected_field(const std::string& text) {
  try {
    parse_native_problem(text, "shapes.csv");
  } catch (const InputError& e) {
    std::string what = e.what();
    auto open = what.find("field '");
    if (open == std::string::npos) return "(unnamed) " + what;
    open += 7;
    return what.substr(open, what.find('\'', open) - open);
  }
  return "";
}

TEST(ConvNativeProblem, DefaultsAndComputedOutputs) {
  Problem p = parse_native_problem(
      "n=2,c=64,k=128,hi=56,wi=55,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,"
      "stride_w=2,dir=fwd,dtype=fp32");
  EXPECT_EQ(p.layout, "nhwgc");
  EXPECT_EQ(spatial_dims(p), 2);
  EXPECT_EQ(p.g, 1);
  EXPECT_EQ(p.ho, 28);
  EXPECT_EQ(p.wo, 28);
  EXPECT_EQ(p.do_, 1);
  EXPECT_EQ(p.dir, Direction::kForward);
  // The canonical text spells every geometry field and reads back to the same problem.
  const std::string text = native_text(p);
  EXPECT_EQ(text.find("device"), std::string::npos);
  EXPECT_EQ(parse_native_problem(text), p);
  EXPECT_EQ(native_text(parse_native_problem(text)), text);
}

TEST(ConvNativeProblem, DilationAndAsymmetricPadding) {
  // Height: 10 + 0 + 2 - 2 * (3 - 1) - 1 = 7, stride 1 -> 8. Width: 9 + 1 + 0 - 1 * 1 - 1 = 8
  // -> 8 / 2 + 1 = 5.
  Problem p = parse_native_problem(
      "n=1,c=4,k=4,hi=10,wi=9,y=3,x=2,pad_h=0,pad_right_h=2,pad_w=1,pad_right_w=0,dil_h=2,"
      "stride_w=2,dir=bwd_data,dtype=bf16");
  EXPECT_EQ(p.ho, 8);
  EXPECT_EQ(p.wo, 5);
  EXPECT_EQ(p.right_pad(1), 2);
  EXPECT_EQ(p.right_pad(2), 0);
  const std::string text = native_text(p);
  EXPECT_NE(text.find("pad_right_h=2"), std::string::npos);
  EXPECT_NE(text.find("pad_right_w=0"), std::string::npos);
  EXPECT_EQ(parse_native_problem(text), p);
  // Right paddings equal to the left ones are the symmetric problem, spelt or not.
  EXPECT_EQ(parse_native_problem("n=1,c=4,k=4,hi=8,wi=8,y=3,x=3,pad_h=1,pad_right_h=1,dir=F,"
                                 "dtype=fp32"),
            parse_native_problem("n=1,c=4,k=4,hi=8,wi=8,y=3,x=3,pad_h=1,dir=F,dtype=fp32"));
  EXPECT_EQ(output_extent(10, 3, 0, 1, 2, 2), 8);
}

TEST(ConvNativeProblem, ThreeDimensional) {
  Problem p = parse_native_problem(
      "n=1,c=8,k=16,g=2,di=9,hi=8,wi=8,z=3,y=3,x=3,pad_d=1,stride_d=2,dil_d=2,pad_h=1,pad_w=1,"
      "dir=bwd_weight,dtype=fp32");
  EXPECT_EQ(p.layout, "ndhwgc");
  EXPECT_EQ(spatial_dims(p), 3);
  EXPECT_EQ(p.do_, (9 + 2 - 2 * 2 - 1) / 2 + 1);
  EXPECT_EQ(parse_native_problem(native_text(p)), p);
  // A 3-D layout with a flat depth is a 3-D problem all the same.
  EXPECT_EQ(spatial_dims(parse_native_problem(
                "n=1,c=8,k=8,hi=4,wi=4,y=1,x=1,layout=NDHWGC,dir=fwd,dtype=fp32")),
            3);
}

TEST(ConvNativeProblem, ImpossibleProblemsNameTheField) {
  const std::string base = "n=1,c=8,k=8,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp32";
  EXPECT_EQ(rejected_field(base), "");
  EXPECT_EQ(rejected_field(base + ",g=3"), "g");
  EXPECT_EQ(rejected_field("n=1,c=8,k=12,g=8,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp32"), "g");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=2,wi=8,y=3,x=3,dir=fwd,dtype=fp32"), "ho");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=8,wi=5,y=3,x=3,dil_w=3,dir=fwd,dtype=fp32"), "wo");
  EXPECT_EQ(rejected_field(base + ",stride_h=0"), "stride_h");
  EXPECT_EQ(rejected_field(base + ",dil_w=0"), "dil_w");
  EXPECT_EQ(rejected_field(base + ",pad_w=-1"), "pad_w");
  EXPECT_EQ(rejected_field(base + ",pad_right_h=-2"), "pad_right_h");
  EXPECT_EQ(rejected_field("c=8,k=8,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp32"), "n");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=8,wi=8,y=3,dir=fwd,dtype=fp32"), "x");
  EXPECT_EQ(rejected_field(base + ",ho=7"), "ho");
  EXPECT_EQ(rejected_field(base + ",color=red"), "color");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=8,wi=8,y=3,x=3,dir=up,dtype=fp32"), "dir");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=8,wi=8,y=3,x=3,dir=fwd"), "dtype");
  EXPECT_EQ(rejected_field("n=1,c=8,k=8,hi=8,wi=8,y=3,x=3,dir=fwd,dtype=fp16"), "dtype");
  EXPECT_EQ(rejected_field(base + ",layout=nchw"), "layout");
  // A 2-D layout holds no depth.
  EXPECT_EQ(rejected_field(base + ",layout=nhwgc,di=2"), "di");
  EXPECT_EQ(rejected_field(base + ",layout=nhwgc,stride_d=2"), "stride_d");
  EXPECT_EQ(rejected_field(base + ",pad_d=1"), "pad_d");
}

}  // namespace
}  // namespace kselect::conv
