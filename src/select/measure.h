#pragma once
// On-the-spot measurement for the dispatcher's exhaustive and hybrid strategies: each kernel
// runs once to warm up, then `repeats` times on the same workload; its time is the fastest
// repeat (the statistic the GEMM study found least noisy: experiments/noise/README.md).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operation.h"

namespace kselect::select {

struct MeasureOptions {
  int repeats = 3;
  int threads = 1;
  unsigned seed = 1;
};

struct Measured {
  std::uint32_t kernel = 0;  // catalogue index
  double ms = 0;             // fastest repeat; NaN when the kernel failed to run
  std::string error;         // why it failed ("" when it ran)
};

// Times `kernels` (catalogue indices) on one workload of `problem`, in the given order.
std::vector<Measured> measure_kernels(const Operation& op, const KernelCatalogue& catalogue,
                                      std::string_view problem,
                                      std::span<const std::uint32_t> kernels,
                                      const MeasureOptions& options);

}  // namespace kselect::select
