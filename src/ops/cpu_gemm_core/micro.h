#pragma once
// The micro-kernel interface: one call computes an MR x NR register tile of C over kc steps of K.
// Each ISA compiles its own set (micro_*_avx512.cpp, micro_avx2.cpp, micro_scalar.cpp); the
// driver (driver.cpp) picks one function pointer per configuration when the kernel is built.
#include <cstdint>

#include "ops/cpu_gemm_core/isa.h"

namespace kselect::kernels {

// How operands are stored as the micro-kernel reads them.
enum class Elem : std::uint8_t {
  kF32,       // fp32
  kBf16,      // bf16 bit patterns, widened to fp32 on load (then FMA)
  kBf16Pair,  // bf16 pairs along K in one 32-bit word, for vdpbf16ps
};
// How A is walked. kM: rows adjacent (packed MR panel or column-major A); kK: K adjacent
// (row-major A in place). For bf16 pairs: kM = packed pair panel, kK = row-major in place (pair
// is one 32-bit load), kCol = column-major in place (pair assembled from two loads).
enum class AWalk : std::uint8_t { kM, kK, kCol };
// How B is walked. kN: columns adjacent (packed NR panel or row-major B); kK: K adjacent
// (column-major B in place, read with gathers).
enum class BWalk : std::uint8_t { kN, kK };

struct MicroArgs {
  // A(i, k) at a[i * a_rs + k * a_cs] and B(k, j) at b[k * b_ks + j * b_ns], in elements of the
  // stored type (pair panels: 32-bit words, k counted in pairs).
  const void* a;
  std::int64_t a_rs, a_cs;
  const void* b;
  std::int64_t b_ks, b_ns;
  float* c;
  std::int64_t ldc;
  int kc;          // K elements to consume
  int mv, nv;      // valid rows and columns (< mr, nr only for edge tiles)
  int mr, nr, ku;  // the tile, for the generic (scalar, AVX2) kernels
  bool load_c;     // accumulate into C (true) or overwrite it (false)
};
using MicroFn = void (*)(const MicroArgs&);

struct MicroSpec {
  int mr, nr, ku;
  Elem a_elem, b_elem;
  AWalk a_walk;
  BWalk b_walk;
  bool edge;  // masked variant for tiles cut by the matrix edge
};

// The compiled micro-kernel for `spec` on `isa`; nullptr when none is compiled.
MicroFn find_micro(Isa isa, const MicroSpec& spec);

// Copies a rows x cols fp32 tile; ISA-specific so the AVX-512 path can stream rows that are
// 64-byte aligned and long (the cshuffle epilogue's final write of C).
void copy_tile(Isa isa, float* dst, std::int64_t ldd, const float* src, std::int64_t lds, int rows,
               int cols);

namespace avx512 {
MicroFn find_n16(const MicroSpec& spec);
MicroFn find_n32(const MicroSpec& spec);
MicroFn find_n48(const MicroSpec& spec);
MicroFn find_n64(const MicroSpec& spec);
void copy_tile_stream(float* dst, std::int64_t ldd, const float* src, std::int64_t lds, int rows,
                      int cols);
}  // namespace avx512
namespace avx2 {
MicroFn find(const MicroSpec& spec);
}
namespace scalar {
MicroFn find(const MicroSpec& spec);
}

}  // namespace kselect::kernels
