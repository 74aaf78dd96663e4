// model::Objective: the names feature_spec.json and the command line spell.
#include "model/objective.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace kselect::model {
namespace {

TEST(Objective, EveryNameParsesAndPrintsBack) {
  const std::vector<std::string> expected = {"regression", "ranking", "efficiency",
                                             "classify",   "blend",   "route"};
  EXPECT_EQ(objective_names(), expected);
  for (const auto& name : objective_names()) EXPECT_EQ(to_string(parse_objective(name)), name);
  EXPECT_EQ(parse_objective("efficiency"), Objective::kEfficiency);
  EXPECT_EQ(to_string(Objective::kClassify), "classify");
}

TEST(Objective, UnknownNameIsAnInputErrorListingTheNames) {
  try {
    parse_objective("likelihood", "objective");
    FAIL() << "an unknown objective parsed";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'likelihood'"), std::string::npos) << what;
    EXPECT_NE(what.find("regression, ranking, efficiency, classify, blend, route"),
              std::string::npos)
        << what;
  }
  EXPECT_THROW(parse_objective("Regression"), InputError) << "names are case-sensitive";
}

TEST(Objective, OnlyRegressionAndEfficiencyPredictSpeeds) {
  EXPECT_TRUE(predicts_speed(Objective::kRegression));
  EXPECT_TRUE(predicts_speed(Objective::kEfficiency));
  for (Objective o :
       {Objective::kRanking, Objective::kClassify, Objective::kBlend, Objective::kRoute})
    EXPECT_FALSE(predicts_speed(o)) << to_string(o);
}

}  // namespace
}  // namespace kselect::model
