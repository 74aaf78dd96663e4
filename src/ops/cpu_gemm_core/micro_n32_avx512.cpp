// AVX-512 micro-kernels with NR = 32 (register budget MR*NR/16 + NR/16 + 1 <= 32).
#include "ops/cpu_gemm_core/micro_avx512.h"

namespace kselect::kernels::avx512 {

MicroFn find_n32(const MicroSpec& s) {
  switch (s.mr) {
    case 1:
      return pick_tile<1, 32>(s);
    case 4:
      return pick_tile<4, 32>(s);
    case 6:
      return pick_tile<6, 32>(s);
    case 8:
      return pick_tile<8, 32>(s);
    case 12:
      return pick_tile<12, 32>(s);
    case 14:
      return pick_tile<14, 32>(s);
  }
  return nullptr;
}

}  // namespace kselect::kernels::avx512
