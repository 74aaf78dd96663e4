#include "select/scorer.h"

#include <gtest/gtest.h>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "model/blend.h"
#include "model/train.h"
#include "select/blend_scorer.h"
#include "select/forest_scorer.h"

namespace kselect::select {
namespace {

using kselect::testing::fixed_hardware;
using kselect::testing::quick_options;

model::TrainOptions trained(const std::string& name, model::Objective objective) {
  model::TrainOptions o = quick_options(name);
  o.objective = objective;
  o.folds = 0;
  o.boosting.trees = 10;
  model::train(kselect::testing::synthetic_measurements(), o);
  return o;
}

// The model's objective chooses the scorer: forests for regression and efficiency models, a
// blend of forest scorers for a blend, whose trees are its members'.
TEST(Scorer, LoadsTheScorerOfTheModelsObjective) {
  const auto regression = trained("scorer_regression", model::Objective::kRegression);
  const auto efficiency = trained("scorer_efficiency", model::Objective::kEfficiency);
  const auto blend_dir = kselect::testing::scratch_dir("scorer_blend");
  model::write_blend(blend_dir, {{regression.out_dir, 1.0}, {efficiency.out_dir, 1.0}});

  auto forest = load_scorer(regression.out_dir, fixed_hardware(), {});
  auto near = load_scorer(efficiency.out_dir, fixed_hardware(), {});
  auto blend = load_scorer(blend_dir, fixed_hardware(), {});
  ASSERT_NE(dynamic_cast<const ForestScorer*>(forest.get()), nullptr);
  ASSERT_NE(dynamic_cast<const ForestScorer*>(near.get()), nullptr);
  ASSERT_NE(dynamic_cast<const BlendScorer*>(blend.get()), nullptr);
  EXPECT_EQ(blend->spec().objective, model::Objective::kBlend);
  EXPECT_EQ(blend->num_trees(), forest->num_trees() + near->num_trees());
  EXPECT_EQ(blend->engine().all_features(), forest->engine().all_features());
}

// Scores come in input order, as the detailed scores do: the Ranker sorts.
TEST(Scorer, ScoresAndDetailedScoresAgreeInInputOrder) {
  const auto regression = trained("scorer_regression_order", model::Objective::kRegression);
  auto scorer = load_scorer(regression.out_dir, fixed_hardware(), {});
  std::vector<std::string> names;
  for (const auto& c : kselect::testing::synthetic_configs()) names.push_back(c.name());
  const std::string problem = "m=700,n=2000,k=1000,layout=rcr,dtype=fp32";
  auto block = scorer->prepare(names);
  std::vector<double> scores;
  scorer->score(problem, *block, scores);
  auto detailed = scorer->scored(problem, *block, names);
  ASSERT_EQ(detailed.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(detailed[i].kernel, names[i]);
    EXPECT_EQ(detailed[i].score, scores[i]);
    EXPECT_FALSE(std::isnan(detailed[i].tflops));
  }
}

}  // namespace
}  // namespace kselect::select
