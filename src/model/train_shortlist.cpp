#include "model/train_shortlist.h"

#include <algorithm>

#include "ops/operation.h"

namespace kselect::model {

bool uses_shortlist(const TrainOptions& o) {
  return o.shortlist >= 0 && o.objective != Objective::kClassify &&
         find_operation(o.op).capabilities().kernels_from_rule_sets;
}

std::set<std::string> shortlist_of(const Dataset& d, const std::vector<std::size_t>& rows,
                                   const std::string& target, double tolerance) {
  std::set<std::string> kept;
  const std::vector<double> efficiency = within_problem_efficiency(d, rows, target);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (efficiency[i] >= 1.0 - tolerance) kept.insert(d.rows[rows[i]]->kernel);
  return kept;
}

std::string ordering_target(const std::vector<std::string>& targets) {
  for (const auto& t : targets)
    if (t == "tflops") return t;
  return targets.front();
}

namespace {

// The final model's shortlist: its training rows' (TrainOptions::shortlist), and a warm
// start's continued model's too (the continued trees learned from those problems).
// A continued model without one (trained with --shortlist off, or before shortlists) keeps
// ranking every candidate: its trees learned from problems whose winners are unknown here.
void set_shortlist(FeatureSpec& spec, std::set<std::string> kernels, const TrainOptions& o,
                   const FeatureSpec* continued) {
  if (continued && continued->shortlist.empty()) return;
  double tolerance = o.shortlist;
  if (continued) {
    kernels.insert(continued->shortlist.begin(), continued->shortlist.end());
    tolerance = std::max(tolerance, continued->shortlist_tolerance);
  }
  spec.shortlist.assign(kernels.begin(), kernels.end());
  spec.shortlist_tolerance = tolerance;
}

}  // namespace

void set_final_shortlist(FeatureSpec& spec, const Dataset& d, const std::vector<std::size_t>& rows,
                         const std::string& target, const TrainOptions& o,
                         const FeatureSpec* continued) {
  if (uses_shortlist(o) && target == ordering_target(o.targets))
    set_shortlist(spec, shortlist_of(d, rows, target, o.shortlist), o, continued);
}

}  // namespace kselect::model
