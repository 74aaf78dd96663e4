#pragma once
// A runnable CPU grouped-convolution kernel built from a ConvConfig (the backend is
// src/ops/conv/cpu/, reusing the GEMM micro-kernels of src/ops/cpu_gemm_core/).
#include <memory>
#include <string>

#include "ops/conv/config.h"
#include "ops/conv/cpu/driver.h"
#include "ops/conv/problem.h"

namespace kselect::conv {

class ConvKernel {
 public:
  // Throws InputError when the configuration cannot be built (tile not divisible by its warps
  // and register tile, a register tile that is not compiled, two_stage outside backward
  // weight, ...); every configuration of the `full` rule set can be built.
  explicit ConvKernel(const ConvConfig& config);
  ~ConvKernel();
  ConvKernel(ConvKernel&&) noexcept;
  ConvKernel& operator=(ConvKernel&&) noexcept;

  const ConvConfig& config() const;
  // "" when this kernel can run `p` (a native problem); otherwise why not: direction, dtype or
  // dimension mismatch, a specialisation the problem does not match, a vector width that does
  // not divide the channels it copies.
  std::string unsupported_reason(const Problem& p) const;
  // The instruction set of the micro-kernels ("avx512", "avx2", "scalar").
  std::string isa() const;
  // Runs p (see cpu::ConvTensors for which tensors are read and written); throws InputError if
  // the problem is unsupported. `packed`: tensors.w packed by pack_weights (of this kernel or
  // another of the same weight_layout()), read instead of packing the weights in the run.
  void run(const Problem& p, const cpu::ConvTensors& tensors, int threads,
           const cpu::PackedWeights* packed = nullptr) const;
  // Forward and backward data: the weight tensor w of p packed once, for runs that keep it
  // constant; nullptr in backward weight. InputError if the problem is unsupported.
  std::shared_ptr<const cpu::PackedWeights> pack_weights(const Problem& p, const void* w) const;
  // Kernels of equal weight_layout() read the same packed weights ("": they read none).
  std::string weight_layout() const;
  // Scratch memory (bytes) a run of p (supported) with `threads` workers needs beyond its
  // tensors: gathered and packed blocks and cshuffle staging per thread, K-split partial results.
  double workspace_bytes(const Problem& p, int threads) const;

 private:
  void check_supported(const Problem& p) const;  // InputError naming why not
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kselect::conv
