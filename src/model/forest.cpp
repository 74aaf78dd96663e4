#include "model/forest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/error.h"
#include "model/file_io.h"
#include "model/lightgbm.h"

namespace kselect::model {

namespace {

// XGBoost writes default_left as 0/1 numbers or booleans depending on the version.
bool truthy(const nlohmann::json& v) {
  return v.is_boolean() ? v.get<bool>() : v.get<int>() != 0;
}

const nlohmann::json& require(const nlohmann::json& j, const char* key, const std::string& source) {
  auto it = j.find(key);
  if (it == j.end()) throw StorageError(source + ": XGBoost model lacks '" + key + "'");
  return *it;
}

// Objectives whose prediction is the raw margin (no link function).
bool identity_link(const std::string& objective) {
  return objective == "reg:squarederror" || objective.rfind("rank:", 0) == 0;
}

// Multi-class objectives: the forest gives each class's margin, the caller applies softmax.
bool softmax_link(const std::string& objective) {
  return objective == "multi:softprob" || objective == "multi:softmax";
}

}  // namespace

Forest Forest::load(const std::filesystem::path& file) {
  const std::string text = read_file(file);
  if (text.rfind("tree\n", 0) == 0 || text.rfind("tree\r\n", 0) == 0)
    return from_lightgbm(LightGbmModel::parse(text, file.string()), file.string());
  nlohmann::json model;
  try {
    model = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(file.string() +
                       ": neither an XGBoost JSON model nor a LightGBM text model (" + e.what() +
                       ")");
  }
  return from_xgboost_json(model, file.string());
}

Forest Forest::from_xgboost_json(const nlohmann::json& model, const std::string& source) {
  Forest f;
  try {
    const auto& learner = require(model, "learner", source);
    f.objective_ =
        require(require(learner, "objective", source), "name", source).get<std::string>();
    const auto& params = require(learner, "learner_model_param", source);
    f.base_score_ = std::stof(require(params, "base_score", source).get<std::string>());
    if (params.value("num_target", "1") != "1")
      throw StorageError(source + ": multi-target models are not supported");
    f.declared_features_ = std::stoi(params.value("num_feature", "0"));
    if (f.declared_features_ < 0)
      throw StorageError(source + ": num_feature " + std::to_string(f.declared_features_));
    const int classes = std::stoi(params.value("num_class", "0"));
    f.num_outputs_ = classes > 1 ? std::size_t(classes) : 1;
    if (f.num_outputs_ > 1 ? !softmax_link(f.objective_) : !identity_link(f.objective_))
      throw StorageError(source + ": unsupported objective '" + f.objective_ + "'" +
                         (f.num_outputs_ > 1 ? " for a multi-class model" : ""));
    const auto& booster = require(learner, "gradient_booster", source);
    if (booster.value("name", "") != "gbtree")
      throw StorageError(source + ": only gbtree boosters are supported");
    const auto& model_json = require(booster, "model", source);
    for (const auto& tree : require(model_json, "trees", source)) f.append_tree(tree, source);
    f.read_tree_groups(model_json, source);
    f.finish_loading(source);
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(source + ": malformed XGBoost model (" + e.what() + ")");
  } catch (const std::logic_error& e) {  // std::stof on a bad base_score
    throw StorageError(source + ": malformed XGBoost model (" + e.what() + ")");
  }
  return f;
}

void Forest::append_tree(const nlohmann::json& tree, const std::string& source) {
  const auto& left = require(tree, "left_children", source);
  const auto& right = require(tree, "right_children", source);
  const auto& index = require(tree, "split_indices", source);
  const auto& cond = require(tree, "split_conditions", source);
  const auto& dleft = require(tree, "default_left", source);
  const size_t n = left.size();
  if (n == 0 || right.size() != n || index.size() != n || cond.size() != n || dleft.size() != n)
    throw StorageError(source + ": tree arrays have different lengths");
  if (auto types = tree.find("split_type"); types != tree.end())
    for (const auto& t : *types)
      if (t.get<int>() != 0) throw StorageError(source + ": categorical splits are not supported");
  // Re-number breadth first so that the two children of a node are adjacent.
  const std::int32_t base = std::int32_t(nodes_.size());
  std::vector<std::int64_t> order = {0};
  std::vector<std::uint8_t> depth = {0};
  nodes_.push_back({});
  leaf_values_.push_back(0);
  std::uint8_t deepest = 0;
  for (size_t next = 0; next < order.size(); ++next) {
    std::int64_t old = order[next];
    if (old < 0 || size_t(old) >= n || order.size() > n)
      throw StorageError(source + ": tree node index out of range");
    const std::int32_t at = std::int32_t(base + next);
    std::int64_t l = left[old].get<std::int64_t>();
    if (l < 0) {
      set_leaf(at, cond[old].get<float>());
      continue;
    }
    std::uint32_t feature = index[old].get<std::uint32_t>();
    if (feature > kIndexMask) throw StorageError(source + ": split index out of range");
    if (depth[next] >= kMaxDepth)
      throw StorageError(source + ": a tree deeper than " + std::to_string(kMaxDepth) + " splits");
    num_features_ = std::max(num_features_, int(feature) + 1);
    nodes_[at] = {feature | (truthy(dleft[old]) ? kDefaultLeft : 0u), cond[old].get<float>(),
                  std::int32_t(base + order.size())};
    order.push_back(l);
    order.push_back(right[old].get<std::int64_t>());
    depth.push_back(std::uint8_t(depth[next] + 1));
    depth.push_back(std::uint8_t(depth[next] + 1));
    deepest = std::max(deepest, std::uint8_t(depth[next] + 1));
    nodes_.resize(base + order.size());
    leaf_values_.resize(nodes_.size());
  }
  roots_.push_back(base);
  depths_.push_back(deepest);
}

void Forest::set_leaf(std::int32_t at, double value) {
  nodes_[at] = {kLeaf, std::numeric_limits<float>::quiet_NaN(), at - 1};
  leaf_values_[at] = value;
}

// Checks shared by every format once the trees are in.
void Forest::finish_loading(const std::string& source) {
  if (declared_features_ > 0 && num_features_ > declared_features_)
    throw StorageError(source + ": a split reads input " + std::to_string(num_features_ - 1) +
                       " of the " + std::to_string(declared_features_) +
                       " the model declares (num_feature)");
}

// tree_info names each tree's output group (its class); one-output models have all zeros.
void Forest::read_tree_groups(const nlohmann::json& model, const std::string& source) {
  tree_group_.assign(roots_.size(), 0);
  if (num_outputs_ == 1) return;
  const auto& info = require(model, "tree_info", source);
  if (info.size() != roots_.size())
    throw StorageError(source + ": tree_info has " + std::to_string(info.size()) + " entries for " +
                       std::to_string(roots_.size()) + " trees");
  for (std::size_t t = 0; t < roots_.size(); ++t) {
    const auto group = info[t].get<std::int64_t>();
    if (group < 0 || std::size_t(group) >= num_outputs_)
      throw StorageError(source + ": tree " + std::to_string(t) + " has output group " +
                         std::to_string(group) + " of " + std::to_string(num_outputs_));
    tree_group_[t] = std::uint32_t(group);
  }
}

void Forest::require_one_output(const char* caller) const {
  if (num_outputs_ != 1)
    throw std::logic_error(std::string("Forest::") + caller + " on a model with " +
                           std::to_string(num_outputs_) + " outputs: use predict_margins");
}

float prior_margin(double scale, float value) {
  return float(std::log1p(scale * (value > 0 ? double(value) : 0.0)));
}

void Forest::set_prior(int column, double scale, const std::string& source) {
  if (num_outputs_ != 1)
    throw StorageError(source + ": a prior needs a one-output model, this one has " +
                       std::to_string(num_outputs_));
  if (column < 0 || column >= int(kIndexMask))
    throw StorageError(source + ": prior column " + std::to_string(column) + " out of range");
  prior_column_ = column;
  prior_scale_ = scale;
  num_features_ = std::max(num_features_, column + 1);
}

float Forest::start_margin(const float* row) const {
  return prior_column_ < 0 ? base_score_ : prior_margin(prior_scale_, row[prior_column_]);
}

void Forest::remap_features(const std::vector<int>& mapping) {
  if (int(mapping.size()) < num_features_)
    throw InputError("feature mapping has " + std::to_string(mapping.size()) +
                     " columns, the model reads " + std::to_string(num_features_));
  int widest = 0;
  for (Node& node : nodes_) {
    if (node.feature & kLeaf) continue;
    std::uint32_t flag = node.feature & ~kIndexMask;
    int column = mapping[node.feature & kIndexMask];
    widest = std::max(widest, column + 1);
    node.feature = std::uint32_t(column) | flag;
  }
  if (prior_column_ >= 0) {
    prior_column_ = mapping[std::size_t(prior_column_)];
    widest = std::max(widest, prior_column_ + 1);
  }
  num_features_ = widest;
}

// Walks kLanes rows down one tree together: the lanes' node loads are independent, so the
// CPU overlaps them instead of waiting on one dependent chain. The walk ends when every lane
// has reached a leaf, not after a fixed depth: lossguide trees are unbalanced, so most paths
// end well above the deepest leaf.
template <int kLanes>
void Forest::walk_lanes(std::size_t tree, const float* const* rows, float* out) const {
  const Node* nodes = nodes_.data();
  const Node* at[kLanes];
  for (int l = 0; l < kLanes; ++l) at[l] = nodes + roots_[tree];
  for (bool moving = true; moving;) {
    moving = false;
    for (int l = 0; l < kLanes; ++l) {
      const Node* node = at[l];
      if (node->feature & kLeaf) continue;
      float x = rows[l][node->feature & kIndexMask];
      bool go_right = (node->feature & kSpecial) ? special_goes_right(*node, x)
                      : std::isnan(x)            ? !(node->feature & kDefaultLeft)
                                                 : !(x < node->value);
      at[l] = nodes + node->left + go_right;
      moving = true;
    }
  }
  for (int l = 0; l < kLanes; ++l) out[l] += float(leaf_values_[std::size_t(at[l] - nodes)]);
}

void Forest::accumulate(const float* const* rows, std::size_t n, std::size_t first,
                        std::size_t last, float* out) const {
  require_one_output("accumulate");
  // Blocks of rows go through one tree at a time so that the tree stays in cache; each row
  // still adds its leaves in tree order, as XGBoost does.
  constexpr std::size_t kBlock = 64, kLanes = 8;
  last = std::min(last, roots_.size());
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    for (std::size_t tree = first; tree < last; ++tree) {
      std::size_t r = begin;
      for (; r + kLanes <= end; r += kLanes) walk_lanes<kLanes>(tree, rows + r, out + r);
      for (; r < end; ++r) walk_lanes<1>(tree, rows + r, out + r);
    }
  }
}

void Forest::predict(const float* rows, std::size_t n, std::size_t stride, float* out) const {
  require_one_output("predict");
  constexpr std::size_t kBlock = 64;
  const float* row_ptr[kBlock];
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    for (std::size_t r = begin; r < end; ++r) {
      row_ptr[r - begin] = rows + r * stride;
      out[r] = start_margin(row_ptr[r - begin]);
    }
    accumulate(row_ptr, end - begin, 0, roots_.size(), out + begin);
  }
}

void Forest::predict_margins(const float* rows, std::size_t n, std::size_t stride,
                             float* out) const {
  if (num_outputs_ == 1) return predict(rows, n, stride, out);
  // As accumulate(), blocks of rows go through one tree at a time; each tree adds to its own
  // group's sums (group-major in the block, so lanes write adjacent floats), in tree order.
  constexpr std::size_t kBlock = 64, kLanes = 8;
  const std::size_t groups = num_outputs_;
  std::vector<float> sums(groups * kBlock);
  const float* row_ptr[kBlock];
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t count = std::min(n - begin, kBlock);
    std::fill(sums.begin(), sums.end(), base_score_);
    for (std::size_t r = 0; r < count; ++r) row_ptr[r] = rows + (begin + r) * stride;
    for (std::size_t tree = 0; tree < roots_.size(); ++tree) {
      float* group_sums = sums.data() + tree_group_[tree] * kBlock;
      std::size_t r = 0;
      for (; r + kLanes <= count; r += kLanes)
        walk_lanes<kLanes>(tree, row_ptr + r, group_sums + r);
      for (; r < count; ++r) walk_lanes<1>(tree, row_ptr + r, group_sums + r);
    }
    for (std::size_t r = 0; r < count; ++r)
      for (std::size_t g = 0; g < groups; ++g) out[(begin + r) * groups + g] = sums[g * kBlock + r];
  }
}

}  // namespace kselect::model
