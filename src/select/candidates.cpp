#include "select/candidates.h"

namespace kselect::select {

std::vector<std::string> supported_kernels(const Operation& op, std::string_view rule_set,
                                           std::string_view problem) {
  std::vector<std::string> out;
  for (auto& kernel : op.kernel_names(rule_set, KeyValues{}))
    if (op.unsupported_reason(kernel, problem).empty()) out.push_back(std::move(kernel));
  return out;
}

std::string default_kernel(const Operation& op, std::string_view rule_set,
                           std::string_view problem) {
  auto order = op.heuristic_order(problem, supported_kernels(op, rule_set, problem));
  return order.empty() ? std::string() : order.front();
}

}  // namespace kselect::select
