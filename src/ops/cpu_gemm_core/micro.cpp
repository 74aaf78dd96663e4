#include "ops/cpu_gemm_core/micro.h"

#include <cstring>

namespace kselect::kernels {

MicroFn find_micro(Isa isa, const MicroSpec& s) {
  switch (isa) {
    case Isa::kScalar:
      return scalar::find(s);
    case Isa::kAvx2:
      return avx2::find(s);
    case Isa::kAvx512:
    case Isa::kAvx512Bf16:
      break;
  }
  switch (s.nr) {
    case 16:
      return avx512::find_n16(s);
    case 32:
      return avx512::find_n32(s);
    case 48:
      return avx512::find_n48(s);
    case 64:
      return avx512::find_n64(s);
  }
  return nullptr;
}

void copy_tile(Isa isa, float* dst, std::int64_t ldd, const float* src, std::int64_t lds, int rows,
               int cols) {
  if (isa >= Isa::kAvx512) return avx512::copy_tile_stream(dst, ldd, src, lds, rows, cols);
  for (int i = 0; i < rows; ++i) std::memcpy(dst + i * ldd, src + i * lds, sizeof(float) * cols);
}

}  // namespace kselect::kernels
