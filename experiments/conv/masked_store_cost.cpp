// What an AVX2 masked store costs on this machine next to a plain one (experiments/conv/README.md,
// "The AVX2 edge micro-kernel's masked stores"): 20 million 32-byte stores, masked stores
// (_mm256_maskstore_ps, half the lanes), masked loads and plain loads, each added into a register.
// Build and run: g++ -O2 -mavx2 -mfma experiments/conv/masked_store_cost.cpp -o /tmp/msc &&
//   taskset -c 0 /tmp/msc
#include <immintrin.h>
#include <chrono>
#include <cstdio>
alignas(64) float buf[4096];
int main() {
  __m256 v = _mm256_set1_ps(1.0f);
  __m256i m = _mm256_set_epi32(0, 0, 0, 0, -1, -1, -1, -1);
  const int N = 20000000;
  for (int mode = 0; mode < 4; ++mode) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < N; ++i) {
      float* p = buf + (i & 63) * 16;
      if (mode == 0)
        _mm256_storeu_ps(p, v);
      else if (mode == 1)
        _mm256_maskstore_ps(p, m, v);
      else if (mode == 2)
        v = _mm256_add_ps(v, _mm256_maskload_ps(p, m));
      else
        v = _mm256_add_ps(v, _mm256_loadu_ps(p));
      asm volatile("" ::: "memory");
    }
    double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / N;
    printf("%s %.2f ns/op\n",
           mode == 0   ? "store"
           : mode == 1 ? "maskstore"
           : mode == 2 ? "maskload+add"
                       : "load+add",
           ns);
  }
  printf("%f\n", buf[3] + _mm256_cvtss_f32(v));
}
