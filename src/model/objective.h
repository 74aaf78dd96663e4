#pragma once
// What a model learns: feature_spec.json's "objective" (docs/model-format.md). Parsed once, at
// the command line or when a model file is read; the rest of kselect branches on the enum.
#include <string>
#include <string_view>
#include <vector>

namespace kselect::model {

enum class Objective {
  // log1p(value * scale) of each target (FeatureSpec::target_scales).
  kRegression,
  // Pairwise ranking scores, one query per problem: an order without a unit.
  kRanking,
  // log(value / best value of the problem): a kernel's predicted fraction of the best
  // candidate's speed, so only the order within a problem is learned.
  kEfficiency,
  // Per context, the probability that a kernel is the problem's fastest (model/classify.h).
  kClassify,
  // The weighted sum of member models' relative log speeds (model/blend.h); written by
  // `kselect blend` and `kselect train --blend-near`, never trained directly.
  kBlend,
  // Each problem scored by the first member model whose training filter (FeatureSpec::where)
  // it matches (model/route.h): one model per conv direction behind one directory; written by
  // `kselect route`, never trained directly.
  kRoute,
};

// The names as feature_spec.json and the command line spell them, in declaration order.
const std::vector<std::string>& objective_names();
std::string to_string(Objective objective);
// The objective named `name`; InputError naming `field` and listing the names otherwise.
Objective parse_objective(std::string_view name, const std::string& field = "objective");

// Whether the objective's models predict a speed per kernel (model::predicted_speed): what a
// blend adds up and what the default guard compares.
bool predicts_speed(Objective objective);

}  // namespace kselect::model
