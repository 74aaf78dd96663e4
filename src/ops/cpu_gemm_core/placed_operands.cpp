#include "ops/cpu_gemm_core/placed_operands.h"

#include <cstring>

namespace kselect::kernels {

PlacedOperands::PlacedOperands(std::size_t first_bytes, std::size_t second_bytes,
                               std::size_t result_bytes)
    : first_bytes_(first_bytes), second_bytes_(second_bytes), result_bytes_(result_bytes) {
  sets_.push_back(make_set());
}

PlacedOperands::Set PlacedOperands::make_set() const {
  Set set{{first_bytes_, Placement::kOperandA},
          {second_bytes_, Placement::kOperandB},
          {result_bytes_, Placement::kOperandC}};
  std::memset(set.result.data(), 0, result_bytes_);
  return set;
}

void PlacedOperands::rotate(int copies) {
  sets_.resize(1);
  for (int i = 1; i < copies; ++i) {
    sets_.push_back(make_set());
    std::memcpy(sets_.back().first.data(), sets_[0].first.data(), first_bytes_);
    std::memcpy(sets_.back().second.data(), sets_[0].second.data(), second_bytes_);
  }
}

}  // namespace kselect::kernels
