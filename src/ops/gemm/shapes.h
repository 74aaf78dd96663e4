#pragma once
// GEMM shape families for sweeps, after CK's benchmark sets but sized for a CPU: every shape
// stays under a FLOP budget so a whole sweep fits in minutes.
#include <string>
#include <vector>

#include "ops/gemm/problem.h"

namespace kselect::gemm {

struct ShapeOptions {
  std::string family = "wide";  // one of shape_families()
  int count = 20;               // shapes wanted (fewer when a family has fewer)
  unsigned seed = 1;
  double max_gflop = 2.0;                   // per shape: 2*M*N*K <= max_gflop * 1e9
  std::vector<DType> dtypes{DType::kFp32};  // spread round-robin over the shapes
  std::vector<Layout> layouts{Layout::kRcr};
};

// "wide": a mix of M=1, tiny M, skinny N, tall, deep K, shallow K, prime and general shapes;
// "edge": every dimension a tile size or power of two +-1, a prime, or 1;
// "llm": transformer layers (QKV, out, MLP up/down) of hidden sizes 2048/4096 for 1..512
// tokens, halving N and K until the budget holds; "square": M=N=K powers of two (and 1.5x);
// "random": log-uniform M, N, K.
std::vector<std::string> shape_families();

// Deterministic for given options; no duplicates. Throws InputError for an unknown family or
// a non-positive count or budget.
std::vector<GemmProblem> generate_shapes(const ShapeOptions& options);

}  // namespace kselect::gemm
