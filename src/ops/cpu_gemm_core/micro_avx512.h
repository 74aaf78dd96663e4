#pragma once
// AVX-512 micro-kernels, templated on the register tile MR x NR, the K unroll KU, how A and B
// are stored and walked, and whether the tile is cut by the matrix edge. Included only by the
// micro_n*_avx512.cpp translation units (one per NR, so the two cores build them in parallel).
#include "ops/cpu_gemm_core/simd.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ops/cpu_gemm_core/micro.h"

namespace kselect::kernels::avx512 {

template <Elem E>
struct Storage {
  using T = float;
};
template <>
struct Storage<Elem::kBf16> {
  using T = std::uint16_t;
};

inline __m512 widen(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
inline __m512 broadcast(float x) {
  return _mm512_set1_ps(x);
}
inline __m512 broadcast(std::uint16_t h) {
  return _mm512_castsi512_ps(_mm512_set1_epi32(int(std::uint32_t(h) << 16)));
}
inline __mmask16 tail_mask(int valid) {
  return valid >= 16 ? __mmask16(0xffff) : valid <= 0 ? __mmask16(0) : __mmask16((1u << valid) - 1);
}

// 16 consecutive elements of a B row (packed panel or row-major B).
inline __m512 load_row(const float* p) {
  return _mm512_loadu_ps(p);
}
inline __m512 load_row(const std::uint16_t* p) {
  return widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline __m512 load_row(const float* p, __mmask16 m) {
  return _mm512_maskz_loadu_ps(m, p);
}
inline __m512 load_row(const std::uint16_t* p, __mmask16 m) {
  return widen(_mm256_maskz_loadu_epi16(m, p));
}
// 16 elements b_ns apart (column-major B read in place).
inline __m512 load_col(const float* p, __m512i idx, __mmask16 m) {
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, p, 4);
}
inline __m512 load_col(const std::uint16_t* p, std::int64_t ns, __mmask16 m) {
  alignas(32) std::uint16_t t[16];
  for (int j = 0; j < 16; ++j) t[j] = (m >> j) & 1 ? p[j * ns] : 0;
  return widen(_mm256_load_si256(reinterpret_cast<const __m256i*>(t)));
}

// Writes (or accumulates) the accumulators into C; edge tiles mask rows and columns.
template <int MR, int NV, bool kEdge>
inline void store_tile(const MicroArgs& g, __m512 (&acc)[MR][NV], const __mmask16 (&mask)[NV]) {
  // Locals: stores through C could alias the argument block as far as the compiler knows.
  float* const c = g.c;
  const std::int64_t ldc = g.ldc;
  const bool load_c = g.load_c;
  const int mv = g.mv;
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (kEdge && i >= mv) break;
    float* cr = c + i * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 r = acc[i][v];
      if constexpr (kEdge) {
        if (load_c) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(mask[v], cr + 16 * v));
        _mm512_mask_storeu_ps(cr + 16 * v, mask[v], r);
      } else {
        if (load_c) r = _mm512_add_ps(r, _mm512_loadu_ps(cr + 16 * v));
        _mm512_storeu_ps(cr + 16 * v, r);
      }
    }
  }
}

// Row offsets of A; edge tiles repeat the last valid row so no read leaves the matrix.
template <int MR, bool kEdge>
inline void row_offsets(const MicroArgs& g, bool scaled, std::int64_t (&row)[MR]) {
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    int r = kEdge ? std::min(i, g.mv - 1) : i;
    row[i] = scaled ? r * g.a_rs : r;
  }
}

// fp32 FMA kernel: per K step, NR/16 vector loads of B and MR broadcasts of A.
template <int MR, int NR, int KU, Elem EA, Elem EB, AWalk WA, BWalk WB, bool kEdge>
void micro_fma(const MicroArgs& g) {
  using TA = typename Storage<EA>::T;
  using TB = typename Storage<EB>::T;
  constexpr int NV = NR / 16;
  const TA* a = static_cast<const TA*>(g.a);
  const TB* b = static_cast<const TB*>(g.b);
  std::int64_t row[MR];
  row_offsets<MR, kEdge>(g, WA == AWalk::kK, row);
  __mmask16 mask[NV];
  __m512i idx[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    mask[v] = kEdge ? tail_mask(g.nv - 16 * v) : __mmask16(0xffff);
    __m512i lane =
        _mm512_add_epi32(_mm512_set1_epi32(16 * v),
                         _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    idx[v] = _mm512_mullo_epi32(lane, _mm512_set1_epi32(int(g.b_ns)));
  }
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();

  auto step = [&](int k) __attribute__((always_inline)) {
    const TA* ak = WA == AWalk::kM ? a + k * g.a_cs : a + k;
    const TB* bk = WB == BWalk::kN ? b + k * g.b_ks : b + k;
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if constexpr (WB == BWalk::kK) {
        if constexpr (EB == Elem::kF32)
          bv[v] = load_col(bk, idx[v], mask[v]);
        else
          bv[v] = load_col(bk + 16 * v * g.b_ns, g.b_ns, mask[v]);
      } else if constexpr (kEdge) {
        bv[v] = load_row(bk + 16 * v, mask[v]);
      } else {
        bv[v] = load_row(bk + 16 * v);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __m512 av = broadcast(ak[row[i]]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
    }
  };
  int k = 0;
  for (; k + KU <= g.kc; k += KU) {
#pragma GCC unroll 8
    for (int u = 0; u < KU; ++u) step(k + u);
  }
  for (; k < g.kc; ++k) step(k);
  store_tile<MR, NV, kEdge>(g, acc, mask);
}

// A pair (A(i, 2p), A(i, 2p+1)) as one 32-bit word; `single` = only the first exists (odd K).
template <AWalk WA>
inline std::uint32_t a_pair(const MicroArgs& g, std::int64_t row, int p, bool single) {
  if constexpr (WA == AWalk::kM) {
    return static_cast<const std::uint32_t*>(g.a)[row + p * g.a_cs];
  } else if constexpr (WA == AWalk::kK) {
    const std::uint16_t* q = static_cast<const std::uint16_t*>(g.a) + row + 2 * p;
    if (single) return *q;
    std::uint32_t w;
    std::memcpy(&w, q, sizeof w);
    return w;
  } else {
    const std::uint16_t* q = static_cast<const std::uint16_t*>(g.a) + row + 2 * p * g.a_cs;
    return single ? std::uint32_t(q[0]) : std::uint32_t(q[0]) | std::uint32_t(q[g.a_cs]) << 16;
  }
}

// bf16 kernel: vdpbf16ps on K pairs; B is a packed pair panel, zero-padded to NR and to even K.
template <int MR, int NR, int KU, AWalk WA, bool kEdge>
void micro_dp(const MicroArgs& g) {
  constexpr int NV = NR / 16;
  constexpr int PU = KU / 2;  // pairs per unrolled iteration
  const std::uint32_t* b = static_cast<const std::uint32_t*>(g.b);
  std::int64_t row[MR];
  row_offsets<MR, kEdge>(g, WA == AWalk::kK, row);
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) mask[v] = kEdge ? tail_mask(g.nv - 16 * v) : __mmask16(0xffff);
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();

  auto step = [&](int p, bool single) __attribute__((always_inline)) {
    __m512bh bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * g.b_ks + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __m512bh av = (__m512bh)_mm512_set1_epi32(int(a_pair<WA>(g, row[i], p, single)));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], av, bv[v]);
    }
  };
  const int pairs = g.kc / 2;
  int p = 0;
  for (; p + PU <= pairs; p += PU) {
#pragma GCC unroll 4
    for (int u = 0; u < PU; ++u) step(p + u, false);
  }
  for (; p < pairs; ++p) step(p, false);
  if (g.kc & 1) step(pairs, WA != AWalk::kM);  // packed panels are zero-padded already
  store_tile<MR, NV, kEdge>(g, acc, mask);
}

// --- lookup: instantiates only the combinations a configuration can ask for ---

template <int MR, int NR, int KU, Elem EA, Elem EB, bool kEdge>
MicroFn pick_walk(const MicroSpec& s) {
  auto with_b = [&]<AWalk WA>() -> MicroFn {
    if (s.b_walk == BWalk::kN) return &micro_fma<MR, NR, KU, EA, EB, WA, BWalk::kN, kEdge>;
    if constexpr (EA == EB) return &micro_fma<MR, NR, KU, EA, EB, WA, BWalk::kK, kEdge>;
    return nullptr;  // mixed bf16 A / fp32 B only occurs with a packed B panel
  };
  if (s.a_walk == AWalk::kM) return with_b.template operator()<AWalk::kM>();
  if (s.a_walk == AWalk::kK) return with_b.template operator()<AWalk::kK>();
  return nullptr;
}

template <int MR, int NR, int KU, bool kEdge>
MicroFn pick_elems(const MicroSpec& s) {
  if (s.a_elem == Elem::kBf16Pair) {
    if (s.b_elem != Elem::kBf16Pair || KU % 2) return nullptr;
    if (s.a_walk == AWalk::kM) return &micro_dp<MR, NR, KU, AWalk::kM, kEdge>;
    if (s.a_walk == AWalk::kK) return &micro_dp<MR, NR, KU, AWalk::kK, kEdge>;
    return &micro_dp<MR, NR, KU, AWalk::kCol, kEdge>;
  }
  if (s.a_elem == Elem::kF32 && s.b_elem == Elem::kF32) {
    if constexpr (KU <= 4) return pick_walk<MR, NR, KU, Elem::kF32, Elem::kF32, kEdge>(s);
    // KU = 8 only as bf16 widened into packed fp32 panels (AVX-512 without avx512_bf16).
    if (s.a_walk != AWalk::kM || s.b_walk != BWalk::kN) return nullptr;
    return &micro_fma<MR, NR, KU, Elem::kF32, Elem::kF32, AWalk::kM, BWalk::kN, kEdge>;
  }
  {  // KU = 1 too: conv's warp_tile_k 1 reads bf16 in place (GEMM's bf16 tiles unroll K by 2+)
    if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kBf16)
      return pick_walk<MR, NR, KU, Elem::kBf16, Elem::kBf16, kEdge>(s);
    if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kF32)
      return pick_walk<MR, NR, KU, Elem::kBf16, Elem::kF32, kEdge>(s);
  }
  return nullptr;
}

template <int MR, int NR, bool kEdge>
MicroFn pick_ku(const MicroSpec& s) {
  switch (s.ku) {
    case 1:
      return pick_elems<MR, NR, 1, kEdge>(s);
    case 2:
      return pick_elems<MR, NR, 2, kEdge>(s);
    case 4:
      return pick_elems<MR, NR, 4, kEdge>(s);
    case 8:
      return pick_elems<MR, NR, 8, kEdge>(s);
  }
  return nullptr;
}

template <int MR, int NR>
MicroFn pick_tile(const MicroSpec& s) {
  return s.edge ? pick_ku<MR, NR, true>(s) : pick_ku<MR, NR, false>(s);
}

}  // namespace kselect::kernels::avx512
