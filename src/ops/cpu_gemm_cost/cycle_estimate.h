#pragma once
// A rough cycle count of one GEMM run by the blocked CPU driver that gemm (ops/gemm/cpu/) and
// conv's implicit GEMMs (ops/conv/cpu/) share: blocks of tile_m x tile_n cut into warp_m x
// warp_n tasks, K walked in tile_k / warp_k slices, MR x NR register tiles. Both ops' feature
// engines use it for their throughput prior, so the estimate of the shared inner loop is
// written once; what each op copies before computing (packing, im2col gathers) differs and is
// the op's own input (copy_cycles).
#include <array>

namespace kselect::kernels {

// ceil(a / b) in doubles, b at least 1.
double ceil_div(double a, double b);

// Micro-kernel calls along one dimension: the dimension is cut into warp blocks of `sub`, each
// walked in register tiles of `micro`; the last block may be partial.
double micro_calls(double dim, double sub, double micro);

// How an M x N x K GEMM fills tm x tn x tk blocks and MR x NR register tiles: the useful
// fraction of each padded extent (M, N, K on the blocks), their product, the same for M and N
// on the register tile, register tiles per block, and vector registers per register tile on
// `lanes`-wide vectors (above ~28 of 32 the micro-kernel spills). The features
// tile_util_m/n/k, padded_work_efficiency, micro_util_m/n, micro_tiles_per_block and
// accumulator_vectors of gemm's and conv's kselect schemas, in that order.
std::array<double, 8> tile_use(double m, double n, double k, double tm, double tn, double tk,
                               double mr, double nr, double lanes);

// One GEMM (M x N x K) as the driver runs it.
struct BlockedGemm {
  double m = 0, n = 0, k = 0;
  double tile_m = 0, tile_n = 0, tile_k = 0;
  double warp_m = 1, warp_n = 1, warp_k = 1;
  double mr = 0, nr = 0;  // register tile
  // K parts whose partial results are added after all tasks (split-K times warp_k).
  double parts = 1;
  double k_pair = 1;          // K elements per inner step: 2 where vdpbf16ps multiplies pairs
  bool b_lane_loads = false;  // B read element by element (a strided gather): a load per lane
  bool cshuffle = false;      // C staged per task and copied into the result afterwards
  double copy_cycles = 0;     // the op's packing and gathering before the micro-kernel runs
  // Register tiles (M x N calls) and K pieces per register tile where the op cuts them finer
  // than the blocks (conv's image read in place); 0: the blocks' own.
  double path_tiles = 0, path_slices = 0;
  // The share of (register tile, K slice) pairs the op computes: conv's strided backward data
  // skips the slices whose taps never reach a stride phase.
  double k_share = 1;
  double epilogue_cycles = 0;  // the op's own work placing results (counted as overhead)
};

struct CycleEstimate {
  double total = 0, pack = 0, overhead = 0;
};

// The cycles of `g` on one core of `lanes` fp32 lanes and `ports` vector FMA pipes, split into
// the parts whose balance decides between kernels: the micro-kernel's inner loop (FMA or load
// bound, one step per K element or pair: the unrolled loop's remainder runs step by step, so K
// is not padded to the unroll; register tiles padded at the edges), C updates (a store per
// register vector, plus a load on every K slice but a part's first) and per-call set-up, the
// copies (`copy_cycles`, reported as `pack`), the cshuffle epilogue's copy of each staged tile
// into C, and per-task and split-K overheads. The constants are those of a generic AVX-512
// core (two load ports, one store per cycle); trees correct them, but sums and products of
// several counts are what trees cannot build from single splits.
CycleEstimate estimate_cycles(const BlockedGemm& g, double lanes, double ports);

}  // namespace kselect::kernels
