#pragma once
// Runs one grouped convolution as an implicit GEMM per group on the CPU, reusing the GEMM
// micro-kernels and packing (src/ops/cpu_gemm_core/): blocks, tasks, K splits, gathers of the
// im2col operand, the tile walk and the epilogue, as docs/conv-kernels.md describes. The
// configuration must already be valid (ConvKernel checks it).
#include <memory>

#include "ops/conv/config.h"
#include "ops/conv/problem.h"
#include "ops/cpu_gemm_core/isa.h"

namespace kselect::conv::cpu {

// The tensors of one run, in CK's layouts: x the input image (NHWGC / NDHWGC), w the weights
// (GKYXC / GKZYXC), y the output image (NHWGK / NDHWGK). Forward reads x and w and writes y;
// backward data reads y (the output gradient) and w and writes x's gradient; backward weight
// reads x and y and writes w's gradient. Read tensors hold fp32 or bf16 bit patterns (the
// problem's dtype); the written one is fp32, overwritten.
struct ConvTensors {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* y = nullptr;
  float* result = nullptr;
};

// The implicit GEMM of one group: M x N x K (docs/conv-kernels.md).
struct GemmShape {
  std::int64_t m, n, k;
};
GemmShape implicit_gemm(const Problem& p);

class ConvDriver {
 public:
  // Picks the micro-kernels for `config` on `cpu`; throws InputError when the register tile or
  // K unroll is not compiled.
  ConvDriver(const ConvConfig& config, kernels::Isa cpu);
  ~ConvDriver();
  ConvDriver(ConvDriver&&) noexcept;
  ConvDriver& operator=(ConvDriver&&) noexcept;

  kernels::Isa isa() const;
  // Runs p (which the kernel supports) with `threads` workers. Concurrent runs of all conv
  // drivers are serialised: they share one scratchpad.
  void run(const Problem& p, const ConvTensors& tensors, int threads);
  // The scratch memory (bytes) a run of p with `threads` workers needs beyond its tensors: what
  // run() reserves in the shared scratchpad, so one formula serves both.
  double workspace_bytes(const Problem& p, int threads) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kselect::conv::cpu
