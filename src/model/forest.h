#pragma once
// A tree ensemble compiled into flat node arrays and evaluated without XGBoost or LightGBM:
// XGBoost's JSON models and LightGBM's text models (model/lightgbm.h) load into the same nodes.
// A row goes left when value < threshold, and a NaN takes the node's default direction
// (XGBoost's CPU predictor). A LightGBM split, `x <= t` on doubles with its missing-value types,
// becomes the same test on the float inputs kselect's rows hold (docs/model-format.md); the few
// it cannot express so (categorical bitsets, zero-as-missing against a threshold inside the zero
// band) keep LightGBM's own decision. The margin starts at base_score (or the prior) and adds
// each tree's leaf in tree order: predict() sums in float, as XGBoost does, so results match it
// to rounding; the exact path (predict_exact) sums double leaves in double, as LightGBM does.
// A multi-class model (num_class > 1) has one margin per class: each tree adds to the output
// group its tree_info names.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kselect::model {

class LightGbmModel;
struct LightGbmTree;

// log1p(scale * value) as float, NaN and values <= 0 as 0: a prior's start margin
// (FeatureSpec::Prior), the one formula training (each row's base_margin) and prediction use.
float prior_margin(double scale, float value);

class Forest {
 public:
  // Parses an XGBoost JSON model (gbtree, numeric splits; one output with an identity link, or
  // multi:softprob / multi:softmax margins per class). Throws StorageError naming `source` for
  // anything else or for a malformed model.
  static Forest from_xgboost_json(const nlohmann::json& model, const std::string& source);
  // Compiles a LightGBM model (regression-type or ranking objectives: identity output; multiclass:
  // softmax margins). StorageError naming `source` for objectives whose output is not a margin
  // kselect ranks by, and for random-forest (average_output) models.
  static Forest from_lightgbm(const LightGbmModel& model, const std::string& source);
  // Reads a plain or gzip-compressed model file: XGBoost JSON, or LightGBM text (a file whose
  // first line is `tree`).
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
  // Every output's margin of `n` rows: out[r * num_outputs() + g] (row-major), XGBoost's
  // output_margin prediction. Equals predict() for a one-output forest.
  void predict_margins(const float* rows, std::size_t n, std::size_t stride, float* out) const;

  // The exact fast path of selection: margins of `n` rows (row r at rows + r * stride) summed
  // in double, start_margin() plus the leaves of trees [first, last) when `first` is 0, else
  // added to out[]. Columns with one value in every row (the problem's, when the rows are one
  // problem's candidates) have their splits resolved once for the block instead of once per
  // row. One-output forests only.
  void predict_exact(const float* rows, std::size_t n, std::size_t stride, std::size_t first,
                     std::size_t last, double* out) const;
  // Counts of what predict_exact did on its last call in this thread, for benchmarks and tests.
  struct ExactStats {
    std::size_t nodes = 0;           // nodes the rows walked through (after resolution)
    std::size_t resolved_nodes = 0;  // splits on block-constant columns, resolved once
  };
  static ExactStats last_exact_stats();

 private:
  // Children of node i are adjacent (right = left + 1). The top bit of `feature` holds
  // default-left, the next one marks a leaf, the next a special split (its decision is
  // specials_[bit_cast<uint32>(value)]'s). A leaf keeps its value in leaf_values_ (and, as a
  // float, in `value` for predict()); for the fixed-depth walk of predict_exact it is also a
  // split that always returns to itself: no default-left, threshold NaN (x < NaN is false for
  // every x, so it goes right) and `left` one before itself.
  struct Node {
    std::uint32_t feature;
    float value;
    std::int32_t left;
  };
  static constexpr std::uint32_t kDefaultLeft = 0x80000000u;
  static constexpr std::uint32_t kLeaf = 0x40000000u;
  static constexpr std::uint32_t kSpecial = 0x20000000u;
  static constexpr std::uint32_t kIndexMask = kSpecial - 1;
  // A LightGBM split that `x < threshold` cannot express: LightGBM's decision on double(x).
  struct Special {
    bool categorical = false;
    std::int8_t decision_type = 0;          // LightGBM's: categorical, default-left, missing type
    double threshold = 0;                   // numerical splits
    std::vector<std::uint32_t> categories;  // categorical splits: the bitset of left categories
  };
  bool special_goes_right(const Node& node, float x) const;
  // Adds the leaves of trees [first, last) to out[i] for row rows[i], in float (predict()).
  void accumulate(const float* const* rows, std::size_t n, std::size_t first, std::size_t last,
                  float* out) const;
  // The nodes one block of rows walks: the forest's own, or a copy with the block's constant
  // columns resolved (forest_exact.cpp).
  struct Walk {
    const Node* nodes;
    const double* leaf_values;
    const std::int32_t* roots;  // indexed by tree - first
    const std::uint8_t* depths;
  };
  Walk resolve_constant_columns(const float* rows, std::size_t n, std::size_t stride,
                                std::size_t first, std::size_t last) const;
  void walk_exact(const Walk& walk, const float* rows, std::size_t n, std::size_t stride,
                  std::size_t trees, double* out) const;
  template <int kLanes>
  void walk_lanes_exact(const Walk& walk, std::size_t tree, const float* rows, std::size_t stride,
                        double* out) const;
  std::int32_t next_node(const Node& node, float x) const {
    const bool right = (node.feature & kSpecial) ? special_goes_right(node, x)
                       : std::isnan(x)           ? !(node.feature & kDefaultLeft)
                                                 : !(x < node.value);
    return node.left + std::int32_t(right);
  }

  static constexpr int kMaxDepth = 64;
  void append_tree(const nlohmann::json& tree, const std::string& source);
  void append_lightgbm_tree(const LightGbmTree& tree, const std::string& source);
  Node lightgbm_split(const LightGbmTree& tree, int node, std::int32_t left);
  void set_leaf(std::int32_t at, double value);
  void finish_loading(const std::string& source);
  void read_tree_groups(const nlohmann::json& model, const std::string& source);
  void require_one_output(const char* caller) const;
  template <int kLanes>
  void walk_lanes(std::size_t tree, const float* const* rows, float* out) const;

  std::vector<Node> nodes_;
  std::vector<double> leaf_values_;  // per node (leaves only)
  std::vector<Special> specials_;
  std::vector<std::int32_t> roots_;
  std::vector<std::uint8_t> depths_;       // per tree: splits on its longest path
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
