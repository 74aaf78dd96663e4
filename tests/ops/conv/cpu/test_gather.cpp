// The im2col gathers of the implicit GEMM against im2col written out directly.
#include "ops/conv/cpu/gather.h"

#include <gtest/gtest.h>

#include "ops/cpu_gemm_core/bf16.h"

namespace kselect::conv::cpu {
namespace {

// im2col of the input x (NHWGC) for group g: row = output pixel, column = (y, x, c); zero where
// the tap falls into the padding.
std::vector<float> im2col(const Problem& p, const std::vector<float>& x, std::int64_t g) {
  const std::int64_t cg = p.c / p.g;
  std::vector<float> out;
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t oh = 0; oh < p.ho; ++oh)
      for (std::int64_t ow = 0; ow < p.wo; ++ow)
        for (std::int64_t fy = 0; fy < p.y; ++fy)
          for (std::int64_t fx = 0; fx < p.x; ++fx)
            for (std::int64_t c = 0; c < cg; ++c) {
              const std::int64_t ih = oh * p.stride[1] - p.pad[1] + fy * p.dil[1];
              const std::int64_t iw = ow * p.stride[2] - p.pad[2] + fx * p.dil[2];
              const bool inside = ih >= 0 && ih < p.hi && iw >= 0 && iw < p.wi;
              out.push_back(inside ? x[size_t(((n * p.hi + ih) * p.wi + iw) * p.c + g * cg + c)]
                                   : 0.0f);
            }
  return out;
}

GatherSpec image_spec(const Problem& p, const void* x) {
  GatherSpec s;
  s.base = x;
  s.group_stride = p.c / p.g;
  s.pixel_stride = p.c;
  s.run = p.c / p.g;
  s.taps = int(p.z * p.y * p.x);
  s.batch = p.n;
  s.rows_dims = {p.do_, p.ho, p.wo};
  s.source_dims = {p.di, p.hi, p.wi};
  s.filter = {p.z, p.y, p.x};
  s.stride = p.stride, s.pad = p.pad, s.dil = p.dil;
  return s;
}

TEST(ConvGather, ForwardImageMatchesIm2colForEveryCopyWidthAndSpecialisation) {
  Problem p = parse_native_problem(
      "n=2,c=16,k=8,g=2,hi=6,wi=7,y=3,x=3,pad_h=1,pad_w=2,pad_right_w=0,stride_h=2,dil_w=2,"
      "dir=fwd,dtype=fp32");
  std::vector<float> x(size_t(p.n * p.hi * p.wi * p.c));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97) + 1;
  for (std::int64_t g = 0; g < p.g; ++g) {
    const std::vector<float> want = im2col(p, x, g);
    for (int vec : {1, 4, 8})
      for (auto spec : {Specialization::kDefault, Specialization::kFilter3x3}) {
        Gather gather(image_spec(p, x.data()), spec, vec);
        ASSERT_EQ(gather.rows() * gather.cols(), std::int64_t(want.size()));
        // A block in the middle: rows 3..9, columns 8..39 (whole taps and part of one).
        std::vector<float> block(7 * 32, -1.0f);
        gather.copy(g, 3, 7, 8, 32, block.data(), 32);
        for (int r = 0; r < 7; ++r)
          for (int c = 0; c < 32; ++c)
            ASSERT_EQ(block[size_t(r * 32 + c)], want[size_t((3 + r) * gather.cols() + 8 + c)])
                << "group " << g << " vec " << vec << " row " << r << " col " << c;
      }
  }
}

// G = 1 and dilation 1: a filter row's taps lie back to back and are copied as one run, cut
// where a tap falls into the padding; the whole im2col, row after row (the cursor crossing
// image rows and images), and the same block as micro-panels with zeroed edge columns.
TEST(ConvGather, BackToBackTapsAndPanelsMatchIm2col) {
  Problem p = parse_native_problem(
      "n=2,c=3,k=8,hi=9,wi=8,y=7,x=7,pad_h=3,pad_w=3,stride_h=2,stride_w=2,dir=fwd,dtype=fp32");
  std::vector<float> x(size_t(p.n * p.hi * p.wi * p.c));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 89) + 1;
  const std::vector<float> want = im2col(p, x, 0);
  Gather gather(image_spec(p, x.data()), Specialization::kDefault, 1);
  const std::int64_t rows = gather.rows(), cols = gather.cols();
  std::vector<float> all(size_t(rows * cols), -1.0f);
  gather.copy(0, 0, int(rows), 0, int(cols), all.data(), cols);
  ASSERT_EQ(all, want);
  // Rows 5..17 x columns 20..89 as 16-wide panels: 70 columns, so the last panel has 6 valid.
  const int nrows = 13, col0 = 20, ncols = 70, nr = 16;
  std::vector<float> panels(size_t((ncols + nr - 1) / nr * nr * nrows), -1.0f);
  gather.copy_panels(0, 5, nrows, col0, ncols, panels.data(), nr);
  for (int j = 0; j < (ncols + nr - 1) / nr * nr; ++j)
    for (int r = 0; r < nrows; ++r) {
      const float got = panels[size_t(j / nr * nr * nrows + r * nr + j % nr)];
      const float expected = j < ncols ? want[size_t((5 + r) * cols + col0 + j)] : 0.0f;
      ASSERT_EQ(got, expected) << "row " << r << " column " << j;
    }
}

TEST(ConvGather, OneByOneStridedAndBf16Widening) {
  Problem p = parse_native_problem(
      "n=1,c=8,k=8,hi=5,wi=5,y=1,x=1,stride_h=2,stride_w=2,"
      "dir=fwd,dtype=bf16");
  std::vector<float> x(size_t(p.hi * p.wi * p.c));
  std::vector<std::uint16_t> bits;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = float(int(i % 13) - 6);
    bits.push_back(kernels::float_to_bf16(x[i]));
  }
  const std::vector<float> want = im2col(p, x, 0);
  for (int vec : {1, 8}) {
    GatherSpec spec = image_spec(p, bits.data());
    spec.bf16 = true;
    Gather gather(spec, Specialization::kFilter1x1Pad0, vec);
    std::vector<float> all(want.size());
    gather.copy(0, 0, int(gather.rows()), 0, int(gather.cols()), all.data(), gather.cols());
    EXPECT_EQ(all, want) << "vec " << vec;
  }
}

TEST(ConvGather, TransposedMapReadsOnlyOutputsTheStrideReaches) {
  // Backward data, 1-D along w: input pixel iw takes output pixel ow when
  // ow * stride - pad + tap * dil == iw.
  Problem p = parse_native_problem(
      "n=1,c=1,k=2,hi=1,wi=7,y=1,x=3,pad_w=1,stride_w=2,"
      "dir=bwd_data,dtype=fp32");
  ASSERT_EQ(p.wo, 4);
  std::vector<float> y(size_t(p.wo * p.k));
  for (size_t i = 0; i < y.size(); ++i) y[i] = float(i + 1);
  GatherSpec s;
  s.base = y.data();
  s.group_stride = p.k, s.pixel_stride = p.k, s.run = p.k, s.taps = 3, s.batch = 1;
  s.map = TapMap::kTransposed;
  s.rows_dims = {1, 1, p.wi}, s.source_dims = {1, 1, p.wo};
  s.filter = {1, 1, 3}, s.stride = {1, 1, 2}, s.pad = {0, 0, 1}, s.dil = {1, 1, 1};
  Gather gather(s, Specialization::kDefault, 1);
  std::vector<float> got(size_t(gather.rows() * gather.cols()));
  gather.copy(0, 0, int(gather.rows()), 0, int(gather.cols()), got.data(), gather.cols());
  for (std::int64_t iw = 0; iw < p.wi; ++iw)
    for (std::int64_t tap = 0; tap < 3; ++tap)
      for (std::int64_t k = 0; k < p.k; ++k) {
        float want = 0;
        for (std::int64_t ow = 0; ow < p.wo; ++ow)
          if (ow * 2 - 1 + tap == iw) want = y[size_t(ow * p.k + k)];
        ASSERT_EQ(got[size_t(iw * gather.cols() + tap * p.k + k)], want)
            << "iw " << iw << " tap " << tap << " k " << k;
      }
}

TEST(ConvGather, RowPhasesVisitEveryPixelOnceWithOnePhasePerStrideOffset) {
  // 2 images of 3 x 5 pixels, stride 2 x 2 along h and w: phase (ph, pw) holds the pixels with
  // h % 2 == ph and w % 2 == pw, in (n, h, w) order, phases one after the other.
  RowPhases phases(2, {1, 3, 5}, {1, 2, 2});
  ASSERT_EQ(phases.count(), 4);
  std::vector<int> seen(2 * 3 * 5, 0);
  int last_phase = 0;
  std::int64_t last_pixel = -1;
  for (std::int64_t row = 0; row < 2 * 3 * 5; ++row) {
    std::int64_t n, pos[3];
    const int phase = phases.decode(row, n, pos);
    const auto offset = phases.offset(phase);
    EXPECT_EQ(pos[1] % 2, offset[1]) << row;
    EXPECT_EQ(pos[2] % 2, offset[2]) << row;
    ASSERT_GE(phase, last_phase) << row;
    const std::int64_t pixel = phases.pixel(row);
    EXPECT_EQ(pixel, (n * 3 + pos[1]) * 5 + pos[2]);
    if (phase == last_phase) EXPECT_GT(pixel, last_pixel) << row;
    last_phase = phase, last_pixel = pixel;
    ++seen[size_t(pixel)];
  }
  for (int count : seen) EXPECT_EQ(count, 1);
  // A stride past the extent leaves its phases empty (h = 1, stride 2: no pixel with h odd).
  RowPhases thin(1, {1, 1, 4}, {1, 2, 2});
  std::int64_t n, pos[3];
  for (std::int64_t row = 0; row < 4; ++row) EXPECT_LE(thin.decode(row, n, pos), 1);
}

TEST(ConvGather, IndexedRowsAreWeightRowsPerTap) {
  // Backward data's B: row (tap, k) is w[k][tap][:], for K/G = 3 channels and 2 taps of C/G = 4.
  std::vector<float> w(3 * 2 * 4);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i);
  GatherSpec s;
  s.base = w.data();
  s.map = TapMap::kIndexed, s.taps = 2, s.run = 4, s.index_blocks = 3, s.index_row_stride = 8;
  Gather gather(s, Specialization::kDefault, 4);
  ASSERT_EQ(gather.rows(), 6);
  ASSERT_EQ(gather.cols(), 4);
  std::vector<float> got(24);
  gather.copy(0, 0, 6, 0, 4, got.data(), 4);
  for (int tap = 0; tap < 2; ++tap)
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(got[size_t((tap * 3 + k) * 4 + c)], w[size_t((k * 2 + tap) * 4 + c)]);
}

}  // namespace
}  // namespace kselect::conv::cpu
