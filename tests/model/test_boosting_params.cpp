// model::BoostingParams: the one declaration of boosting parameters, its presets and their
// XGBoost settings.
#include "model/boosting_params.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "eval/listed_protocol.h"
#include "eval/transfer.h"
#include "model/train.h"

namespace kselect::model {
namespace {

TEST(BoostingParams, TrainingDefaultsAreTrainOptionsOwn) {
  const BoostingParams p = BoostingParams::training();
  EXPECT_EQ(p.trees, 500);
  EXPECT_DOUBLE_EQ(p.eta, 0.05);
  EXPECT_EQ(p.max_leaves, 127);
  EXPECT_EQ(p.max_depth, 12);
  EXPECT_DOUBLE_EQ(p.min_child_weight, 20);
  EXPECT_DOUBLE_EQ(p.subsample, 0.8);
  EXPECT_LT(p.colsample, 0) << "the op's default";
  EXPECT_DOUBLE_EQ(p.lambda, 1);
  EXPECT_DOUBLE_EQ(p.alpha, 0.1);
  EXPECT_EQ(p.parallel_trees, 1);
  EXPECT_EQ(TrainOptions{}.boosting.trees, p.trees);
  EXPECT_DOUBLE_EQ(TrainOptions{}.boosting.eta, p.eta);
}

// The strict and transfer protocols' documented numbers were measured with these values.
TEST(BoostingParams, ProtocolPresetsKeepTheirDocumentedValues) {
  const BoostingParams strict = BoostingParams::strict_protocol();
  EXPECT_EQ(strict.trees, 100);
  EXPECT_DOUBLE_EQ(strict.eta, 0.15);
  EXPECT_EQ(strict.max_leaves, 63);
  EXPECT_EQ(strict.max_depth, 10);
  EXPECT_DOUBLE_EQ(strict.min_child_weight, 5);
  EXPECT_DOUBLE_EQ(strict.subsample, 0.8);
  EXPECT_DOUBLE_EQ(strict.colsample, 0.8);
  EXPECT_DOUBLE_EQ(strict.lambda, 1) << "XGBoost's default";
  EXPECT_DOUBLE_EQ(strict.alpha, 0) << "XGBoost's default";
  EXPECT_EQ(eval::ListedOptions{}.boosting.trees, 100);
  EXPECT_DOUBLE_EQ(eval::ListedOptions{}.boosting.eta, 0.15);

  const BoostingParams transfer = BoostingParams::transfer_protocol();
  EXPECT_EQ(transfer.trees, 300);
  EXPECT_DOUBLE_EQ(transfer.eta, 0.1);
  EXPECT_EQ(transfer.max_leaves, 63);
  EXPECT_EQ(transfer.max_depth, 10);
  EXPECT_DOUBLE_EQ(transfer.min_child_weight, 5);
  EXPECT_EQ(eval::TransferOptions{}.boosting.trees, 300);
  EXPECT_DOUBLE_EQ(eval::TransferOptions{}.boosting.eta, 0.1);
}

TEST(BoostingParams, SettingsNameEveryParameterAndTheLoss) {
  BoostingParams p = BoostingParams::strict_protocol();
  p.seed = 7, p.threads = 3;
  const auto settings = booster_settings(p, Loss::kPairwise);
  const std::map<std::string, std::string> expected = {{"objective", "rank:pairwise"},
                                                       {"tree_method", "hist"},
                                                       {"grow_policy", "lossguide"},
                                                       {"max_leaves", "63"},
                                                       {"max_depth", "10"},
                                                       {"eta", "0.150000"},
                                                       {"subsample", "0.800000"},
                                                       {"colsample_bytree", "0.800000"},
                                                       {"lambda", "1.000000"},
                                                       {"alpha", "0.000000"},
                                                       {"min_child_weight", "5.000000"},
                                                       {"seed", "7"},
                                                       {"num_parallel_tree", "1"},
                                                       {"nthread", "3"},
                                                       {"verbosity", "0"}};
  EXPECT_EQ(settings, expected);
  EXPECT_EQ(booster_settings(p, Loss::kSoftprob).at("objective"), "multi:softprob");
  EXPECT_EQ(xgboost_objective(Loss::kSquaredError), "reg:squarederror");
  EXPECT_EQ(xgboost_objective(Loss::kLogistic), "binary:logistic");
  // The trainer resolves the op's column sample first.
  EXPECT_THROW(booster_settings(BoostingParams::training(), Loss::kSquaredError), std::logic_error);
}

TEST(BoostingParams, ChecksRefuseWhatCannotTrain) {
  EXPECT_NO_THROW(check_boosting(BoostingParams::training()));
  EXPECT_NO_THROW(check_boosting(BoostingParams::strict_protocol()));
  EXPECT_NO_THROW(check_boosting(BoostingParams::transfer_protocol()));
  const std::vector<std::pair<std::string, void (*)(BoostingParams&)>> bad = {
      {"trees", [](BoostingParams& p) { p.trees = 0; }},
      {"threads", [](BoostingParams& p) { p.threads = 0; }},
      {"eta", [](BoostingParams& p) { p.eta = 0; }},
      {"eta", [](BoostingParams& p) { p.eta = 1.5; }},
      {"max-leaves", [](BoostingParams& p) { p.max_leaves = 1; }},
      {"min-child-weight", [](BoostingParams& p) { p.min_child_weight = -1; }},
      {"subsample", [](BoostingParams& p) { p.subsample = 0; }},
      {"colsample", [](BoostingParams& p) { p.colsample = 1.5; }},
      {"parallel-trees", [](BoostingParams& p) { p.parallel_trees = 65; }},
  };
  for (const auto& [field, spoil] : bad) {
    BoostingParams p;
    spoil(p);
    try {
      check_boosting(p);
      ADD_FAILURE() << field << " passed";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + field + "'"), std::string::npos) << e.what();
    }
  }
  BoostingParams unlimited;
  unlimited.max_leaves = 0;  // no limit: XGBoost's own meaning
  EXPECT_NO_THROW(check_boosting(unlimited));
}

}  // namespace
}  // namespace kselect::model
