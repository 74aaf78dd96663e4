// Packing speed of the B operand (the copy compv3 and compv4 kernels make before computing):
// one K slice of 1024 columns into micro-panels, per source orientation, element type and
// packing code. Scalar and AVX-512 run side by side, so their ratio comes from one run:
//   build/bench/bench_pack --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "ops/cpu_gemm_core/isa.h"
#include "ops/cpu_gemm_core/pack.h"

namespace {

using namespace kselect::kernels;

constexpr int kColumns = 1024;

// Arguments: code (0 = scalar, 1 = pack_b on the CPU's best ISA, which routes small panels to
// the scalar copy, 2 = the AVX-512 transpose called directly), orientation (0 = column-major
// B, each column's K values contiguous as in the rcr layout; 1 = row-major B), K of the slice,
// panel width (NR).
template <class T>
void pack(benchmark::State& state, Elem elem, bool pair) {
  const int code = int(state.range(0)), slice_k = int(state.range(2)), width = int(state.range(3));
  const bool column_major = state.range(1) == 0;
  const Isa isa = code == 0 ? Isa::kScalar : detect_isa();
  if (code != 0 && isa < Isa::kAvx512) {
    state.SkipWithError("no AVX-512 on this CPU");
    return;
  }
  std::vector<T> src(std::size_t(slice_k) * kColumns);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = T(i % 251);
  const int words = pair ? packed_k(slice_k, true) : slice_k;
  std::vector<std::uint32_t> dst(std::size_t(words) * kColumns);
  const SourceB b{src.data(), elem, column_major ? 1 : kColumns, column_major ? slice_k : 1};
  for (auto _ : state) {
    if (code == 2) {
      for (int c0 = 0; c0 < kColumns; c0 += width) {
        std::uint32_t* out = dst.data() + std::size_t(c0) * words;
        if constexpr (sizeof(T) == 2)
          avx512::pack_transposed_pairs(src.data() + c0 * slice_k, slice_k, width, width, slice_k,
                                        out);
        else
          avx512::pack_transposed(src.data() + c0 * slice_k, slice_k, width, width, slice_k,
                                  reinterpret_cast<float*>(out));
      }
    } else {
      pack_b(isa, b, slice_k, kColumns, width, pair, dst.data());
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(src.size() * sizeof(T)));
  const char* codes[] = {"scalar", "pack_b", "transpose"};
  state.SetLabel(std::string(codes[code]) + " " + std::string(to_string(isa)) +
                 (column_major ? " column-major" : " row-major"));
}

void BM_PackBf16Pairs(benchmark::State& state) {
  pack<std::uint16_t>(state, Elem::kBf16, true);
}
void BM_PackFp32(benchmark::State& state) {
  pack<float>(state, Elem::kF32, false);
}

// A full K slice (256) into 32-wide panels in both orientations; then short slices (K 2 to 8)
// of column-major B into 8- and 32-wide panels, where pack_b's choice between the scalar copy
// and the transpose shows.
BENCHMARK(BM_PackBf16Pairs)->ArgsProduct({{0, 1}, {0, 1}, {256}, {32}});
BENCHMARK(BM_PackBf16Pairs)->ArgsProduct({{0, 1, 2}, {0}, {2, 4, 8}, {8, 32}});
BENCHMARK(BM_PackFp32)->ArgsProduct({{0, 1}, {0, 1}, {256}, {32}});
BENCHMARK(BM_PackFp32)->ArgsProduct({{0, 1, 2}, {0}, {2, 4, 8}, {8, 32}});

}  // namespace

BENCHMARK_MAIN();
