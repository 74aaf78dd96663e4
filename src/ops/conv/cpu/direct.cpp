#include "ops/conv/cpu/direct.h"

#include <algorithm>
#include <cstring>

namespace kselect::conv::cpu {

using std::int64_t;

namespace {

bool transposed(const Problem& p) {
  return *p.dir == Direction::kBackwardData;
}

// Backward data with stride 1 is a forward convolution of the output gradient by the flipped
// filter: its image is padded by dil * (F - 1) - pad on each side (negative: never reached).
std::int64_t flipped_pad(const Problem& p, int axis, std::int64_t pad) {
  const std::array<std::int64_t, 3> filter{p.z, p.y, p.x};
  return p.dil[size_t(axis)] * (filter[size_t(axis)] - 1) - pad;
}

}  // namespace

bool DirectImage::applies(const Problem& p, bool bf16) {
  if (bf16 || !p.dir) return false;
  if (transposed(p))  // a strided one gathers stride phase by phase instead
    for (int a = 0; a < 3; ++a)
      if (p.stride[size_t(a)] != 1 || flipped_pad(p, a, p.pad[size_t(a)]) < 0 ||
          flipped_pad(p, a, p.right_pad(a)) < 0)
        return false;
  const int64_t run = transposed(p) ? p.k / p.g : p.c / p.g;
  const bool contiguous = !transposed(p) && p.g == 1 && p.dil[2] == 1;
  const int64_t longest = contiguous ? p.x * run : run;
  return longest >= kMinRun && longest < kMaxRun;
}

DirectImage::DirectImage(const Problem& p)
    : flipped_(transposed(p)),
      contiguous_(!flipped_ && p.g == 1 && p.dil[2] == 1),
      batch_(p.n),
      pixel_(flipped_ ? p.k : p.c),
      run_(pixel_ / p.g),
      in_(flipped_ ? std::array<int64_t, 3>{p.do_, p.ho, p.wo}
                   : std::array<int64_t, 3>{p.di, p.hi, p.wi}),
      out_(flipped_ ? std::array<int64_t, 3>{p.di, p.hi, p.wi}
                    : std::array<int64_t, 3>{p.do_, p.ho, p.wo}),
      filter_{p.z, p.y, p.x},
      stride_(p.stride),
      dil_(p.dil) {
  for (int a = 0; a < 3; ++a) {
    const int64_t left = flipped_ ? flipped_pad(p, a, p.pad[size_t(a)]) : p.pad[size_t(a)];
    const int64_t right = flipped_ ? flipped_pad(p, a, p.right_pad(a)) : p.right_pad(a);
    pad_[size_t(a)] = left;
    dims_[size_t(a)] = in_[size_t(a)] + left + right;
    padded_ = padded_ || dims_[size_t(a)] != in_[size_t(a)];
  }
}

// Rows of the padded images (n, d, h) split among threads; each row is its left padding, the
// input row (or zeros above, below, before and after the input) and its right padding.
void DirectImage::fill_padded(const float* x, float* out, int t, int nt) const {
  const int64_t rows = batch_ * dims_[0] * dims_[1];
  const int64_t row_floats = dims_[2] * pixel_, left = pad_[2] * pixel_,
                in_floats = in_[2] * pixel_;
  for (int64_t r = rows * t / nt; r < rows * (t + 1) / nt; ++r) {
    const int64_t h = r % dims_[1] - pad_[1], d = r / dims_[1] % dims_[0] - pad_[0],
                  n = r / (dims_[1] * dims_[0]);
    float* dst = out + r * row_floats;
    if (d < 0 || d >= in_[0] || h < 0 || h >= in_[1]) {
      std::memset(dst, 0, sizeof(float) * size_t(row_floats));
      continue;
    }
    const float* src = x + ((n * in_[0] + d) * in_[1] + h) * in_floats;
    std::memset(dst, 0, sizeof(float) * size_t(left));
    std::memcpy(dst + left, src, sizeof(float) * size_t(in_floats));
    std::memset(dst + left + in_floats, 0, sizeof(float) * size_t(row_floats - left - in_floats));
  }
}

void DirectImage::pieces(int64_t r0, int rows, int mr, std::vector<DirectPiece>& out) const {
  out.clear();
  int64_t rest = r0;
  int64_t w = rest % out_[2];
  rest /= out_[2];
  int64_t h = rest % out_[1];
  rest /= out_[1];
  int64_t d = rest % out_[0];
  int64_t n = rest / out_[0];
  for (int i = 0; i < rows;) {
    // To the end of the output row or of the register tile, whichever comes first.
    const int count = int(std::min<int64_t>({out_[2] - w, mr - i % mr, rows - i}));
    const int64_t pixel =
        ((n * dims_[0] + d * stride_[0]) * dims_[1] + h * stride_[1]) * dims_[2] + w * stride_[2];
    out.push_back({i, count, pixel * pixel_});
    i += count;
    if ((w += count) < out_[2]) continue;
    w = 0;
    if (++h < out_[1]) continue;
    h = 0;
    if (++d < out_[0]) continue;
    d = 0;
    ++n;
  }
}

void DirectImage::segments(int64_t k0, int kl, std::vector<DirectSegment>& out) const {
  out.clear();
  for (int64_t k = k0; k < k0 + kl;) {
    const int64_t tap = k / run_, c = k - tap * run_;
    int64_t x = tap % filter_[2], y = tap / filter_[2] % filter_[1],
            z = tap / (filter_[2] * filter_[1]);
    if (flipped_) x = filter_[2] - 1 - x, y = filter_[1] - 1 - y, z = filter_[0] - 1 - z;
    // A filter row's taps lie back to back when the pixel holds only these channels.
    const int64_t end =
        std::min(k0 + kl, contiguous_ ? (tap - x + filter_[2]) * run_ : (tap + 1) * run_);
    const int64_t at = ((z * dil_[0] * dims_[1] + y * dil_[1]) * dims_[2] + x * dil_[2]) * pixel_;
    out.push_back({int(k - k0), int(end - k), at + c});
    k = end;
  }
}

void DirectImage::copy_rows(const float* source, int64_t g, int64_t r0, int rows, int64_t c0,
                            int cols, float* out, std::vector<DirectPiece>& pieces,
                            std::vector<DirectSegment>& segments) const {
  this->pieces(r0, rows, rows, pieces);
  this->segments(c0, cols, segments);
  const float* image = source + group_offset(g);
  for (const DirectPiece& piece : pieces)
    for (int i = 0; i < piece.count; ++i) {
      const float* pixel = image + piece.offset + i * row_stride();
      float* row = out + int64_t(piece.i0 + i) * cols;
      for (const DirectSegment& seg : segments)
        std::memcpy(row + seg.k, pixel + seg.offset, sizeof(float) * size_t(seg.len));
    }
}

}  // namespace kselect::conv::cpu
