// AVX-512 micro-kernels with NR = 64 (register budget MR*NR/16 + NR/16 + 1 <= 32).
#include "ops/cpu_gemm_core/micro_avx512.h"

namespace kselect::kernels::avx512 {

MicroFn find_n64(const MicroSpec& s) {
  switch (s.mr) {
    case 1:
      return pick_tile<1, 64>(s);
    case 4:
      return pick_tile<4, 64>(s);
    case 6:
      return pick_tile<6, 64>(s);
  }
  return nullptr;
}

}  // namespace kselect::kernels::avx512
