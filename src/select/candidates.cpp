#include "select/candidates.h"

#include "ops/generic/features.h"

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

std::vector<std::string> model_kernels(const features::FeatureEngine& engine,
                                       std::string_view problem) {
  const auto* generic = dynamic_cast<const generic::GenericFeatureEngine*>(&engine);
  if (!generic) return {};
  return generic->vocabulary().candidates(problem);
}

}  // namespace kselect::select
