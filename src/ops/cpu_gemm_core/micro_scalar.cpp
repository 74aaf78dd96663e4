// Portable micro-kernel: plain loops over the valid part of the tile, for CPUs without AVX2
// (and KSELECT_ISA=scalar). Register tiling is left to the compiler; MR x NR still sets the
// panel shapes and the tile walk of the driver.
#include <algorithm>

#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/micro.h"

namespace kselect::kernels::scalar {

namespace {

constexpr int kMaxMr = 16, kMaxNr = 64;

template <class TA, class TB>
void micro_generic(const MicroArgs& g) {
  const TA* a = static_cast<const TA*>(g.a);
  const TB* b = static_cast<const TB*>(g.b);
  float acc[kMaxMr][kMaxNr] = {};
  for (int k = 0; k < g.kc; ++k) {
    for (int i = 0; i < g.mv; ++i) {
      float av = to_float(a[i * g.a_rs + k * g.a_cs]);
      const TB* bk = b + k * g.b_ks;
      for (int j = 0; j < g.nv; ++j) acc[i][j] += av * to_float(bk[j * g.b_ns]);
    }
  }
  for (int i = 0; i < g.mv; ++i) {
    float* cr = g.c + i * g.ldc;
    for (int j = 0; j < g.nv; ++j) cr[j] = g.load_c ? cr[j] + acc[i][j] : acc[i][j];
  }
}

}  // namespace

MicroFn find(const MicroSpec& s) {
  if (s.mr > kMaxMr || s.nr > kMaxNr) return nullptr;
  if (s.a_elem == Elem::kF32 && s.b_elem == Elem::kF32) return &micro_generic<float, float>;
  if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kBf16)
    return &micro_generic<std::uint16_t, std::uint16_t>;
  if (s.a_elem == Elem::kBf16 && s.b_elem == Elem::kF32)
    return &micro_generic<std::uint16_t, float>;
  return nullptr;
}

}  // namespace kselect::kernels::scalar
