// Transposing pack with AVX-512: lanes (rows of A, columns of B) whose K values are contiguous
// (row-major A, column-major B) are read 16 x 16 at a time and transposed in registers, instead
// of one scalar store per element.
#include "kernels/simd.h"

#include <algorithm>
#include <cstdint>

#include "kernels/pack.h"

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

}  // namespace

void pack_transposed(const float* src, std::int64_t ls, int valid, int width, int kl, float* dst) {
  __m512 r[16], out[16];
  for (int l0 = 0; l0 < width; l0 += 16) {
    const int nl = std::clamp(valid - l0, 0, 16);
    const __mmask16 store = lanes(width - l0);
    for (int k0 = 0; k0 < kl; k0 += 16) {
      const int nk = std::min(16, kl - k0);
      for (int l = 0; l < 16; ++l) {
        if (l >= nl) {
          r[l] = _mm512_setzero_ps();
          continue;
        }
        const float* row = src + (l0 + l) * ls + k0;
        // 16 strided streams are more than the hardware prefetchers follow.
        _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchAhead), _MM_HINT_T0);
        r[l] = _mm512_maskz_loadu_ps(lanes(nk), row);
      }
      transpose16(r, out);
      for (int t = 0; t < nk; ++t)
        _mm512_mask_storeu_ps(dst + (k0 + t) * width + l0, store, out[t]);
    }
  }
}

}  // namespace kselect::kernels::avx512
