#pragma once
// Runs one grouped convolution as an implicit GEMM per group on the CPU, reusing the GEMM
// micro-kernels and packing (src/ops/cpu_gemm_core/): blocks, tasks, K splits, gathers of the
// im2col operand, the tile walk and the epilogue, as docs/conv-kernels.md describes. The
// configuration must already be valid (ConvKernel checks it).
#include <memory>
#include <string>

#include "ops/conv/config.h"
#include "ops/conv/problem.h"
#include "ops/cpu_gemm_core/isa.h"
#include "ops/cpu_gemm_core/placed_buffer.h"

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

// The paths a run of p takes that the problem decides besides the configuration
// (docs/conv-kernels.md, "Paths the driver picks by problem"): the driver follows them and the
// feature engine describes them, from this one decision.
struct ProblemPaths {
  bool col2im = false;    // backward data by columns (Col2Im): few channels per group
  bool direct_a = false;  // A is the image read in place (forward; backward data, stride 1)
  bool direct_b = false;  // backward weight's B is x read in place
  bool dense_b = false;   // backward weight's B copied dense (filter rows narrower than a tile)
  bool k_outer = false;   // backward weight walks K outermost (deep K, cache-sized result)
  bool phased = false;    // backward data with a stride: rows by stride phase, results staged
};
ProblemPaths problem_paths(const ConvConfig& config, const Problem& p);

// Backward data with a stride runs its rows stride phase by stride phase, and a phase's blocks
// skip the K slices (tile_k / warp_k) whose taps never reach that phase (a 1x1 filter at stride
// 2 reaches one phase of four). The share of (row, K slice) pairs a run of p computes; 1 where
// nothing is skipped (col2im's column product has no phases). The driver and the feature
// engine's estimate make this one test.
double computed_k_share(const ConvConfig& config, const Problem& p);

// The weights of one problem packed once into the B micro-panels that forward and backward-data
// runs read (their implicit GEMM's B is the weight tensor): what every run would otherwise pack
// (forward) or gather (backward data). The packing of a weight tensor that stays constant over
// many runs, like oneDNN's weights reordered once into its blocked layout. Made by
// ConvDriver::pack_weights; every driver with the same weight_layout() reads it, and only for
// the problem and the weight tensor it was packed from, as they were then.
struct PackedWeights {
  std::string layout;            // ConvDriver::weight_layout()
  Problem problem;               // the problem it was packed for
  const void* source = nullptr;  // the weight tensor it was packed from
  kernels::PlacedBuffer panels;  // per (group, column block, K slice): its micro-panels
};

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
  // drivers are serialised: they share one scratchpad. With `packed` (from pack_weights for p
  // and tensors.w, by a driver of the same weight_layout()) the run reads those panels instead
  // of packing the weights; InputError when they were packed for something else.
  void run(const Problem& p, const ConvTensors& tensors, int threads,
           const PackedWeights* packed = nullptr);
  // What the packed weights of this configuration depend on besides the problem: its column
  // blocking, register-tile width and K slicing; "" in backward weight (no weight operand).
  std::string weight_layout() const;
  // Packs the weight tensor `w` of p (forward, backward data) once; nullptr in backward weight.
  std::unique_ptr<PackedWeights> pack_weights(const Problem& p, const void* w) const;
  // The scratch memory (bytes) a run of p with `threads` workers needs beyond its tensors: what
  // run() reserves in the shared scratchpad, so one formula serves both.
  double workspace_bytes(const Problem& p, int threads) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kselect::conv::cpu
