#include "select/scorer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "model/blend.h"
#include "model/route.h"
#include "model/train.h"
#include "select/blend_scorer.h"
#include "select/forest_scorer.h"
#include "select/route_scorer.h"

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

// A route scores each problem with the first member whose training filter takes it: the same
// scores as that member alone, meaning what that member's objective says; a problem no member
// takes is an error naming the filters.
TEST(Scorer, ARouteScoresEachProblemWithTheMemberItsFilterPicks) {
  auto member = [](const std::string& name, const std::string& where, std::int64_t m,
                   model::Objective objective = model::Objective::kRegression) {
    model::TrainOptions o = quick_options("scorer_route_" + name);
    o.folds = 0, o.boosting.trees = 10, o.where = where, o.objective = objective;
    std::vector<data::Measurement> rows;
    for (const auto& r : kselect::testing::synthetic_measurements())
      if (where.empty() || gemm::GemmProblem::parse(r.problem).m == m) rows.push_back(r);
    model::train(rows, o);
    return o.out_dir;
  };
  const auto small = member("m8", "m=8", 8, model::Objective::kEfficiency);
  const auto all = member("all", "", 0);
  const auto dir = kselect::testing::scratch_dir("scorer_route");
  model::write_route(dir, {small, all});
  auto route = load_scorer(dir, fixed_hardware(), {});
  const auto* router = dynamic_cast<const RouteScorer*>(route.get());
  ASSERT_NE(router, nullptr);
  EXPECT_EQ(router->spec().objective, model::Objective::kRoute);
  EXPECT_EQ(router->scoring_objective(gemm::GemmProblem::parse("m=8,n=64,k=64").to_string()),
            model::Objective::kEfficiency);
  EXPECT_EQ(router->scoring_objective(gemm::GemmProblem::parse("m=200,n=64,k=64").to_string()),
            model::Objective::kRegression);
  auto alone_small = load_scorer(small, fixed_hardware(), {});
  auto alone_all = load_scorer(all, fixed_hardware(), {});
  std::vector<std::string> names;
  for (const auto& c : kselect::testing::synthetic_configs()) names.push_back(c.name());
  const auto block = route->prepare(names);
  for (const auto& [problem, alone] :
       {std::pair{std::string("m=8,n=250,k=777,layout=rcr,dtype=fp32"), alone_small.get()},
        {std::string("m=200,n=250,k=777,layout=rcr,dtype=fp32"), alone_all.get()}}) {
    const std::string canonical = gemm::GemmProblem::parse(problem).to_string();
    std::vector<double> routed, expected;
    route->score(canonical, *block, routed);
    alone->score(canonical, *alone->prepare(names), expected);
    EXPECT_EQ(routed, expected) << canonical;
  }
  EXPECT_EQ(
      router->member_dir(gemm::GemmProblem::parse("m=8,n=64,k=64").to_string()),
      std::filesystem::absolute(small).lexically_relative(std::filesystem::absolute(dir)).string());
  // Without a catch-all member, a problem neither filter takes is refused.
  const auto other = member("m30", "m=30", 30);
  model::write_route(dir, {small, other});
  auto partial = load_scorer(dir, fixed_hardware(), {});
  std::vector<double> out;
  EXPECT_THROW(partial->score(gemm::GemmProblem::parse("m=200,n=64,k=64").to_string(),
                              *partial->prepare(names), out),
               InputError);
}

// A blend that names itself (or another blend) as a member is refused before that member loads:
// loading never recurses, whether the member is written relative or absolute.
TEST(Scorer, ABlendNamingABlendAsAMemberIsRefusedWithoutRecursing) {
  const auto regression = trained("scorer_cycle_regression", model::Objective::kRegression);
  const auto efficiency = trained("scorer_cycle_efficiency", model::Objective::kEfficiency);
  const auto blend_dir = kselect::testing::scratch_dir("scorer_cycle_blend");
  model::FeatureSpec spec =
      model::write_blend(blend_dir, {{regression.out_dir, 1.0}, {efficiency.out_dir, 1.0}});
  for (const std::string self : {std::string("."), std::filesystem::absolute(blend_dir).string()}) {
    spec.blend[1].model = self;
    spec.save(blend_dir);
    try {
      load_scorer(blend_dir, fixed_hardware(), {});
      ADD_FAILURE() << "a blend with member " << self << " loaded";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("predicts no speeds"), std::string::npos) << e.what();
    }
  }
}

// A model file trained on more features than its spec lists (a feature name removed) is refused
// naming both counts, not read with shifted columns.
TEST(Scorer, AModelWhoseSpecListsFewerFeaturesIsRefused) {
  const auto regression = trained("scorer_short_spec", model::Objective::kRegression);
  model::FeatureSpec spec = model::FeatureSpec::load(regression.out_dir);
  const std::string removed = spec.features.back();
  spec.features.pop_back();
  spec.categorical.erase(std::remove(spec.categorical.begin(), spec.categorical.end(), removed),
                         spec.categorical.end());
  spec.priors.clear();
  spec.save(regression.out_dir);
  try {
    load_scorer(regression.out_dir, fixed_hardware(), {});
    FAIL() << "a spec with a feature removed loaded";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("feature_spec.json lists"), std::string::npos) << e.what();
  }
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
