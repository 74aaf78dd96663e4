// Forward A read in place: which problems qualify, how a block's rows are cut into runs of one
// output row, and how a K slice is cut into contiguous column ranges (the kernel results
// themselves are checked against the reference in test_kernel_rule_sets.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "ops/conv/cpu/direct.h"
#include "ops/conv/problem.h"

namespace kselect::conv::cpu {
namespace {

Problem forward(const std::string& shape) {
  return parse_native_problem(shape + ",dir=fwd,dtype=fp32");
}

TEST(ConvDirect, AppliesToFp32ImagesWithMidLengthContiguousRuns) {
  // The stem: 7 taps x 3 channels back to back per filter row.
  EXPECT_TRUE(
      DirectImage::applies(forward("n=1,c=3,k=64,hi=16,wi=16,y=7,x=7,pad_h=3,pad_w=3"), false));
  EXPECT_FALSE(DirectImage::applies(forward("n=1,c=3,k=64,hi=16,wi=16,y=7,x=7"), true));  // bf16
  // Groups and dilation break the filter row: a tap's channels, 32 then 8.
  EXPECT_TRUE(DirectImage::applies(forward("n=1,c=64,k=32,g=2,hi=5,wi=5,y=3,x=3"), false));
  EXPECT_FALSE(DirectImage::applies(forward("n=1,c=8,k=8,hi=9,wi=9,y=3,x=3,dil_w=2"), false));
  EXPECT_FALSE(DirectImage::applies(forward("n=1,c=16,k=16,g=16,hi=6,wi=5,y=3,x=3"), false));
  // Long runs stay gathered (a few long copies per row).
  EXPECT_FALSE(
      DirectImage::applies(forward("n=1,c=128,k=64,hi=8,wi=8,y=3,x=3,pad_h=1,pad_w=1"), false));
  // Backward weight reads x as forward does.
  EXPECT_TRUE(DirectImage::applies(
      parse_native_problem("n=1,c=3,k=64,hi=16,wi=16,y=7,x=7,dir=bwd_weight,dtype=fp32"), false));
  // Backward data reads y's gradient a tap (K channels) at a time, with stride 1 only, and only
  // where the flipped filter's padding dil * (F - 1) - pad is not negative.
  auto bwd_data = [](const std::string& shape) {
    return parse_native_problem(shape + ",dir=bwd_data,dtype=fp32");
  };
  EXPECT_TRUE(
      DirectImage::applies(bwd_data("n=1,c=3,k=64,hi=16,wi=16,y=3,x=3,pad_h=1,pad_w=1"), false));
  EXPECT_FALSE(DirectImage::applies(
      bwd_data("n=1,c=3,k=64,hi=16,wi=16,y=3,x=3,pad_h=1,pad_w=1,stride_w=2"), false));
  EXPECT_FALSE(DirectImage::applies(bwd_data("n=1,c=3,k=64,hi=16,wi=16,y=3,x=3,pad_h=3"), false));
}

TEST(ConvDirect, PiecesEndAtOutputRowsAndRegisterTiles) {
  // Output 3 x 5 (stride 2 in w over a padded width of 10).
  const Problem p = forward("n=1,c=8,k=8,hi=3,wi=9,y=1,x=3,pad_w=1,stride_w=2");
  ASSERT_EQ(p.wo, 5);
  const DirectImage direct(p);
  EXPECT_EQ(direct.padded_floats(), 3 * 11 * 8);
  EXPECT_EQ(direct.row_stride(), 16);
  std::vector<DirectPiece> pieces;
  direct.pieces(3, 9, 4, pieces);  // rows 3..11: (h0, w3..4), (h1, w0..4), (h2, w0..1)
  std::vector<std::vector<std::int64_t>> got;
  for (const DirectPiece& piece : pieces) got.push_back({piece.i0, piece.count, piece.offset});
  const std::vector<std::vector<std::int64_t>> want{
      {0, 2, (0 * 11 + 6) * 8},  // tile 0 ends with row 0's last two pixels, then row 1
      {2, 2, (1 * 11 + 0) * 8},
      {4, 3, (1 * 11 + 4) * 8},  // tile 1: row 1's w 2..4, then row 2's w 0
      {7, 1, (2 * 11 + 0) * 8},
      {8, 1, (2 * 11 + 2) * 8},  // tile 2
  };
  EXPECT_EQ(got, want);
}

TEST(ConvDirect, SegmentsFollowFilterRowsOrTaps) {
  std::vector<DirectSegment> segments;
  auto as_rows = [&] {
    std::vector<std::vector<std::int64_t>> out;
    for (const DirectSegment& s : segments) out.push_back({s.k, s.len, s.offset});
    return out;
  };
  // One group, dilation 1: a filter row's 3 taps x 4 channels are 12 values back to back; the
  // next filter row starts one padded image row (10 pixels) further.
  const DirectImage rows(forward("n=1,c=4,k=8,hi=6,wi=8,y=3,x=3,pad_h=1,pad_w=1"));
  rows.segments(8, 12, segments);  // columns 8..19: row 0's last 4, row 1's first 8
  EXPECT_EQ(as_rows(), (std::vector<std::vector<std::int64_t>>{{0, 4, 8}, {4, 8, 40}}));
  // Two groups: each tap's 4 channels on its own, pixels 8 values apart.
  const DirectImage taps(forward("n=1,c=8,k=8,g=2,hi=6,wi=8,y=3,x=3,pad_h=1,pad_w=1"));
  taps.segments(2, 8, segments);  // tap 0's channels 2..3, tap 1's 0..3, tap 2's 0..1
  EXPECT_EQ(as_rows(), (std::vector<std::vector<std::int64_t>>{{0, 2, 2}, {2, 4, 8}, {6, 2, 16}}));
  // Backward data: y's gradient (6 x 6, k = 4 channels) by the flipped filter, padded by
  // 3 - 1 - 1 = 1 each side in h and 3 - 1 - 0 = 2 in w: tap (y, x) reads tap (2 - y, 2 - x).
  const DirectImage flipped(parse_native_problem(
      "n=1,c=8,k=4,hi=6,wi=8,y=3,x=3,pad_h=1,pad_w=0,dir=bwd_data,dtype=fp32"));
  ASSERT_EQ(flipped.padded_floats(), (6 + 2) * (6 + 4) * 4);
  flipped.segments(0, 8, segments);  // taps (0, 0) and (0, 1)
  EXPECT_EQ(as_rows(), (std::vector<std::vector<std::int64_t>>{{0, 4, (2 * 10 + 2) * 4},
                                                               {4, 4, (2 * 10 + 1) * 4}}));
}

}  // namespace
}  // namespace kselect::conv::cpu
