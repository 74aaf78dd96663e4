// What the driver decides by problem, as the feature engine reads it (cpu/driver.h).
#include "ops/conv/cpu/driver.h"

#include <gtest/gtest.h>

#include <string>

#include "ops/conv/problem.h"

namespace kselect::conv::cpu {
namespace {

ConvConfig backward_data(int tile_k) {
  ConvConfig c;
  c.dir = Direction::kBackwardData;
  c.tile_m = 16, c.tile_n = 16, c.tile_k = tile_k;
  return c;
}

Problem problem(const std::string& text) {
  return parse_native_problem(text + ",dir=bwd_data,dtype=fp32");
}

// A 1x1 filter at stride 2 reaches only the even (h, w) phase: a quarter of an 8x8 image's rows
// compute, whatever the slices. A 3x3 filter with padding 1 reaches every phase, and a slice
// as deep as K (9 taps x 32) always holds a tap that reaches; one of 32 (a tap) skips the taps
// that miss: of the 9 taps, 1 reaches the (even, even) phase's rows, 2 each mixed phase's and 4
// the (odd, odd) phase's, each phase 16 of the 64 rows.
TEST(ConvDriverPaths, StridedBackwardDataComputesOnlyTheSlicesThatReachEachPhase) {
  const std::string c32 = "n=1,c=32,k=32,hi=8,wi=8,";
  const Problem one_by_one = problem(c32 + "y=1,x=1,stride_h=2,stride_w=2");
  ASSERT_TRUE(problem_paths(backward_data(64), one_by_one).phased);
  EXPECT_DOUBLE_EQ(computed_k_share(backward_data(64), one_by_one), 0.25);
  const Problem three = problem(c32 + "y=3,x=3,pad_h=1,pad_w=1,stride_h=2,stride_w=2");
  EXPECT_DOUBLE_EQ(computed_k_share(backward_data(288), three), 1.0);
  EXPECT_DOUBLE_EQ(computed_k_share(backward_data(32), three), (1 + 2 + 2 + 4) / 36.0);
  // No stride: no phases.
  const Problem plain = problem(c32 + "y=1,x=1");
  EXPECT_FALSE(problem_paths(backward_data(64), plain).phased);
  EXPECT_DOUBLE_EQ(computed_k_share(backward_data(64), plain), 1.0);
}

// By columns (few channels per group) the column product has no phases.
TEST(ConvDriverPaths, ByColumnsIsNeverPhased) {
  const Problem stem =
      problem("n=1,c=3,k=64,hi=28,wi=28,y=7,x=7,pad_h=3,pad_w=3,stride_h=2,stride_w=2");
  const ProblemPaths paths = problem_paths(backward_data(64), stem);
  ASSERT_TRUE(paths.col2im);
  EXPECT_FALSE(paths.phased);
  EXPECT_DOUBLE_EQ(computed_k_share(backward_data(64), stem), 1.0);
}

}  // namespace
}  // namespace kselect::conv::cpu
