#pragma once
// Gradient-boosting parameters, declared once: `kselect train` (model::TrainOptions) and the
// evaluation protocols that train their own models per fold (eval/listed_protocol.h,
// eval/transfer.h) all hold a BoostingParams, and booster_settings() is the one translation
// into XGBoost's settings. The protocols start from their own presets, whose values the numbers
// docs/evaluation.md reports were measured with.
#include <map>
#include <string>

namespace kselect::model {

// XGBoost's learning objective (its `objective` setting), chosen by what is learned.
enum class Loss {
  kSquaredError,  // reg:squarederror
  kLogistic,      // binary:logistic
  kPairwise,      // rank:pairwise: rows grouped into queries
  kSoftprob,      // multi:softprob: the caller sets num_class
};

// XGBoost's name of the loss ("reg:squarederror", ...).
std::string xgboost_objective(Loss loss);

// The member initialisers are `kselect train`'s defaults.
struct BoostingParams {
  int trees = 500;  // boosting rounds (with early stopping: at most)
  double eta = 0.05;
  int max_leaves = 127;  // trees grow leaf by leaf (lossguide); 0: no limit
  int max_depth = 12;
  double min_child_weight = 20;
  double subsample = 0.8;  // rows sampled per tree
  // Features sampled per tree; < 0: the op's default (Capabilities::default_colsample), which
  // the trainer resolves before booster_settings().
  double colsample = -1;
  double lambda = 1.0;  // L2 regularisation of leaf weights
  double alpha = 0.1;   // L1 regularisation of leaf weights
  // Trees fitted per boosting round on different row/feature samples and averaged (XGBoost's
  // num_parallel_tree): a bagged ensemble inside one model, less variance from the sampling.
  int parallel_trees = 1;
  int seed = 0;  // row and feature sampling
  int threads = 2;

  // `kselect train`'s defaults.
  static BoostingParams training() { return {}; }
  // The strict protocol's defaults (eval::ListedOptions): smaller, faster-learning trees, one
  // model per fold and method; lambda and alpha at XGBoost's own defaults.
  static BoostingParams strict_protocol();
  // The transfer protocol's defaults (eval::TransferOptions): as strict, with more rounds at a
  // lower rate for the one model per held-out device.
  static BoostingParams transfer_protocol();
};

// InputError naming the option for a value that cannot train: trees, threads or parallel_trees
// out of range, eta outside (0, 1], max_leaves 1 or negative, min_child_weight, lambda or alpha
// negative, subsample outside (0, 1], colsample above 1 or 0.
void check_boosting(const BoostingParams& params);

// XGBoost's settings for `params` learning `loss` ("objective" included; eval_metric and
// num_class are the caller's). std::logic_error when colsample is unresolved (< 0).
std::map<std::string, std::string> booster_settings(const BoostingParams& params, Loss loss);

}  // namespace kselect::model
