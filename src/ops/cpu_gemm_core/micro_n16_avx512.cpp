// AVX-512 micro-kernels with NR = 16 (register budget MR*NR/16 + NR/16 + 1 <= 32).
#include "ops/cpu_gemm_core/micro_avx512.h"

namespace kselect::kernels::avx512 {

MicroFn find_n16(const MicroSpec& s) {
  switch (s.mr) {
    case 1:
      return pick_tile<1, 16>(s);
    case 4:
      return pick_tile<4, 16>(s);
    case 6:
      return pick_tile<6, 16>(s);
    case 8:
      return pick_tile<8, 16>(s);
    case 12:
      return pick_tile<12, 16>(s);
    case 14:
      return pick_tile<14, 16>(s);
  }
  return nullptr;
}

}  // namespace kselect::kernels::avx512
