#pragma once
// Synthetic but realistic GEMM measurements for training benchmarks and learning tests: real
// kernel configurations on GEMM shapes, TFLOPS from a roofline-like formula (tile fill, core
// occupancy, register-tile size, arithmetic intensity) with multiplicative noise.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "data/measurement.h"
#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"

namespace kselect::synthetic {

inline double fill(double dim, double tile) {
  return dim / (std::ceil(dim / tile) * tile);
}

inline double roofline_tflops(const gemm::GemmProblem& p, const gemm::GemmConfig& c) {
  double tiles = std::ceil(double(p.m) / c.tile_m) * std::ceil(double(p.n) / c.tile_n);
  double occupancy = std::min(1.0, tiles / 2.0);
  double micro = std::min(1.0, double(c.warp_tile_m * c.warp_tile_n) / 256.0);
  double compute = 2.0 * fill(p.m, c.tile_m) * fill(p.n, c.tile_n) * fill(p.k, c.tile_k) *
                   occupancy * (0.5 + 0.5 * micro);
  double intensity = p.flops() / p.bytes();
  return 1e-3 + compute * intensity / (intensity + 30.0);
}

// A valid measurement of `c` on `p` at `tflops`, with time and bandwidth to match.
inline data::Measurement measurement(const gemm::GemmProblem& p, const gemm::GemmConfig& c,
                                     double tflops) {
  data::Measurement r;
  r.op = "gemm";
  r.problem = p.to_string();
  r.kernel = c.name();
  r.valid = true;
  r.tflops = tflops;
  r.median_ms = p.flops() / (tflops * 1e12) * 1e3;
  r.bandwidth_gb_s = p.bytes() / (r.median_ms * 1e-3) / 1e9;
  return r;
}

// `shapes` random problems (log-uniform M, N, K in [1, 8192]) x `configs`, 5% noise.
inline std::vector<data::Measurement> random_measurements(
    const std::vector<gemm::GemmConfig>& configs, int shapes, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> log_dim(0.0, 13.0);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<data::Measurement> out;
  out.reserve(std::size_t(shapes) * configs.size());
  for (int s = 0; s < shapes; ++s) {
    gemm::GemmProblem p;
    p.m = std::int64_t(std::exp2(log_dim(rng)));
    p.n = std::int64_t(std::exp2(log_dim(rng)));
    p.k = std::int64_t(std::exp2(log_dim(rng)));
    p.dtype = configs.front().dtype;
    p.layout = configs.front().layout;
    for (const auto& c : configs)
      out.push_back(measurement(p, c, roofline_tflops(p, c) * std::exp(noise(rng))));
  }
  return out;
}

}  // namespace kselect::synthetic
