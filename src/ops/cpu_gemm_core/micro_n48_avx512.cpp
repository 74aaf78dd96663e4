// AVX-512 micro-kernels with NR = 48 (register budget MR*NR/16 + NR/16 + 1 <= 32).
#include "ops/cpu_gemm_core/micro_avx512.h"

namespace kselect::kernels::avx512 {

MicroFn find_n48(const MicroSpec& s) {
  switch (s.mr) {
    case 1:
      return pick_tile<1, 48>(s);
    case 4:
      return pick_tile<4, 48>(s);
    case 6:
      return pick_tile<6, 48>(s);
    case 8:
      return pick_tile<8, 48>(s);
  }
  return nullptr;
}

}  // namespace kselect::kernels::avx512
