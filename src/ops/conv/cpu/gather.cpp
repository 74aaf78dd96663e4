#include "ops/conv/cpu/gather.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/cpu_gemm_core/bf16.h"

namespace kselect::conv::cpu {

namespace {

using std::int64_t;

// Copies `count` values (a multiple of V) in chunks of V: one V-wide load and store per chunk
// (the vector width the configuration's vec field names); V = 1 copies value by value.
template <int V>
inline void copy_f32(float* dst, const float* src, int count) {
  for (int i = 0; i < count; i += V) std::memcpy(dst + i, src + i, V * sizeof(float));
}
template <>
[[gnu::optimize("no-tree-vectorize")]] void copy_f32<1>(float* dst, const float* src, int count) {
  for (int i = 0; i < count; ++i) dst[i] = src[i];
}

template <int V>
inline void widen_bf16(float* dst, const std::uint16_t* src, int count) {
  for (int i = 0; i < count; i += V) {
    std::uint32_t words[V];
    for (int v = 0; v < V; ++v) words[v] = std::uint32_t(src[i + v]) << 16;
    std::memcpy(dst + i, words, sizeof words);
  }
}
template <>
[[gnu::optimize("no-tree-vectorize")]] void widen_bf16<1>(float* dst, const std::uint16_t* src,
                                                          int count) {
  for (int i = 0; i < count; ++i) dst[i] = kernels::bf16_to_float(src[i]);
}

}  // namespace

void copy_values(float* dst, const float* src, int count, int vec) {
  switch (vec) {
    case 8:
      return copy_f32<8>(dst, src, count);
    case 4:
      return copy_f32<4>(dst, src, count);
    default:
      return copy_f32<1>(dst, src, count);
  }
}

RowPhases::RowPhases(int64_t batch, const std::array<int64_t, 3>& dims,
                     const std::array<int64_t, 3>& stride)
    : batch_(batch), dims_(dims), stride_(stride) {
  start_.assign(1, 0);
  const int phases = int(stride[0] * stride[1] * stride[2]);
  for (int p = 0; p < phases; ++p) {
    const std::array<int64_t, 3> o = offset(p);
    int64_t rows = batch;
    for (int a = 0; a < 3; ++a)  // coordinates o, o + s, ... below the extent
      rows *= dims[a] > o[a] ? (dims[a] - o[a] + stride[a] - 1) / stride[a] : 0;
    start_.push_back(start_.back() + rows);
  }
}

std::array<int64_t, 3> RowPhases::offset(int p) const {
  return {p / (stride_[1] * stride_[2]), p / stride_[2] % stride_[1], p % stride_[2]};
}

int RowPhases::decode(int64_t row, int64_t& n, int64_t pos[3]) const {
  int p = 0;
  while (row >= start_[size_t(p) + 1]) ++p;  // a few phases: a linear walk
  const std::array<int64_t, 3> o = offset(p);
  int64_t rest = row - start_[size_t(p)];
  for (int a = 2; a >= 0; --a) {
    const int64_t extent = (dims_[a] - o[a] + stride_[a] - 1) / stride_[a];
    pos[a] = o[a] + rest % extent * stride_[a];
    rest /= extent;
  }
  n = rest;
  return p;
}

int64_t RowPhases::pixel(int64_t row) const {
  int64_t n, pos[3];
  decode(row, n, pos);
  return ((n * dims_[0] + pos[0]) * dims_[1] + pos[1]) * dims_[2] + pos[2];
}

Gather::Gather(const GatherSpec& spec, Specialization specialization, int vec)
    : spec_(spec), specialization_(specialization), vec_(vec), elem_bytes_(spec.bf16 ? 2 : 4) {
  rows_ = spec_.map == TapMap::kIndexed
              ? int64_t(spec_.taps) * spec_.index_blocks
              : spec_.batch * spec_.rows_dims[0] * spec_.rows_dims[1] * spec_.rows_dims[2];
}

// Inlined into copy_row, which calls it once per stretch of a row (a gather's inner loop).
[[gnu::always_inline]] inline void Gather::copy_run(float* dst, const char* src, int count) const {
  if (!src) {
    std::memset(dst, 0, sizeof(float) * size_t(count));
    return;
  }
  if (spec_.bf16) {
    auto* s = reinterpret_cast<const std::uint16_t*>(src);
    switch (vec_) {
      case 8:
        return widen_bf16<8>(dst, s, count);
      case 4:
        return widen_bf16<4>(dst, s, count);
      default:
        return widen_bf16<1>(dst, s, count);
    }
  }
  copy_values(dst, reinterpret_cast<const float*>(src), count, vec_);
}

// The source pixel of one tap along one axis, or -1 when it falls outside the source.
namespace {
inline int64_t forward_source(int64_t out, int64_t tap, int64_t stride, int64_t pad, int64_t dil,
                              int64_t extent) {
  const int64_t s = out * stride - pad + tap * dil;
  return s >= 0 && s < extent ? s : -1;
}
inline int64_t transposed_source(int64_t in, int64_t tap, int64_t stride, int64_t pad, int64_t dil,
                                 int64_t extent) {
  const int64_t t = in + pad - tap * dil;
  if (t < 0 || t % stride != 0) return -1;
  return t / stride < extent ? t / stride : -1;
}

// Room on the stack for the taps of an 8x8x8 filter: copies allocate nothing (larger ones do).
constexpr int64_t kStackTaps = 512;
}  // namespace

// The rows of one copy in order: row0's position decoded once, then stepped along w (carrying
// into h, d and the batch) without the divisions of a decode per row; phase-ordered rows decode.
struct Gather::Cursor {
  const GatherSpec& s;
  int64_t row, n = 0, pos[3] = {0, 0, 0};
  Cursor(const GatherSpec& spec, int64_t row0) : s(spec), row(row0) { decode(); }
  void decode() {
    if (s.phases) {
      s.phases->decode(row, n, pos);
      return;
    }
    int64_t rest = row;
    pos[2] = rest % s.rows_dims[2], rest /= s.rows_dims[2];
    pos[1] = rest % s.rows_dims[1], rest /= s.rows_dims[1];
    pos[0] = rest % s.rows_dims[0];
    n = rest / s.rows_dims[0];
  }
  void next() {
    ++row;
    if (s.phases) return decode();
    if (++pos[2] < s.rows_dims[2]) return;
    pos[2] = 0;
    if (++pos[1] < s.rows_dims[1]) return;
    pos[1] = 0;
    if (++pos[0] < s.rows_dims[0]) return;
    pos[0] = 0;
    ++n;
  }
};

// The sources of taps [first, last] of the cursor's row (nullptr: zeros), sources[t - first].
void Gather::row_sources(const char* base, const Cursor& at, int64_t first, int64_t last,
                         const char** sources) const {
  const GatherSpec& s = spec_;
  if (s.map == TapMap::kIndexed) {
    const int64_t block = at.row % s.index_blocks, tap = at.row / s.index_blocks;
    sources[0] = base + (block * s.index_row_stride + tap * s.run) * elem_bytes_;
    return;
  }
  const int64_t image_pixels = s.source_dims[0] * s.source_dims[1] * s.source_dims[2];
  const char* image = base + at.n * image_pixels * s.pixel_stride * elem_bytes_;
  const bool transposed = s.map == TapMap::kTransposed;
  const bool one_by_one = specialization_ == Specialization::kFilter1x1Pad0 ||
                          specialization_ == Specialization::kFilter1x1Stride1Pad0;
  if (one_by_one && !transposed) {
    // One tap at the row's own position scaled by the stride: never in the padding, so no
    // bounds test at all.
    sources[0] = image + ((at.pos[0] * s.stride[0] * s.source_dims[1] + at.pos[1] * s.stride[1]) *
                              s.source_dims[2] +
                          at.pos[2] * s.stride[2]) *
                             s.pixel_stride * elem_bytes_;
    return;
  }
  auto source = [&](int axis, int64_t tap) {
    return transposed ? transposed_source(at.pos[axis], tap, s.stride[axis], s.pad[axis],
                                          s.dil[axis], s.source_dims[axis])
                      : forward_source(at.pos[axis], tap, s.stride[axis], s.pad[axis], s.dil[axis],
                                       s.source_dims[axis]);
  };
  // Taps in (z, y, x) order: the source row of each (z, y) is found once, then each x looks up
  // only its column.
  const int64_t fx = s.filter[2], pixel_bytes = s.pixel_stride * elem_bytes_;
  int64_t x = first % fx, y = first / fx % s.filter[1], z = first / (s.filter[1] * fx);
  const char* row_start = nullptr;  // the source row of (z, y) at w = 0, or null: all zeros
  auto start_row = [&] {
    const int64_t sd = source(0, z), sh = sd < 0 ? -1 : source(1, y);
    row_start =
        sh < 0 ? nullptr : image + (sd * s.source_dims[1] + sh) * s.source_dims[2] * pixel_bytes;
  };
  start_row();
  for (int64_t t = first; t <= last; ++t) {
    const int64_t sw = row_start ? source(2, x) : -1;
    sources[t - first] = sw < 0 ? nullptr : row_start + sw * pixel_bytes;
    if (++x == fx) {
      x = 0;
      if (++y == s.filter[1]) y = 0, ++z;
      if (t < last) start_row();
    }
  }
}

// Columns [col, end) of one row whose taps from `first` have `sources`, into out: one copy per
// stretch of taps that lie back to back in the source (a filter row's taps, when a pixel holds
// only the gathered channels and the dilation is 1) or are all zeros.
void Gather::copy_row(const char* const* sources, int64_t first, int64_t col, int64_t end,
                      float* out) const {
  const int64_t run = spec_.run;
  const char* pending = nullptr;  // the stretch: from pending (or zeros), `count` values
  bool zeros = false;
  int count = 0;
  auto flush = [&] {
    if (count) copy_run(out, zeros ? nullptr : pending, count);
    out += count;
    count = 0;
  };
  int64_t t = col / run, c = col - t * run;  // one division per row; then stepped
  for (; col < end; c = 0, ++t) {
    const int n = int(std::min<int64_t>(run - c, end - col));
    const char* tap = spec_.map == TapMap::kIndexed && t != 0 ? nullptr : sources[t - first];
    const char* src = tap ? tap + c * elem_bytes_ : nullptr;
    const bool joins = count && (src == nullptr) == zeros &&
                       (zeros || src == pending + int64_t(count) * elem_bytes_);
    if (!joins) {
      flush();
      pending = src, zeros = src == nullptr;
    }
    count += n;
    col += n;
  }
  flush();
}

void Gather::copy(int64_t group, int64_t row0, int nrows, int64_t col0, int ncols, float* dst,
                  int64_t ld) const {
  copy_block(group, row0, nrows, col0, ncols, dst, ld, 0);
}

void Gather::copy_panels(int64_t group, int64_t row0, int nrows, int64_t col0, int ncols,
                         float* dst, int nr) const {
  copy_block(group, row0, nrows, col0, ncols, dst, nr, nr);
}

// Rows [row0, row0 + nrows) x columns [col0, col0 + ncols): row i at dst + i * ld, or (nr > 0)
// as micro-panels nr wide, panel j at dst + j * nr * nrows, its edge columns zero.
void Gather::copy_block(int64_t group, int64_t row0, int nrows, int64_t col0, int ncols, float* dst,
                        int64_t ld, int nr) const {
  const char* base =
      static_cast<const char*>(spec_.base) + group * spec_.group_stride * elem_bytes_;
  const int64_t first = col0 / spec_.run, last = (col0 + ncols - 1) / spec_.run;
  const char* stack_sources[kStackTaps];
  std::vector<const char*> heap_sources;
  const char** sources = stack_sources;
  if (last - first + 1 > kStackTaps) {
    heap_sources.resize(size_t(last - first + 1));
    sources = heap_sources.data();
  }
  Cursor at(spec_, row0);
  for (int i = 0; i < nrows; ++i) {
    if (i > 0) at.next();  // never past the last row: a phase-ordered decode would not end
    row_sources(base, at, first, last, sources);
    if (nr == 0) {
      copy_row(sources, first, col0, col0 + ncols, dst + i * ld);
      continue;
    }
    for (int j = 0; j < ncols; j += nr) {
      const int width = std::min(nr, ncols - j);
      float* out = dst + int64_t(j) * nrows + int64_t(i) * nr;
      copy_row(sources, first, col0 + j, col0 + j + width, out);
      std::fill(out + width, out + nr, 0.0f);
    }
  }
}

}  // namespace kselect::conv::cpu
