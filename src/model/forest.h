#pragma once
// A tree ensemble compiled from XGBoost's JSON model into flat node arrays, evaluated without
// XGBoost. Semantics follow XGBoost's CPU predictor: a row goes left when value < threshold,
// a NaN takes the node's default direction, the margin starts at base_score and adds each
// tree's leaf in tree order (float accumulation, like XGBoost, so results match to rounding).
// A multi-class model (num_class > 1) has one margin per class: each tree adds to the output
// group its tree_info names.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kselect::model {

// log1p(scale * value) as float, NaN and values <= 0 as 0: a prior's start margin
// (FeatureSpec::Prior), the one formula training (each row's base_margin) and prediction use.
float prior_margin(double scale, float value);

class Forest {
 public:
  // Parses an XGBoost JSON model (gbtree, numeric splits; one output with an identity link, or
  // multi:softprob / multi:softmax margins per class). Throws StorageError naming `source` for
  // anything else or for a malformed model.
  static Forest from_xgboost_json(const nlohmann::json& model, const std::string& source);
  // Reads a plain or gzip-compressed XGBoost JSON model file.
  static Forest load(const std::filesystem::path& file);

  std::size_t num_trees() const { return roots_.size(); }
  // Number of input columns the forest reads (one more than the largest split index).
  int num_features() const { return num_features_; }
  // The input count the model file declares (XGBoost's num_feature); 0 when it declares none.
  // Every split index is below it.
  int declared_features() const { return declared_features_; }
  float base_score() const { return base_score_; }
  // Margins per row: 1, or the class count of a multi-class model.
  std::size_t num_outputs() const { return num_outputs_; }
  const std::string& objective() const { return objective_; }

  // Starts every row's margin at prior_margin(scale, row[column]) instead of base_score, as
  // XGBoost does for a model trained with a per-row base_margin (FeatureSpec::Prior). `column`
  // is a model column, remapped with the splits by remap_features(). One-output forests only
  // (StorageError naming `source` otherwise, or for a column out of range).
  void set_prior(int column, double scale, const std::string& source);
  // The margin row `row` starts from before the trees add theirs: base_score, or the prior's.
  float start_margin(const float* row) const;

  // Makes model column i read input column mapping[i]: lets a model trained on one feature
  // list run on rows of a wider or reordered list without copying columns.
  void remap_features(const std::vector<int>& mapping);

  // Margins of `n` rows; row r starts at rows + r * stride. One-output forests only
  // (std::logic_error otherwise): the fast path of ranking and the cascade.
  void predict(const float* rows, std::size_t n, std::size_t stride, float* out) const;
  // Adds the leaves of trees [first, last) to out[i] for row rows[i]: predict() is
  // start_margin() plus every tree, and running a prefix, then the rest, gives the same margin bit
  // for bit. One-output forests only, as predict().
  void accumulate(const float* const* rows, std::size_t n, std::size_t first, std::size_t last,
                  float* out) const;
  // Every output's margin of `n` rows: out[r * num_outputs() + g] (row-major), XGBoost's
  // output_margin prediction. Equals predict() for a one-output forest.
  void predict_margins(const float* rows, std::size_t n, std::size_t stride, float* out) const;

 private:
  // Children of node i are adjacent (right = left + 1). The top bit of `feature` holds
  // default-left, the next one marks a leaf, which keeps its value in `value` and points
  // `left` at itself.
  struct Node {
    std::uint32_t feature;
    float value;
    std::int32_t left;
  };
  static constexpr std::uint32_t kDefaultLeft = 0x80000000u;
  static constexpr std::uint32_t kLeaf = 0x40000000u;
  static constexpr std::uint32_t kIndexMask = kLeaf - 1;

  void append_tree(const nlohmann::json& tree, const std::string& source);
  void read_tree_groups(const nlohmann::json& model, const std::string& source);
  void require_one_output(const char* caller) const;
  template <int kLanes>
  void walk_lanes(std::size_t tree, const float* const* rows, float* out) const;

  std::vector<Node> nodes_;
  std::vector<std::int32_t> roots_;
  std::vector<std::uint32_t> tree_group_;  // output group of each tree (multi-class)
  std::size_t num_outputs_ = 1;
  float base_score_ = 0;
  int prior_column_ = -1;  // -1: no prior
  double prior_scale_ = 1;
  int num_features_ = 0;
  int declared_features_ = 0;
  std::string objective_;
};

}  // namespace kselect::model
