// AVX2+FMA micro-kernels. Sixteen ymm registers cannot hold the AVX-512 tiles, so an MR x NR
// tile is computed as a walk of R x 16 register sub-tiles (R <= 6: 12 accumulators, 2 B
// vectors, 1 broadcast), each streaming the whole kc range in steps of KU.
#include "ops/cpu_gemm_core/simd.h"

#include <algorithm>
#include <cstdint>

#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/micro.h"

namespace kselect::kernels::avx2 {

namespace {

constexpr int kMaxRows = 6;

inline __m256 widen(__m128i h) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline __m256i lane_mask(int valid) {
  __m256i lanes = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), lanes);
}

// 8 elements of B row k starting at column j, `valid` of them inside the matrix.
template <class TB, bool kGather, bool kMask>
inline __m256 load_b(const TB* p, std::int64_t ns, int valid) {
  if constexpr (!kGather && !kMask && sizeof(TB) == 4) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
  } else if constexpr (!kGather && !kMask) {
    return widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  } else if constexpr (!kGather && sizeof(TB) == 4) {
    return _mm256_maskload_ps(reinterpret_cast<const float*>(p), lane_mask(valid));
  } else if constexpr (sizeof(TB) == 4) {
    __m256i idx =
        _mm256_mullo_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0), _mm256_set1_epi32(int(ns)));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), reinterpret_cast<const float*>(p), idx,
                                    _mm256_castsi256_ps(lane_mask(valid)), 4);
  } else {
    alignas(32) float t[8];
    for (int j = 0; j < 8; ++j) t[j] = j < valid ? to_float(p[j * ns]) : 0.0f;
    return _mm256_load_ps(t);
  }
}

// KU is the configuration's K unroll as a compile-time count: with a run-time one the compiler
// wraps each 1- or 2-step inner loop in its own loop control and reloads the strides around it,
// which cost about a third of the FMA throughput (perf annotate of micro<float, float>).
// V: the vectors (8 columns each) computed, 2, or 1 where at most 8 columns remain at the edge
// (depthwise problems' N = 1), which halves the FMAs there.
template <int R, int V, int KU, class TA, class TB, bool kGather, bool kMask>
void sub_tile(const MicroArgs& g, int i0, int j0) {
  const TA* a = static_cast<const TA*>(g.a) + i0 * g.a_rs;
  const TB* b = static_cast<const TB*>(g.b) + j0 * g.b_ns;
  const int v0 = g.nv - j0, v1 = g.nv - j0 - 8;
  // The loops over rows and vectors are unrolled explicitly: left to the later unroller, GCC kept
  // `acc` in memory and stored every accumulator to the stack on each K step, which halved the
  // FMA rate (experiments/conv/stack_stores.sh counts those stores per instantiation).
  __m256 acc[R][2];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  auto step = [&](int k) __attribute__((always_inline)) {
    const TB* bk = b + k * g.b_ks;
    __m256 bv[2];
    bv[0] = load_b<TB, kGather, kMask>(bk, g.b_ns, v0);
    if constexpr (V == 2) bv[1] = load_b<TB, kGather, kMask>(bk + 8 * g.b_ns, g.b_ns, v1);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      __m256 av = _mm256_set1_ps(to_float(a[r * g.a_rs + k * g.a_cs]));
#pragma GCC unroll 2
      for (int h = 0; h < V; ++h) acc[r][h] = _mm256_fmadd_ps(av, bv[h], acc[r][h]);
    }
  };
  int k = 0;
  for (; k + KU <= g.kc; k += KU)
#pragma GCC unroll 8
    for (int u = 0; u < KU; ++u) step(k + u);
  for (; k < g.kc; ++k) step(k);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    float* cr = g.c + (i0 + r) * g.ldc + j0;
#pragma GCC unroll 2
    for (int h = 0; h < V; ++h) {
      __m256 v = acc[r][h];
      // Only a vector that crosses the edge is masked: a masked store costs 4-5 plain ones on
      // AMD's AVX2 cores (experiments/conv/masked_store_cost.cpp). micro_ku runs a masked
      // sub-tile only where 1-15 columns remain, with V covering them, so none is empty.
      const int valid = h ? v1 : v0;
      if (kMask && valid < 8) {
        __m256i m = lane_mask(valid);
        if (g.load_c) v = _mm256_add_ps(v, _mm256_maskload_ps(cr + 8 * h, m));
        _mm256_maskstore_ps(cr + 8 * h, m, v);
      } else {
        if (g.load_c) v = _mm256_add_ps(v, _mm256_loadu_ps(cr + 8 * h));
        _mm256_storeu_ps(cr + 8 * h, v);
      }
    }
  }
}

// The sub-tile of each row count 1..kMaxRows (index 0 unused).
template <int V, int KU, class TA, class TB, bool kGather, bool kMask>
struct SubTiles {
  using Sub = void (*)(const MicroArgs&, int, int);
  static constexpr Sub by_rows[kMaxRows + 1] = {nullptr,
                                                &sub_tile<1, V, KU, TA, TB, kGather, kMask>,
                                                &sub_tile<2, V, KU, TA, TB, kGather, kMask>,
                                                &sub_tile<3, V, KU, TA, TB, kGather, kMask>,
                                                &sub_tile<4, V, KU, TA, TB, kGather, kMask>,
                                                &sub_tile<5, V, KU, TA, TB, kGather, kMask>,
                                                &sub_tile<6, V, KU, TA, TB, kGather, kMask>};
};

template <int KU, class TA, class TB, bool kGather, bool kMask>
void micro_ku(const MicroArgs& g) {
  for (int j0 = 0; j0 < g.nv; j0 += 16) {
    // An edge tile's sub-tiles with all 16 columns inside run unmasked: a partial tile is often
    // partial in rows only, which the row count R handles.
    const int columns = g.nv - j0;
    const auto* subs = SubTiles<2, KU, TA, TB, kGather, false>::by_rows;
    if constexpr (kMask) {
      if (columns <= 8)
        subs = SubTiles<1, KU, TA, TB, kGather, true>::by_rows;
      else if (columns < 16)
        subs = SubTiles<2, KU, TA, TB, kGather, true>::by_rows;
    }
    for (int i0 = 0; i0 < g.mv; i0 += kMaxRows) subs[std::min(kMaxRows, g.mv - i0)](g, i0, j0);
  }
}

// The rule sets' K unrolls (1, 2, 4, 8) compiled; any other runs unrolled by one.
template <class TA, class TB, bool kGather, bool kMask>
void micro(const MicroArgs& g) {
  switch (g.ku) {
    case 2:
      return micro_ku<2, TA, TB, kGather, kMask>(g);
    case 4:
      return micro_ku<4, TA, TB, kGather, kMask>(g);
    case 8:
      return micro_ku<8, TA, TB, kGather, kMask>(g);
    default:
      return micro_ku<1, TA, TB, kGather, kMask>(g);
  }
}

template <class TA, class TB>
MicroFn pick(const MicroSpec& s) {
  bool gather = s.b_walk == BWalk::kK;
  if (gather) return s.edge ? &micro<TA, TB, true, true> : &micro<TA, TB, true, false>;
  return s.edge ? &micro<TA, TB, false, true> : &micro<TA, TB, false, false>;
}

}  // namespace

MicroFn find(const MicroSpec& s) {
  if (s.nr % 16 || s.a_walk == AWalk::kCol) return nullptr;
  if (s.a_elem == Elem::kF32 && s.b_elem == Elem::kF32) return pick<float, float>(s);
  if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kBf16)
    return pick<std::uint16_t, std::uint16_t>(s);
  if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kF32) return pick<std::uint16_t, float>(s);
  return nullptr;
}

}  // namespace kselect::kernels::avx2
