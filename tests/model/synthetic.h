#pragma once
// Structured GEMM measurements for the learning tests: a fixed grid of shapes (M=1, primes-ish
// and large sizes included) x a small set of real configs, TFLOPS from the roofline-like
// formula of bench/synthetic_gemm.h with deterministic 3% noise.
#include <random>
#include <vector>

#include "../../bench/synthetic_gemm.h"

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

using synthetic::roofline_tflops;

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
        for (const auto& c : synthetic_configs(dtype))
          out.push_back(synthetic::measurement(p, c, roofline_tflops(p, c) * std::exp(noise(rng))));
      }
  return out;
}

}  // namespace kselect::testing
