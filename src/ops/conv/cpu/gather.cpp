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
void copy_f32(float* dst, const float* src, int count) {
  for (int i = 0; i < count; i += V) std::memcpy(dst + i, src + i, V * sizeof(float));
}
template <>
[[gnu::optimize("no-tree-vectorize")]] void copy_f32<1>(float* dst, const float* src, int count) {
  for (int i = 0; i < count; ++i) dst[i] = src[i];
}

template <int V>
void widen_bf16(float* dst, const std::uint16_t* src, int count) {
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

void Gather::copy_run(float* dst, const char* src, int count) const {
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

// The sources of every tap of one row for a fixed filter of FZ x FY x FX taps (0: the filter's
// own size, read at run time); the fixed sizes let the compiler unroll the tap loops.
template <int FZ, int FY, int FX, bool kTransposed>
void tap_sources(const GatherSpec& s, const int64_t pos[3], const char* image, int elem_bytes,
                 const char** out) {
  const int64_t fz = FZ ? FZ : s.filter[0], fy = FY ? FY : s.filter[1], fx = FX ? FX : s.filter[2];
  auto source = [&](int axis, int64_t tap) {
    return kTransposed ? transposed_source(pos[axis], tap, s.stride[axis], s.pad[axis], s.dil[axis],
                                           s.source_dims[axis])
                       : forward_source(pos[axis], tap, s.stride[axis], s.pad[axis], s.dil[axis],
                                        s.source_dims[axis]);
  };
  int64_t xs[FX ? FX : 16];
  const bool small = fx <= 16;
  if (small)
    for (int64_t x = 0; x < fx; ++x) xs[x] = source(2, x);
  int t = 0;
  for (int64_t z = 0; z < fz; ++z) {
    const int64_t sd = source(0, z);
    for (int64_t y = 0; y < fy; ++y) {
      const int64_t sh = sd < 0 ? -1 : source(1, y);
      for (int64_t x = 0; x < fx; ++x, ++t) {
        const int64_t sw = sh < 0 ? -1 : small ? xs[x] : source(2, x);
        out[t] = sw < 0 ? nullptr
                        : image + ((sd * s.source_dims[1] + sh) * s.source_dims[2] + sw) *
                                      s.pixel_stride * elem_bytes;
      }
    }
  }
}
}  // namespace

void Gather::row_sources(const char* base, int64_t row, const char** sources) const {
  if (spec_.map == TapMap::kIndexed) {
    const int64_t block = row % spec_.index_blocks, tap = row / spec_.index_blocks;
    sources[0] = base + (block * spec_.index_row_stride + tap * spec_.run) * elem_bytes_;
    return;
  }
  int64_t pos[3], n;
  if (spec_.phases) {
    spec_.phases->decode(row, n, pos);
  } else {
    int64_t rest = row;
    pos[2] = rest % spec_.rows_dims[2], rest /= spec_.rows_dims[2];
    pos[1] = rest % spec_.rows_dims[1], rest /= spec_.rows_dims[1];
    pos[0] = rest % spec_.rows_dims[0];
    n = rest / spec_.rows_dims[0];
  }
  const int64_t image_pixels = spec_.source_dims[0] * spec_.source_dims[1] * spec_.source_dims[2];
  const char* image = base + n * image_pixels * spec_.pixel_stride * elem_bytes_;
  const bool transposed = spec_.map == TapMap::kTransposed;
  switch (specialization_) {
    case Specialization::kFilter1x1Pad0:
    case Specialization::kFilter1x1Stride1Pad0:
      // One tap at the row's own position scaled by the stride: never in the padding, so the
      // forward map needs no bounds test at all.
      if (!transposed) {
        sources[0] =
            image + ((pos[0] * spec_.stride[0] * spec_.source_dims[1] + pos[1] * spec_.stride[1]) *
                         spec_.source_dims[2] +
                     pos[2] * spec_.stride[2]) *
                        spec_.pixel_stride * elem_bytes_;
        return;
      }
      return tap_sources<1, 1, 1, true>(spec_, pos, image, elem_bytes_, sources);
    case Specialization::kFilter3x3:
      if (spec_.filter[0] == 3)
        return transposed ? tap_sources<3, 3, 3, true>(spec_, pos, image, elem_bytes_, sources)
                          : tap_sources<3, 3, 3, false>(spec_, pos, image, elem_bytes_, sources);
      return transposed ? tap_sources<1, 3, 3, true>(spec_, pos, image, elem_bytes_, sources)
                        : tap_sources<1, 3, 3, false>(spec_, pos, image, elem_bytes_, sources);
    case Specialization::kDefault:
      break;
  }
  return transposed ? tap_sources<0, 0, 0, true>(spec_, pos, image, elem_bytes_, sources)
                    : tap_sources<0, 0, 0, false>(spec_, pos, image, elem_bytes_, sources);
}

void Gather::copy(int64_t group, int64_t row0, int nrows, int64_t col0, int ncols, float* dst,
                  int64_t ld) const {
  const char* base =
      static_cast<const char*>(spec_.base) + group * spec_.group_stride * elem_bytes_;
  // Room for an 8x8x8 filter on the stack: runs allocate nothing (larger filters do).
  const char* stack_sources[512];
  std::vector<const char*> heap_sources;
  const char** sources = stack_sources;
  const int taps = spec_.map == TapMap::kIndexed ? 1 : spec_.taps;
  if (taps > 512) {
    heap_sources.resize(size_t(taps));
    sources = heap_sources.data();
  }
  const int64_t first_tap = col0 / spec_.run, last_tap = (col0 + ncols - 1) / spec_.run;
  for (int i = 0; i < nrows; ++i) {
    row_sources(base, row0 + i, sources);
    float* out = dst + i * ld;
    int64_t col = col0;
    for (int64_t t = first_tap; t <= last_tap; ++t) {
      const int64_t c = col - t * spec_.run;
      const int count = int(std::min<int64_t>(spec_.run - c, col0 + ncols - col));
      const char* src =
          spec_.map == TapMap::kIndexed ? (t == 0 ? sources[0] : nullptr) : sources[t];
      copy_run(out + (col - col0), src ? src + c * elem_bytes_ : nullptr, count);
      col += count;
    }
  }
}

}  // namespace kselect::conv::cpu
