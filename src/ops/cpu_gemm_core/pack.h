#pragma once
// Packing of operand slices into the micro-panels the micro-kernels stream through.
//   A panel (MR rows): for each k, MR consecutive values; rows past the edge are zero.
//   B panel (NR cols): for each k, NR consecutive values; columns past the edge are zero.
// Pair panels (bf16 for vdpbf16ps) hold, per K pair, one 32-bit word (lo = even k, hi = odd k)
// per row (A) or column (B); an odd K is padded with a zero high half.
#include <cstdint>

#include "ops/cpu_gemm_core/micro.h"

namespace kselect::kernels {

// Where a slice lives: element (r, k) of A at src[r * rs + k * cs]; element (k, c) of B at
// src[k * ks + c * ns]. One of the two strides is 1 (the matrices are dense).
struct SourceA {
  const void* src;
  Elem elem;  // kF32 or kBf16
  std::int64_t rs, cs;
};
struct SourceB {
  const void* src;
  Elem elem;
  std::int64_t ks, ns;
};

// 32-bit words per row (A) or column (B) of a panel holding kl values of K.
inline int packed_k(int kl, bool pair) {
  return pair ? (kl + 1) / 2 : kl;
}

// Packs rows x kl of A into ceil(rows / mr) panels of mr * packed_k(kl) words each; the
// output is fp32 (bf16 sources are widened) unless `pair`. `isa` picks the packing code.
void pack_a(Isa isa, const SourceA& a, int rows, int kl, int mr, bool pair, void* dst);
// Packs kl x cols of B into ceil(cols / nr) panels of nr * packed_k(kl) words each.
void pack_b(Isa isa, const SourceB& b, int kl, int cols, int nr, bool pair, void* dst);

namespace avx512 {
// One fp32 panel whose lanes have contiguous K (lane l, value k at src[l * ls + k]).
void pack_transposed(const float* src, std::int64_t ls, int valid, int width, int kl, float* dst);
// One bf16 pair panel whose lanes have contiguous K (lane l, value k at src[l * ls + k]).
void pack_transposed_pairs(const std::uint16_t* src, std::int64_t ls, int valid, int width, int kl,
                           std::uint32_t* dst);
// One bf16 pair panel whose lanes are contiguous (lane l, value k at src[l + k * kstride]).
void pack_interleaved_pairs(const std::uint16_t* src, std::int64_t kstride, int valid, int width,
                            int kl, std::uint32_t* dst);
}  // namespace avx512

}  // namespace kselect::kernels
