#pragma once
// The operands of a workload in placed memory: two read ones and one written one, and the
// copies of them that timed calls rotate through (Workload::rotate_operands).
#include <cstddef>
#include <vector>

#include "ops/cpu_gemm_core/placed_buffer.h"

namespace kselect::kernels {

class PlacedOperands {
 public:
  struct Set {
    PlacedBuffer first, second, result;  // at kOperandA, kOperandB, kOperandC
  };
  // One set: the read operands uninitialised (the workload fills them), the result zeroed.
  PlacedOperands(std::size_t first_bytes, std::size_t second_bytes, std::size_t result_bytes);

  // Keeps `copies` sets, the later ones holding the first's read operands. Every copy has the
  // placement of the first, so a kernel meets the same cache sets and 4 KiB aliasing whichever
  // copy a call uses; only what the caches hold of it differs.
  void rotate(int copies);

  const std::vector<Set>& sets() const { return sets_; }
  // Every set as a kernel takes it: make(first, second, result as fp32).
  template <typename Operands, typename Make>
  std::vector<Operands> views(Make make) const {
    std::vector<Operands> out;
    for (const Set& set : sets_)
      out.push_back(
          make(set.first.data(), set.second.data(), reinterpret_cast<float*>(set.result.data())));
    return out;
  }

 private:
  Set make_set() const;

  std::size_t first_bytes_, second_bytes_, result_bytes_;
  std::vector<Set> sets_;
};

}  // namespace kselect::kernels
