#pragma once
// Synthetic but structured GEMM measurements for the learning tests: real kernel configs on
// a grid of shapes, TFLOPS from a roofline-like formula (tile fill, core occupancy, a per-
// config efficiency) with deterministic noise, so a model has something real to learn.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "data/measurement.h"
#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"

namespace kselect::testing {

inline std::vector<gemm::GemmConfig> synthetic_configs(gemm::DType dtype = gemm::DType::kFp32) {
  std::vector<gemm::GemmConfig> out;
  for (int tm : {16, 64, 128})
    for (int tn : {32, 128, 256})
      for (int tk : {64, 256}) {
        gemm::GemmConfig c;
        c.dtype = dtype;
        c.tile_m = tm, c.tile_n = tn, c.tile_k = tk;
        c.warp_tile_m = tm >= 64 ? 8 : 4;
        c.warp_tile_n = tn >= 128 ? 32 : 16;
        c.pipeline = tk == 256 ? gemm::Pipeline::kCompV4 : gemm::Pipeline::kCompV3;
        out.push_back(c);
      }
  return out;
}

inline double fill(double dim, double tile) {
  return dim / (std::ceil(dim / tile) * tile);
}

// Roofline-like TFLOPS: peak scaled by tile fill, thread occupancy and micro-tile size.
inline double synthetic_tflops(const gemm::GemmProblem& p, const gemm::GemmConfig& c) {
  double tiles = std::ceil(double(p.m) / c.tile_m) * std::ceil(double(p.n) / c.tile_n);
  double occupancy = std::min(1.0, tiles / 2.0);
  double micro = double(c.warp_tile_m * c.warp_tile_n) / 256.0;
  double compute = 2.0 * fill(p.m, c.tile_m) * fill(p.n, c.tile_n) * fill(p.k, c.tile_k) *
                   occupancy * (0.5 + 0.5 * micro);
  double intensity = p.flops() / p.bytes();
  return 1e-3 + compute * intensity / (intensity + 30.0);
}

inline std::vector<data::Measurement> synthetic_measurements(gemm::DType dtype = gemm::DType::kFp32,
                                                             unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.03);
  std::vector<data::Measurement> out;
  for (std::int64_t m : {1, 8, 30, 64, 200, 512, 1024})
    for (std::int64_t n : {64, 250, 1024, 3000})
      for (std::int64_t k : {64, 777, 4096}) {
        gemm::GemmProblem p;
        p.m = m, p.n = n, p.k = k, p.dtype = dtype;
        for (const auto& c : synthetic_configs(dtype)) {
          data::Measurement r;
          r.op = "gemm";
          r.problem = p.to_string();
          r.kernel = c.name();
          r.valid = true;
          r.tflops = synthetic_tflops(p, c) * std::exp(noise(rng));
          r.median_ms = p.flops() / (r.tflops * 1e12) * 1e3;
          r.bandwidth_gb_s = p.bytes() / (r.median_ms * 1e-3) / 1e9;
          out.push_back(r);
        }
      }
  return out;
}

}  // namespace kselect::testing
