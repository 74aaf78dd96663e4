#pragma once
// The input image x read in place ("direct", as oneDNN's brgconv does): no im2col. Forward's A
// and backward weight's B are x gathered by output pixel (one matrix row per output pixel,
// columns (tap, channel)); backward data with stride 1 is a forward convolution of y's gradient
// by the flipped filter, so its A is that image read the same way (taps in reverse). Output pixels
// next to each other along w read input pixels stride_w apart, so a run of them is a strided matrix
// for every column range whose input addresses are contiguous: a filter row's taps (X * C values
// back to back when the tensor holds one group and the dilation is 1) or one tap's channels. x is
// read from a zero-padded copy so that no tap of any output pixel falls outside it; the
// micro-kernel then reads the operand from the tensor with row stride stride_w * pixel, one call
// per (run of pixels, contiguous column range).
#include <array>
#include <cstdint>
#include <vector>

#include "ops/conv/problem.h"

namespace kselect::conv::cpu {

// Rows [i0, i0 + count) of a block are consecutive output pixels of one output row; their tap (0,
// 0, 0), channel 0 lies `offset` elements into the (padded) input, group 0.
struct DirectPiece {
  int i0, count;
  std::int64_t offset;
};

// Columns [k0 + k, k0 + k + len) of a range are contiguous in the input, from `offset`
// elements past a row's tap (0, 0, 0).
struct DirectSegment {
  int k, len;
  std::int64_t offset;
};

class DirectImage {
 public:
  // Contiguous column ranges shorter than this cost more in micro-kernel calls (each loads and
  // stores its C tile) than an im2col copy does: depthwise and narrow groups keep the gather.
  static constexpr std::int64_t kMinRun = 16;
  // Runs this long are gathered as a few long copies per row, which costs less than the
  // micro-kernel calls that output-row ends cut into partial tiles (measured on ResNet-50's
  // layers: experiments/conv-kernels/README.md).
  static constexpr std::int64_t kMaxRun = 256;
  // Whether p's image is read in place (forward, backward weight; backward data with stride 1):
  // fp32, contiguous runs in [kMinRun, kMaxRun).
  static bool applies(const Problem& p, bool bf16);

  DirectImage() = default;
  explicit DirectImage(const Problem& p);
  // Floats of the zero-padded input copy; 0 when p has no padding (the input is read as is).
  std::int64_t padded_floats() const { return padded_ ? batch_ * image_floats() : 0; }
  // Thread t of nt's share of the padded copy of x (whole images, every group).
  void fill_padded(const float* x, float* out, int t, int nt) const;
  // Elements between the A rows of consecutive output pixels along w.
  std::int64_t row_stride() const { return stride_[2] * pixel_; }
  std::int64_t group_offset(std::int64_t g) const { return g * run_; }
  // The longest contiguous column range: a filter row's values, or a tap's channels.
  std::int64_t longest_run() const { return contiguous_ ? filter_[2] * run_ : run_; }
  // Output pixels [r0, r0 + rows) cut at output-row ends and at every mr-th one (forward's
  // register tiles; backward weight, whose pixels are K, passes no limit).
  void pieces(std::int64_t r0, int rows, int mr, std::vector<DirectPiece>& out) const;
  // Columns (tap, channel) [k0, k0 + kl) cut into contiguous ranges.
  void segments(std::int64_t k0, int kl, std::vector<DirectSegment>& out) const;
  // Rows (output pixels) [r0, r0 + rows) x columns [c0, c0 + cols) of group g's matrix copied
  // row-major (row i at out + i * cols) from `source` (the image or its padded copy): one copy
  // per (pixel, contiguous range); `pieces` and `segments` are scratch.
  void copy_rows(const float* source, std::int64_t g, std::int64_t r0, int rows, std::int64_t c0,
                 int cols, float* out, std::vector<DirectPiece>& pieces,
                 std::vector<DirectSegment>& segments) const;

 private:
  std::int64_t image_floats() const { return dims_[0] * dims_[1] * dims_[2] * pixel_; }

  bool flipped_ = false;  // backward data (stride 1): y's gradient by the flipped filter
  bool padded_ = false, contiguous_ = false;
  std::int64_t batch_ = 1, pixel_ = 0, run_ = 0;  // pixel: G * C; run: C / G (K for flipped)
  std::array<std::int64_t, 3> in_{1, 1, 1}, dims_{1, 1, 1}, out_{1, 1, 1}, filter_{1, 1, 1},
      stride_{1, 1, 1}, dil_{1, 1, 1}, pad_{0, 0, 0};  // dims_: the read (padded) image
};

}  // namespace kselect::conv::cpu
