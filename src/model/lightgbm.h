#pragma once
// Reader and exact evaluator for LightGBM v4 text model files (`model.txt`, as written by
// LightGBM's `save_model` / the CLI's `task=train`). Predictions reproduce LightGBM's own
// bit for bit: the decision rules follow LightGBM's Tree::NumericalDecision and
// Tree::CategoricalDecision, and scores are summed in double in tree order as
// GBDT::PredictRaw does. Everything that prediction needs is checked at load time, so a
// corrupt or truncated file is a StorageError naming the file, line and field, never a crash
// or an out-of-bounds read during prediction.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kselect::model {

// The `objective=` header line: its name and its `key:value` parameters (or bare flags such
// as `sqrt`), e.g. `binary sigmoid:1`, `multiclass num_class:3`, `regression`.
struct LightGbmObjective {
  std::string name;
  std::vector<std::pair<std::string, std::string>>
      parameters;        // in file order; value "" for a flag
  double sigmoid = 1.0;  // binary, multiclassova: the `sigmoid:` parameter
  bool sqrt = false;     // regression: the `sqrt` flag squares the output back
};

struct LightGbmTree {
  int num_leaves = 0;
  // Per internal node (num_leaves - 1 entries).
  std::vector<int> split_feature;
  std::vector<double> threshold;  // categorical nodes: an index into cat_boundaries
  std::vector<std::int8_t> decision_type;
  std::vector<int> left_child;  // >= 0: internal node; < 0: leaf ~child
  std::vector<int> right_child;
  // Per leaf.
  std::vector<double> leaf_value;
  // Categorical bitsets: node bitset i is cat_threshold[cat_boundaries[i] .. cat_boundaries[i+1]).
  std::vector<int> cat_boundaries;
  std::vector<std::uint32_t> cat_threshold;
  // Informational only: leaf values already include the learning rate.
  double shrinkage = 1.0;

  // The leaf value this tree gives `row` (num_features values, NaN for missing).
  double predict(const double* row) const;
};

// LightGBM's decisions, shared by LightGbmTree and the compiled forest (model/forest.h).
// The input as LightGBM's predictor hands it to the trees: |x| <= kZeroThreshold (1e-35f) is 0.
double lightgbm_input(double x);
// Tree::NumericalDecision on an input already through lightgbm_input: true goes left.
bool lightgbm_numerical_left(std::int8_t decision_type, double threshold, double x);
// Tree::CategoricalDecision: true when x's category is in `bitset` (goes left).
bool lightgbm_categorical_left(std::span<const std::uint32_t> bitset, double x);
// decision_type bits.
constexpr std::int8_t kLightGbmCategorical = 1;
constexpr std::int8_t kLightGbmDefaultLeft = 2;
// The missing type of a decision_type: 0 none, 1 zero, 2 NaN.
constexpr int lightgbm_missing_type(std::int8_t decision_type) {
  return (decision_type >> 2) & 3;
}

class LightGbmModel {
 public:
  // Reads a plain or gzip-compressed model file; throws StorageError naming `path`.
  static LightGbmModel load(const std::filesystem::path& path);
  // Parses model text; `source` names it in error messages.
  static LightGbmModel parse(std::string_view text, const std::string& source);

  // Raw scores, one per class (num_tree_per_iteration() values), from a row of
  // num_features() values in feature_names() order.
  void predict_raw(const double* row, double* out) const;
  // Raw scores put through the objective's output transform (sigmoid, softmax, exp, ...).
  void predict(const double* row, double* out) const;

  const std::vector<std::string>& feature_names() const { return feature_names_; }
  std::size_t num_features() const { return feature_names_.size(); }
  int num_class() const { return num_class_; }
  int num_tree_per_iteration() const { return num_tree_per_iteration_; }
  const LightGbmObjective& objective() const { return objective_; }
  const std::vector<LightGbmTree>& trees() const { return trees_; }
  bool average_output() const { return average_output_; }

 private:
  std::vector<std::string> feature_names_;
  int num_class_ = 1;
  int num_tree_per_iteration_ = 1;
  LightGbmObjective objective_;
  std::vector<LightGbmTree> trees_;
  bool average_output_ = false;  // random-forest mode: raw scores are averaged over iterations
};

}  // namespace kselect::model
