#pragma once
// Backward data by columns: where the input has few channels per group (the stem's 3), the
// implicit GEMM's N (C / G) fills a sliver of each register tile and its K is K / G * taps deep.
// The column product instead multiplies y's gradient by the weights over K / G only, into one
// row of (tap, channel) columns per output pixel (N = taps * C / G, a full tile width), and then
// sums, for every input pixel, the columns of the output pixels and taps that reach it (col2im).
#include <array>
#include <cstdint>

#include "ops/conv/problem.h"

namespace kselect::conv::cpu {

class Col2Im {
 public:
  // The channels per group at or below which a register tile nr columns wide is mostly idle.
  static bool applies(const Problem& p, bool bf16, int nr);

  Col2Im() = default;
  explicit Col2Im(const Problem& p);
  std::int64_t out_pixels() const { return out_[0] * out_[1] * out_[2]; }  // per image
  std::int64_t columns() const { return groups_ * taps_ * cg_; }           // per output pixel
  std::int64_t in_rows() const { return in_[0] * in_[1]; }                 // (d, h) per image
  // Input rows [begin, end) of one image (its x gradient at dx) from that image's columns.
  void sum_rows(const float* col, float* dx, std::int64_t begin, std::int64_t end) const;

 private:
  void add_filter_rows(const float* col, float* out_row, std::int64_t od, std::int64_t oh,
                       std::int64_t z, std::int64_t y) const;

  std::int64_t groups_ = 1, cg_ = 0, taps_ = 1;
  std::array<std::int64_t, 3> in_{1, 1, 1}, out_{1, 1, 1}, filter_{1, 1, 1}, stride_{1, 1, 1},
      pad_{0, 0, 0}, dil_{1, 1, 1};
};

}  // namespace kselect::conv::cpu
