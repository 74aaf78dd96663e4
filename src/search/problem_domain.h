#pragma once
// The configurations a search or a tuning run may try on one problem: a named set of the op's
// rule file (`full`: every valid configuration), or a user rule file's whole valid space,
// narrowed to the configurations whose axes agree with the problem's fields of the same name
// and that the op says support the problem (Operation::unsupported_reason).
#include <cstddef>
#include <string>

#include "ops/operation.h"
#include "search/domain.h"

namespace kselect::search {

struct ProblemDomain {
  Domain domain;               // the supporting configurations, with the rule file's axes as genes
  std::size_t space_size = 0;  // valid configurations of the set or file before narrowing
};

// `space`: a set of the op's rule file, or the path of a rule file declaring `op`. `problem`:
// the op's canonical problem text. InputError for an unknown set, a rule file of another op,
// an op without a rule file, or a problem no configuration of the space supports.
ProblemDomain problem_domain(const Operation& op, const std::string& space,
                             const std::string& problem);

}  // namespace kselect::search
