#include "model/boosting_params.h"

#include <stdexcept>

#include "core/error.h"

namespace kselect::model {

std::string xgboost_objective(Loss loss) {
  switch (loss) {
    case Loss::kSquaredError:
      return "reg:squarederror";
    case Loss::kLogistic:
      return "binary:logistic";
    case Loss::kPairwise:
      return "rank:pairwise";
    case Loss::kSoftprob:
      return "multi:softprob";
  }
  throw std::logic_error("model::xgboost_objective: an unknown loss");
}

BoostingParams BoostingParams::strict_protocol() {
  BoostingParams p;
  p.trees = 100;
  p.eta = 0.15;
  p.max_leaves = 63;
  p.max_depth = 10;
  p.min_child_weight = 5;
  p.subsample = 0.8;
  p.colsample = 0.8;
  p.lambda = 1;
  p.alpha = 0;
  return p;
}

BoostingParams BoostingParams::transfer_protocol() {
  BoostingParams p = strict_protocol();
  p.trees = 300;
  p.eta = 0.1;
  return p;
}

void check_boosting(const BoostingParams& p) {
  auto require = [](bool ok, const char* field, const char* what) {
    if (!ok) throw InputError("", 0, field, what);
  };
  require(p.trees >= 1, "trees", "must be at least 1");
  require(p.threads >= 1, "threads", "must be at least 1");
  require(p.eta > 0 && p.eta <= 1, "eta", "must be in (0, 1]");
  require(p.max_leaves == 0 || p.max_leaves >= 2, "max-leaves", "must be at least 2 (0: no limit)");
  require(p.max_depth >= 0, "max-depth", "must be at least 0 (0: no limit)");
  require(p.min_child_weight >= 0, "min-child-weight", "must be at least 0");
  require(p.subsample > 0 && p.subsample <= 1, "subsample", "must be in (0, 1]");
  require(p.colsample < 0 || (p.colsample > 0 && p.colsample <= 1), "colsample",
          "must be in (0, 1]");
  require(p.lambda >= 0, "lambda", "must be at least 0");
  require(p.alpha >= 0, "alpha", "must be at least 0");
  require(p.parallel_trees >= 1 && p.parallel_trees <= 64, "parallel-trees", "must be in 1..64");
}

std::map<std::string, std::string> booster_settings(const BoostingParams& p, Loss loss) {
  if (p.colsample < 0)
    throw std::logic_error("model::booster_settings: colsample is not resolved to the op's");
  return {{"objective", xgboost_objective(loss)},
          {"tree_method", "hist"},
          {"grow_policy", "lossguide"},
          {"max_leaves", std::to_string(p.max_leaves)},
          {"max_depth", std::to_string(p.max_depth)},
          {"eta", std::to_string(p.eta)},
          {"subsample", std::to_string(p.subsample)},
          {"colsample_bytree", std::to_string(p.colsample)},
          {"lambda", std::to_string(p.lambda)},
          {"alpha", std::to_string(p.alpha)},
          {"min_child_weight", std::to_string(p.min_child_weight)},
          {"seed", std::to_string(p.seed)},
          {"num_parallel_tree", std::to_string(p.parallel_trees)},
          {"nthread", std::to_string(p.threads)},
          {"verbosity", "0"}};
}

}  // namespace kselect::model
