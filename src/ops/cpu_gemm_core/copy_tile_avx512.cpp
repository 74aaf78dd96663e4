// The cshuffle epilogue's final write of C: non-temporal stores for long, aligned rows, so a
// C that is written once does not evict the packed panels from the caches.
#include "ops/cpu_gemm_core/simd.h"

#include <cstdint>
#include <cstring>

#include "ops/cpu_gemm_core/micro.h"

namespace kselect::kernels::avx512 {

namespace {
constexpr int kStreamMinCols = 256;  // 1 KiB rows; shorter ones stay in cache for the reader
}

void copy_tile_stream(float* dst, std::int64_t ldd, const float* src, std::int64_t lds, int rows,
                      int cols) {
  bool streamed = false;
  for (int i = 0; i < rows; ++i) {
    float* d = dst + i * ldd;
    const float* s = src + i * lds;
    if (cols < kStreamMinCols || reinterpret_cast<std::uintptr_t>(d) % 64 != 0) {
      std::memcpy(d, s, sizeof(float) * cols);
      continue;
    }
    int j = 0;
    for (; j + 16 <= cols; j += 16) _mm512_stream_ps(d + j, _mm512_loadu_ps(s + j));
    std::memcpy(d + j, s + j, sizeof(float) * (cols - j));
    streamed = true;
  }
  if (streamed) _mm_sfence();
}

}  // namespace kselect::kernels::avx512
