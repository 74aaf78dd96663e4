#include "ops/cpu_gemm_core/pack.h"

#include <algorithm>
#include <cstring>

#include "ops/cpu_gemm_core/bf16.h"

namespace kselect::kernels {

namespace {

using std::int64_t;
using std::uint16_t;
using std::uint32_t;

// One panel of `width` lanes (rows of A or columns of B) over kl values of K. Element (lane, k)
// of the source is at src[lane * ls + k * kstride]; lanes >= valid are zero. Walks the source
// in its storage order so reads are sequential.
template <class T>
void pack_panel(const T* src, int64_t ls, int64_t kstride, int valid, int width, int kl,
                float* dst) {
  if (kstride == 1) {
    for (int l = 0; l < valid; ++l) {
      const T* s = src + l * ls;
      for (int k = 0; k < kl; ++k) dst[k * width + l] = to_float(s[k]);
    }
  } else if (ls == 1) {  // lanes adjacent (a column-major A, a row-major B): unit-stride copies
    for (int k = 0; k < kl; ++k) {
      const T* s = src + k * kstride;
      float* d = dst + k * width;
      for (int l = 0; l < valid; ++l) d[l] = to_float(s[l]);
    }
  } else {
    for (int k = 0; k < kl; ++k) {
      const T* s = src + k * kstride;
      for (int l = 0; l < valid; ++l) dst[k * width + l] = to_float(s[l * ls]);
    }
  }
  if (valid < width)
    for (int k = 0; k < kl; ++k) std::fill(dst + k * width + valid, dst + (k + 1) * width, 0.0f);
}

void pack_panel_pair(const uint16_t* src, int64_t ls, int64_t kstride, int valid, int width, int kl,
                     uint32_t* dst) {
  const int pairs = packed_k(kl, true);
  auto at = [&](int l, int k) -> uint32_t { return k < kl ? src[l * ls + k * kstride] : 0; };
  for (int p = 0; p < pairs; ++p) {
    uint32_t* d = dst + p * width;
    for (int l = 0; l < valid; ++l) d[l] = at(l, 2 * p) | at(l, 2 * p + 1) << 16;
    std::fill(d + valid, d + width, 0u);
  }
}

// Packs `lanes` lanes in panels of `width`: the common loop of pack_a and pack_b.
void pack_panels(Isa isa, const void* src, Elem elem, int64_t ls, int64_t kstride, int lanes,
                 int kl, int width, bool pair, void* dst) {
  const int64_t words = int64_t(width) * packed_k(kl, pair);
  // The AVX-512 transpose moves 16 lanes x 16 words per step; a panel narrower than 16 lanes or
  // with one or two words per lane fills little of it, and below 32 useful words per step the
  // scalar copy is as fast (bench/bench_pack.cpp, BM_Pack*/.../2, /4 and /8).
  const bool transpose =
      isa >= Isa::kAvx512 && kstride == 1 && packed_k(kl, pair) * std::min(width, 16) >= 32;
  for (int p0 = 0; p0 < lanes; p0 += width) {
    int valid = std::min(width, lanes - p0);
    uint32_t* d = static_cast<uint32_t*>(dst) + (p0 / width) * words;
    const auto* bf16 = static_cast<const uint16_t*>(src) + p0 * ls;
    if (pair && transpose) {
      avx512::pack_transposed_pairs(bf16, ls, valid, width, kl, d);
    } else if (pair && isa >= Isa::kAvx512 && ls == 1) {
      avx512::pack_interleaved_pairs(bf16, kstride, valid, width, kl, d);
    } else if (pair) {
      pack_panel_pair(bf16, ls, kstride, valid, width, kl, d);
    } else if (elem == Elem::kF32 && transpose) {
      avx512::pack_transposed(static_cast<const float*>(src) + p0 * ls, ls, valid, width, kl,
                              reinterpret_cast<float*>(d));
    } else if (elem == Elem::kBf16) {
      pack_panel(bf16, ls, kstride, valid, width, kl, reinterpret_cast<float*>(d));
    } else {
      pack_panel(static_cast<const float*>(src) + p0 * ls, ls, kstride, valid, width, kl,
                 reinterpret_cast<float*>(d));
    }
  }
}

}  // namespace

void pack_a(Isa isa, const SourceA& a, int rows, int kl, int mr, bool pair, void* dst) {
  pack_panels(isa, a.src, a.elem, a.rs, a.cs, rows, kl, mr, pair, dst);
}

void pack_b(Isa isa, const SourceB& b, int kl, int cols, int nr, bool pair, void* dst) {
  pack_panels(isa, b.src, b.elem, b.ns, b.ks, cols, kl, nr, pair, dst);
}

}  // namespace kselect::kernels
