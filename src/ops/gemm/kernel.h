#pragma once
// A runnable CPU GEMM kernel built from a GemmConfig (the backend lives in src/kernels/).
#include <memory>
#include <string>

#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"

namespace kselect::gemm {

class GemmKernel {
 public:
  // Throws InputError when the configuration cannot be built (e.g. a micro-tile that is not
  // compiled in); every configuration of the `full` rule set can be built.
  explicit GemmKernel(const GemmConfig& config);
  ~GemmKernel();
  GemmKernel(GemmKernel&&) noexcept;
  GemmKernel& operator=(GemmKernel&&) noexcept;

  const GemmConfig& config() const;
  // "" when this kernel can run `p`; otherwise why not, oneDNN style (dtype/layout mismatch,
  // dimension not divisible by the tile without padding, unsupported split_k, ...).
  std::string unsupported_reason(const GemmProblem& p) const;
  // The instruction set chosen at run time from the CPU: "avx512_bf16", "avx512", "avx2",
  // "scalar". KSELECT_ISA=avx2|scalar in the environment caps it (for tests and comparisons).
  std::string isa() const;

  // C = A * B for problem p. A is M x K, B is K x N, stored per p.layout with dense leading
  // dimensions (row-major A: lda = K; column-major A: lda = M; likewise B); C is M x N fp32
  // row-major (ldc = N), overwritten. bf16 operands are uint16_t bit patterns. Uses `threads`
  // worker threads. Throws InputError if the problem is unsupported. Workspace is allocated
  // once per kernel and reused, so repeated runs do not allocate.
  void run(const GemmProblem& p, const void* a, const void* b, float* c, int threads) const;
  // Scratch memory (bytes) a run of p (supported) with `threads` workers needs beyond A, B and
  // C: packed panels and cshuffle staging per thread, split-K partial sums.
  double workspace_bytes(const GemmProblem& p, int threads) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kselect::gemm
