// Packing with AVX-512: lanes (rows of A, columns of B) whose K values are contiguous
// (row-major A, column-major B) are read 16 x 16 words at a time and transposed in registers,
// instead of one scalar store per element; a word is an fp32 value or a bf16 K pair, which is
// the same transpose. bf16 pairs of lanes that are contiguous themselves (row-major B,
// column-major A) are interleaved from two K rows, 16 lanes at a time.
#include "ops/cpu_gemm_core/simd.h"

#include <algorithm>
#include <cstdint>

#include "ops/cpu_gemm_core/pack.h"

namespace kselect::kernels::avx512 {

namespace {

constexpr int kPrefetchAhead = 128;  // values (512 bytes) ahead along each lane's K

inline __mmask16 lanes(int n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// On return out[t] holds element t of every r[l] (lane l).
inline void transpose16(__m512 (&r)[16], __m512 (&out)[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  auto lo = [](__m512 x, __m512 y) {
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(x), _mm512_castps_pd(y)));
  };
  auto hi = [](__m512 x, __m512 y) {
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(x), _mm512_castps_pd(y)));
  };
  // r[4i + c]: 128-bit lane q holds column 4q + c of rows 4i..4i+3.
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = lo(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = hi(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = lo(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = hi(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    __m512 u0 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x44);
    __m512 u1 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xee);
    __m512 w0 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x44);
    __m512 w1 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xee);
    out[c] = _mm512_shuffle_f32x4(u0, w0, 0x88);
    out[4 + c] = _mm512_shuffle_f32x4(u0, w0, 0xdd);
    out[8 + c] = _mm512_shuffle_f32x4(u1, w1, 0x88);
    out[12 + c] = _mm512_shuffle_f32x4(u1, w1, 0xdd);
  }
}

// Transposes one panel 16 lanes x 16 words at a time. mask_of(k0, nk) gives the load mask of
// the block of words k0..k0+nk, once per block; load(lane, k0, mask) returns that block of a
// lane (zero beyond), in its storage order; `words` words per lane. Keeping the per-lane load
// free of branches keeps r[] and out[] in the 32 registers (a branch there made GCC spill them).
template <class MaskOf, class LoadWords>
void transpose_panel(MaskOf mask_of, LoadWords load, int valid, int width, int words, float* dst) {
  __m512 r[16], out[16];
  for (int l0 = 0; l0 < width; l0 += 16) {
    const int nl = std::clamp(valid - l0, 0, 16);
    const __mmask16 store = lanes(width - l0);
    for (int k0 = 0; k0 < words; k0 += 16) {
      const int nk = std::min(16, words - k0);
      const auto mask = mask_of(k0, nk);
      for (int l = 0; l < 16; ++l) r[l] = l < nl ? load(l0 + l, k0, mask) : _mm512_setzero_ps();
      transpose16(r, out);
      for (int t = 0; t < nk; ++t)
        _mm512_mask_storeu_ps(dst + (k0 + t) * width + l0, store, out[t]);
    }
  }
}

}  // namespace

void pack_transposed(const float* src, std::int64_t ls, int valid, int width, int kl, float* dst) {
  auto mask_of = [](int, int nk) { return lanes(nk); };
  auto load = [&](int lane, int k0, __mmask16 mask) {
    const float* row = src + lane * ls + k0;
    // 16 strided streams are more than the hardware prefetchers follow.
    _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchAhead), _MM_HINT_T0);
    return _mm512_maskz_loadu_ps(mask, row);
  };
  transpose_panel(mask_of, load, valid, width, kl, dst);
}

void pack_transposed_pairs(const std::uint16_t* src, std::int64_t ls, int valid, int width, int kl,
                           std::uint32_t* dst) {
  // A 16-bit mask loads exactly the slice's values: an odd K's last pair gets a zero high half
  // and nothing past the slice (or the matrix) is read.
  auto mask_of = [&](int k0, int) {
    const int values = std::min(32, kl - 2 * k0);
    return values >= 32 ? ~__mmask32(0) : (__mmask32(1) << values) - 1;
  };
  auto load = [&](int lane, int k0, __mmask32 mask) {
    const std::uint16_t* row = src + lane * ls + 2 * k0;
    _mm_prefetch(reinterpret_cast<const char*>(row + 2 * kPrefetchAhead), _MM_HINT_T0);
    return _mm512_castsi512_ps(_mm512_maskz_loadu_epi16(mask, row));
  };
  transpose_panel(mask_of, load, valid, width, packed_k(kl, true), reinterpret_cast<float*>(dst));
}

void pack_interleaved_pairs(const std::uint16_t* src, std::int64_t kstride, int valid, int width,
                            int kl, std::uint32_t* dst) {
  for (int p = 0; p < packed_k(kl, true); ++p) {
    const std::uint16_t* even = src + 2 * p * kstride;
    const std::uint16_t* odd = even + kstride;
    const bool has_odd = 2 * p + 1 < kl;
    for (int l0 = 0; l0 < width; l0 += 16) {
      const __mmask16 load = lanes(valid - l0);
      const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(load, even + l0));
      const __m512i hi = has_odd ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(load, odd + l0))
                                 : _mm512_setzero_si512();
      _mm512_mask_storeu_epi32(dst + p * width + l0, lanes(width - l0),
                               _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
    }
  }
}

}  // namespace kselect::kernels::avx512
