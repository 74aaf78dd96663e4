#pragma once
// Candidate kernels for a problem: a rule set's kernels that support it.
#include <string>
#include <string_view>
#include <vector>

#include "ops/operation.h"

namespace kselect::select {

// Kernels of rule set `rule_set` for which op.unsupported_reason(kernel, problem) is empty,
// in the set's order. `problem` must be canonical (Operation::canonical_problem).
std::vector<std::string> supported_kernels(const Operation& op, std::string_view rule_set,
                                           std::string_view problem);

// The no-model pick for `problem`: the first kernel of rule set `rule_set` (the `default`
// set) in the op's heuristic order (Operation::heuristic_order) that supports it; empty when
// none does. `problem` must be canonical.
std::string default_kernel(const Operation& op, std::string_view rule_set,
                           std::string_view problem);

}  // namespace kselect::select
