// Packing speed of the B operand (the copy compv3 and compv4 kernels make before computing):
// one K slice of 256 x 1024 columns into NR = 32 micro-panels, per source orientation, element
// type and packing code. Scalar and AVX-512 run side by side, so their ratio comes from one run:
//   build/bench/bench_pack --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kernels/isa.h"
#include "kernels/pack.h"

namespace {

using namespace kselect::kernels;

constexpr int kSliceK = 256, kColumns = 1024, kPanelWidth = 32;

// Arguments: 0 = scalar / 1 = the best ISA of the CPU; 0 = column-major B (each column's K
// values contiguous, as in the rcr layout) / 1 = row-major B.
template <class T>
void pack(benchmark::State& state, Elem elem, bool pair) {
  const Isa isa = state.range(0) == 0 ? Isa::kScalar : detect_isa();
  const bool column_major = state.range(1) == 0;
  if (state.range(0) != 0 && isa < Isa::kAvx512) {
    state.SkipWithError("no AVX-512 on this CPU");
    return;
  }
  std::vector<T> src(std::size_t(kSliceK) * kColumns);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = T(i % 251);
  std::vector<std::uint32_t> dst(std::size_t(kSliceK) * kColumns);
  const SourceB b{src.data(), elem, column_major ? 1 : kColumns, column_major ? kSliceK : 1};
  for (auto _ : state) {
    pack_b(isa, b, kSliceK, kColumns, kPanelWidth, pair, dst.data());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(src.size() * sizeof(T)));
  state.SetLabel(std::string(to_string(isa)) + (column_major ? " column-major" : " row-major"));
}

void BM_PackBf16Pairs(benchmark::State& state) {
  pack<std::uint16_t>(state, Elem::kBf16, true);
}
void BM_PackFp32(benchmark::State& state) {
  pack<float>(state, Elem::kF32, false);
}

BENCHMARK(BM_PackBf16Pairs)->ArgsProduct({{0, 1}, {0, 1}});
BENCHMARK(BM_PackFp32)->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
