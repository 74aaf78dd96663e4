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

}  // namespace
}  // namespace kselect::conv
