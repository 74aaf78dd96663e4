// One AVX2 register tile of 6 rows over kc = 576 K steps, timed per call set
// (experiments/conv/README.md, "What is left of the AVX2 gap"): nr 16 at K unroll 2 and 1, nr 32 at
// 1 and 2, for several valid column counts (an edge tile below nr runs the masked sub-tiles),
// packed B (kN) or gathered B (kK). Build and run (after scripts/build): g++ -O2 -std=c++20 -Isrc
// -Iinclude -flto -fopenmp
//   experiments/conv/walk_unroll_cost.cpp build/libkselect.a -o /tmp/walk && taskset -c 1 /tmp/walk
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "ops/cpu_gemm_core/micro.h"
using namespace kselect::kernels;
int main() {
  const int kc = 576, reps = 20000;
  std::vector<float> a(6 * kc, 1.0f), b(kc * 64, 1.0f), c(6 * 64, 0.0f);
  for (BWalk bw : {BWalk::kN, BWalk::kK}) {
    for (int nv : {3, 4, 8, 12, 16, 27, 32}) {
      std::printf("%s nv=%2d:", bw == BWalk::kN ? "packed B" : "gathered B", nv);
      for (auto [nr, ku] :
           {std::pair{16, 2}, std::pair{32, 1}, std::pair{16, 1}, std::pair{32, 2}}) {
        int tiles = (nv + nr - 1) / nr;
        double best = 1e30;
        for (int round = 0; round < 5; ++round) {
          auto t0 = std::chrono::steady_clock::now();
          for (int r = 0; r < reps; ++r)
            for (int t = 0; t < tiles; ++t) {
              int valid = std::min(nr, nv - t * nr);
              bool edge = valid < nr;
              MicroSpec s{6, nr, ku, Elem::kF32, Elem::kF32, AWalk::kM, bw, edge};
              MicroFn f = find_micro(Isa::kAvx2, s);
              MicroArgs g{a.data(),
                          1,
                          6,
                          b.data() + t * nr * (bw == BWalk::kN ? 1 : kc),
                          bw == BWalk::kN ? 64 : 1,
                          bw == BWalk::kN ? 1 : kc,
                          c.data() + t * nr,
                          64,
                          kc,
                          6,
                          valid,
                          6,
                          nr,
                          ku,
                          true};
              f(g);
            }
          double ns =
              std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0)
                  .count() /
              reps;
          best = std::min(best, ns);
        }
        std::printf("  %dx%d ku%d %7.0f ns", 6, nr, ku, best);
      }
      std::printf("\n");
    }
  }
}
