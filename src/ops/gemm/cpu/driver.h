#pragma once
// Runs one GEMM configuration on the CPU: block tiles, warps, split-K, packing (pipeline),
// micro-tile walk (scheduler), epilogue and threading (persistent), as docs/gemm-kernels.md
// describes. The configuration must already be valid (GemmKernel checks it).
#include <memory>

#include "ops/cpu_gemm_core/isa.h"
#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"

namespace kselect::kernels {

class GemmDriver {
 public:
  // Picks the micro-kernels for `config` on `cpu` (the detected level); throws InputError when
  // the register tile or K unroll is not compiled.
  GemmDriver(const gemm::GemmConfig& config, Isa cpu);
  ~GemmDriver();
  GemmDriver(GemmDriver&&) noexcept;
  GemmDriver& operator=(GemmDriver&&) noexcept;

  // The level the kernel's code uses: fp32 kernels never need avx512_bf16.
  Isa isa() const;
  // C = A * B with `threads` workers; p must be supported. Concurrent calls, on one driver or
  // on several, are serialised: all drivers share one scratchpad (docs/gemm-kernels.md).
  void run(const gemm::GemmProblem& p, const void* a, const void* b, float* c, int threads);
  // The scratch memory (bytes) a run of p with `threads` workers needs beyond A, B and C: what
  // run() reserves in the shared scratchpad, so one formula serves both.
  double workspace_bytes(const gemm::GemmProblem& p, int threads) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kselect::kernels
