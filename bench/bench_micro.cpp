// Micro-kernel speed: one 6-row register tile over kc = 576 K steps, packed A and B, as the
// drivers call it, on each ISA level this CPU has. Edge tiles (valid columns below NR) run the
// masked variants; FLOPs count only the valid columns, so an edge that computes padding shows
// as fewer GFLOPS:
//   taskset -c 0 build/bench/bench_micro --benchmark_repetitions=5 \
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/cpu_gemm_core/isa.h"
#include "ops/cpu_gemm_core/micro.h"

namespace {

using namespace kselect::kernels;

constexpr int kRows = 6, kSteps = 576, kWidest = 64;

// Arguments: ISA level (Isa as an integer), NR, K unroll, valid columns (nv <= NR).
void BM_RegisterTile(benchmark::State& state) {
  const auto isa = Isa(state.range(0));
  const int nr = int(state.range(1)), ku = int(state.range(2)), nv = int(state.range(3));
  if (detect_isa() < isa) {
    state.SkipWithError("this CPU lacks the ISA");
    return;
  }
  const MicroSpec spec{kRows, nr, ku, Elem::kF32, Elem::kF32, AWalk::kM, BWalk::kN, nv < nr};
  const MicroFn kernel = find_micro(isa, spec);
  if (kernel == nullptr) {
    state.SkipWithError("no micro-kernel compiled for this tile");
    return;
  }
  std::vector<float> a(kRows * kSteps, 1.0f), b(std::size_t(kSteps) * kWidest, 1.0f),
      c(kRows * kWidest, 0.0f);
  const MicroArgs args{a.data(), 1,     kRows, b.data(), kWidest, 1,  c.data(), kWidest,
                       kSteps,   kRows, nv,    kRows,    nr,      ku, true};
  for (auto _ : state) {
    kernel(args);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * kRows * nv * kSteps * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(to_string(isa)) + " " + std::to_string(kRows) + "x" +
                 std::to_string(nr) + " unroll " + std::to_string(ku) + ", " + std::to_string(nv) +
                 " valid columns");
}

void tiles(benchmark::internal::Benchmark* b) {
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512})
    for (int nr : {16, 32})
      for (int ku : {1, 2})
        for (int nv : {3, 8, 12, 16, 27, 32})
          if (nv <= nr) b->Args({std::int64_t(isa), nr, ku, nv});
}

BENCHMARK(BM_RegisterTile)->Apply(tiles);

}  // namespace

BENCHMARK_MAIN();
