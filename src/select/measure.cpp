#include "select/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>

namespace kselect::select {

std::vector<Measured> measure_kernels(const Operation& op, const KernelCatalogue& catalogue,
                                      std::string_view problem,
                                      std::span<const std::uint32_t> kernels,
                                      const MeasureOptions& options) {
  std::vector<Measured> out;
  auto workload = op.make_workload(problem, options.seed);
  for (std::uint32_t i : kernels) {
    Measured m{i, std::nan(""), {}};
    try {
      auto bound = op.bind(catalogue.name(i), *workload, options.threads);
      bound->run();  // warm-up: caches, page faults, lazily built code paths
      double best = std::numeric_limits<double>::infinity();
      for (int r = 0; r < std::max(1, options.repeats); ++r) {
        const auto start = std::chrono::steady_clock::now();
        bound->run();
        const auto stop = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(stop - start).count());
      }
      m.ms = best;
    } catch (const std::exception& e) {
      m.error = e.what();
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace kselect::select
