#include "ops/conv/cpu/col2im.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kselect::conv::cpu {

using std::int64_t;

namespace {

// The (tap, output coordinate) pairs that reach input coordinate `in` along one axis.
void reach(int64_t in, int64_t filter, int64_t stride, int64_t pad, int64_t dil, int64_t extent,
           std::vector<std::pair<int64_t, int64_t>>& pairs) {
  pairs.clear();
  for (int64_t t = 0; t < filter; ++t) {
    const int64_t v = in + pad - t * dil;
    if (v < 0 || v % stride != 0 || v / stride >= extent) continue;
    pairs.emplace_back(t, v / stride);
  }
}

}  // namespace

bool Col2Im::applies(const Problem& p, bool bf16, int nr) {
  if (bf16 || !p.dir || *p.dir != Direction::kBackwardData) return false;
  // Enough K (K / G) to keep a register tile busy, and channels that leave most of it idle.
  return p.k / p.g >= 16 && 2 * (p.c / p.g) <= nr;
}

Col2Im::Col2Im(const Problem& p)
    : groups_(p.g),
      cg_(p.c / p.g),
      taps_(p.z * p.y * p.x),
      in_{p.di, p.hi, p.wi},
      out_{p.do_, p.ho, p.wo},
      filter_{p.z, p.y, p.x},
      stride_(p.stride),
      pad_(p.pad),
      dil_(p.dil) {}

// One input row from the filter rows that reach it: with one group and no dilation along w, a
// filter row's taps are back to back in both the columns and the input row, so each (output
// pixel, filter row) adds one contiguous run (clipped at the row's ends).
void Col2Im::add_filter_rows(const float* col, float* out_row, int64_t od, int64_t oh, int64_t z,
                             int64_t y) const {
  const int64_t cols = columns(), run = filter_[2] * cg_;
  const float* src_row = col + (od * out_[1] + oh) * out_[2] * cols + (z * filter_[1] + y) * run;
  for (int64_t ow = 0; ow < out_[2]; ++ow) {
    const int64_t w0 = ow * stride_[2] - pad_[2];  // the input column of tap x = 0
    const int64_t lo = std::max<int64_t>(0, -w0), hi = std::min(filter_[2], in_[2] - w0);
    if (lo >= hi) continue;
    float* __restrict dst = out_row + (w0 + lo) * cg_;
    const float* __restrict src = src_row + ow * cols + lo * cg_;
    for (int64_t i = 0; i < (hi - lo) * cg_; ++i) dst[i] += src[i];
  }
}

void Col2Im::sum_rows(const float* col, float* dx, int64_t begin, int64_t end) const {
  std::vector<std::pair<int64_t, int64_t>> zs, ys, xs;
  const int64_t channels = groups_ * cg_, cols = columns();
  const bool runs = groups_ == 1 && dil_[2] == 1;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t d = row / in_[1], h = row % in_[1];
    reach(d, filter_[0], stride_[0], pad_[0], dil_[0], out_[0], zs);
    reach(h, filter_[1], stride_[1], pad_[1], dil_[1], out_[1], ys);
    float* out_row = dx + row * in_[2] * channels;
    std::memset(out_row, 0, sizeof(float) * size_t(in_[2] * channels));
    if (runs) {
      for (const auto& [z, od] : zs)
        for (const auto& [y, oh] : ys) add_filter_rows(col, out_row, od, oh, z, y);
      continue;
    }
    for (int64_t w = 0; w < in_[2]; ++w) {
      reach(w, filter_[2], stride_[2], pad_[2], dil_[2], out_[2], xs);
      float* out = out_row + w * channels;
      for (const auto& [z, od] : zs)
        for (const auto& [y, oh] : ys)
          for (const auto& [x, ow] : xs) {
            const int64_t tap = (z * filter_[1] + y) * filter_[2] + x;
            const float* src = col + ((od * out_[1] + oh) * out_[2] + ow) * cols + tap * cg_;
            for (int64_t g = 0; g < groups_; ++g)
              for (int64_t c = 0; c < cg_; ++c) out[g * cg_ + c] += src[g * taps_ * cg_ + c];
          }
    }
  }
}

}  // namespace kselect::conv::cpu
