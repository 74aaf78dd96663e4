// LightGBM text models compiled into model::Forest (the format's semantics: model/lightgbm.h).
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "model/forest.h"
#include "model/lightgbm.h"

namespace kselect::model {

namespace {

// Objectives whose raw score is what kselect ranks by (regressions of log1p(TFLOPS) and the
// like, ranking scores): the forest's margin, with no output transform.
bool identity_output(const LightGbmObjective& objective) {
  const std::string& n = objective.name;
  const bool regression = n == "regression" || n == "regression_l1" || n == "huber" ||
                          n == "fair" || n == "quantile" || n == "mape";
  return (regression && !objective.sqrt) || n == "lambdarank" || n == "rank_xendcg";
}

constexpr float kZeroBand = 1e-35f;  // LightGBM's kZeroThreshold

// The float T with `x < T` exactly when double(x) <= t, for every float x; nullopt-like NaN
// when no float threshold does (t = +inf: x = +inf must go left).
float float_threshold(double t) {
  if (std::isnan(t) || t == std::numeric_limits<double>::infinity())
    return std::numeric_limits<float>::quiet_NaN();
  float below = static_cast<float>(t);  // round to nearest, then step down to <= t
  if (static_cast<double>(below) > t) below = std::nextafter(below, -INFINITY);
  return std::nextafter(below, INFINITY);
}

}  // namespace

bool Forest::special_goes_right(const Node& node, float x) const {
  const Special& s = specials_[std::bit_cast<std::uint32_t>(node.value)];
  const double input = lightgbm_input(static_cast<double>(x));
  return !(s.categorical ? lightgbm_categorical_left(s.categories, input)
                         : lightgbm_numerical_left(s.decision_type, s.threshold, input));
}

Forest Forest::from_lightgbm(const LightGbmModel& model, const std::string& source) {
  if (model.average_output())
    throw StorageError(source +
                       ": random-forest LightGBM models (average_output) are not supported");
  const int classes = model.num_tree_per_iteration();
  if (classes > 1 ? model.objective().name != "multiclass" : !identity_output(model.objective()))
    throw StorageError(source + ": LightGBM objective '" + model.objective().name +
                       "' is not supported (regression-type and ranking objectives, multiclass)");
  Forest f;
  f.objective_ = classes > 1 ? "multi:softprob" : "lightgbm:" + model.objective().name;
  f.num_outputs_ = std::size_t(classes);
  f.declared_features_ = int(model.num_features());
  for (std::size_t t = 0; t < model.trees().size(); ++t) {
    f.append_lightgbm_tree(model.trees()[t], source);
    f.tree_group_.push_back(std::uint32_t(t % std::size_t(classes)));
  }
  f.finish_loading(source);
  return f;
}

// Compiles LightGBM's split `x <= t` with its missing type into `x < T` on floats when, for every
// float input, the two agree (NaN and the zero band included); otherwise keeps LightGBM's own
// decision as a special split.
Forest::Node Forest::lightgbm_split(const LightGbmTree& tree, int node, std::int32_t left) {
  const std::int8_t type = tree.decision_type[std::size_t(node)];
  const double t = tree.threshold[std::size_t(node)];
  const auto feature = std::uint32_t(tree.split_feature[std::size_t(node)]);
  auto special = [&](Special s) {
    specials_.push_back(std::move(s));
    return Node{feature | kSpecial, std::bit_cast<float>(std::uint32_t(specials_.size() - 1)),
                left};
  };
  if (type & kLightGbmCategorical) {
    const int set = int(t);
    const auto begin = std::size_t(tree.cat_boundaries[std::size_t(set)]);
    const auto end = std::size_t(tree.cat_boundaries[std::size_t(set) + 1]);
    return special(
        {true,
         type,
         0,
         {tree.cat_threshold.begin() + long(begin), tree.cat_threshold.begin() + long(end)}});
  }
  const int missing = lightgbm_missing_type(type);
  const bool default_left = type & kLightGbmDefaultLeft;
  const float threshold = float_threshold(t);
  // What the zero band (inputs LightGBM reads as 0) must do, and what NaN does.
  const bool band_left = missing == 1 ? default_left : 0.0 <= t;
  const bool nan_left = missing == 2 ? default_left : band_left;
  const bool band_agrees = band_left ? kZeroBand < threshold : threshold <= -kZeroBand;
  if (std::isnan(threshold) || !band_agrees) return special({false, type, t, {}});
  return {feature | (nan_left ? kDefaultLeft : 0u), threshold, left};
}

void Forest::append_lightgbm_tree(const LightGbmTree& tree, const std::string& source) {
  // Breadth first, children adjacent, as append_tree. LightGBM children: >= 0 an internal
  // node, < 0 the leaf ~child.
  const std::int32_t base = std::int32_t(nodes_.size());
  std::vector<int> order = {tree.num_leaves > 1 ? 0 : ~0};
  std::vector<std::uint8_t> depth = {0};
  nodes_.push_back({}), leaf_values_.push_back(0);
  std::uint8_t deepest = 0;
  for (std::size_t next = 0; next < order.size(); ++next) {
    const std::int32_t at = std::int32_t(base + next);
    const int old = order[next];
    if (order.size() > 2 * std::size_t(std::max(tree.num_leaves, 1)))
      throw StorageError(source + ": a tree's children do not form a tree");
    if (old < 0) {
      set_leaf(at, tree.leaf_value[std::size_t(~old)]);
      continue;
    }
    if (depth[next] >= kMaxDepth)
      throw StorageError(source + ": a tree deeper than " + std::to_string(kMaxDepth) + " splits");
    num_features_ = std::max(num_features_, tree.split_feature[std::size_t(old)] + 1);
    nodes_[at] = lightgbm_split(tree, old, std::int32_t(base + order.size()));
    order.push_back(tree.left_child[std::size_t(old)]);
    order.push_back(tree.right_child[std::size_t(old)]);
    depth.insert(depth.end(), 2, std::uint8_t(depth[next] + 1));
    deepest = std::max(deepest, std::uint8_t(depth[next] + 1));
    nodes_.resize(base + order.size());
    leaf_values_.resize(nodes_.size());
  }
  roots_.push_back(base);
  depths_.push_back(deepest);
}

}  // namespace kselect::model
