#include "ops/cpu_gemm_cost/cycle_estimate.h"

#include <algorithm>
#include <cmath>

#include "features/fixed_schema_engine.h"

namespace kselect::kernels {

double ceil_div(double a, double b) {
  return std::ceil(a / std::max(b, 1.0));
}

double micro_calls(double dim, double sub, double micro) {
  const double full_blocks = std::floor(dim / sub), rest = dim - full_blocks * sub;
  return full_blocks * ceil_div(sub, micro) + ceil_div(rest, micro);
}

std::array<double, 8> tile_use(double m, double n, double k, double tm, double tn, double tk,
                               double mr, double nr, double lanes) {
  using features::tile_fill;
  return {tile_fill(m, tm),
          tile_fill(n, tn),
          tile_fill(k, tk),
          tile_fill(m, tm) * tile_fill(n, tn) * tile_fill(k, tk),
          tile_fill(m, mr),
          tile_fill(n, nr),
          ceil_div(tm, mr) * ceil_div(tn, nr),
          std::ceil(mr * nr / lanes)};
}

CycleEstimate estimate_cycles(const BlockedGemm& g, double lanes, double ports) {
  lanes = std::max(lanes, 1.0), ports = std::max(ports, 1.0);
  const double m = g.m, n = g.n, k = g.k, mr = g.mr, nr = g.nr;
  const double sub_m = g.tile_m / g.warp_m, sub_n = g.tile_n / g.warp_n, ks = g.tile_k / g.warp_k;
  const double block_tiles = micro_calls(m, sub_m, mr) * micro_calls(n, sub_n, nr);
  const double block_slices = ceil_div(k, ks);
  const double tail = k - (block_slices - 1) * ks;
  const double k_steps = (block_slices - 1) * std::ceil(ks / g.k_pair) + std::ceil(tail / g.k_pair);
  const double register_tiles = std::max(g.path_tiles, block_tiles);
  const double slices = std::max(g.path_slices, block_slices) * g.k_share;
  const double calls = register_tiles * slices;
  const double vectors = std::ceil(nr / lanes);
  const double b_loads = g.b_lane_loads ? vectors * lanes : vectors;
  const double steps = register_tiles * k_steps * g.k_share;
  const double inner = steps * std::max(mr * vectors / ports, (b_loads + mr) / 2.0);
  const double c_loads = register_tiles * std::max(slices - g.parts, 0.0) * mr * vectors;
  const double c_updates = calls * mr * vectors + c_loads + 20.0 * calls;
  const double tasks = ceil_div(m, sub_m) * ceil_div(n, sub_n) * g.parts;
  const double reduce = (g.parts - 1) * m * n / lanes * 3.0;
  // cshuffle copies every staged vector into C: a load and a store, one store per cycle.
  const double shuffle = g.cshuffle ? g.parts * m * n / lanes : 0.0;
  const double overhead = c_updates + 200.0 * tasks + reduce + shuffle + g.epilogue_cycles;
  return {inner + g.copy_cycles + overhead, g.copy_cycles, overhead};
}

}  // namespace kselect::kernels
