// Routes: what `kselect route` writes and which member sets it refuses.
#include "model/route.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"

#include "model/blend.h"
#include "model/train.h"
#include "synthetic.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

using kselect::testing::quick_options;

std::filesystem::path trained(const std::string& name, const std::string& where, std::int64_t n,
                              Objective objective = Objective::kRegression,
                              std::vector<std::string> targets = {}) {
  TrainOptions o = quick_options("route_" + name);
  o.folds = 0, o.boosting.trees = 5, o.where = where, o.objective = objective;
  if (!targets.empty()) o.targets = std::move(targets);
  std::vector<data::Measurement> rows;
  for (const auto& r : kselect::testing::synthetic_measurements())
    if (where.empty() || gemm::GemmProblem::parse(r.problem).n == n) rows.push_back(r);
  train(rows, o);
  return o.out_dir;
}

TEST(Route, WritesItsMembersWithTheirTrainingRangesTogether) {
  const auto n64 = trained("n64", "n=64", 64), all = trained("all", "", 0);
  const auto dir = kselect::testing::scratch_dir("route_written");
  const FeatureSpec spec = write_route(dir, {n64, all});
  EXPECT_EQ(spec.objective, Objective::kRoute);
  ASSERT_EQ(spec.route.size(), 2u);
  EXPECT_TRUE(spec.where.empty());
  EXPECT_EQ(FeatureSpec::load(dir / spec.route[0]).where, "n=64");
  // The members' ranges together: n from the catch-all member's 64..3000.
  EXPECT_EQ(spec.training_ranges.at("n").min, 64);
  EXPECT_EQ(spec.training_ranges.at("n").max, 3000);
  const FeatureSpec loaded = FeatureSpec::load(dir);
  EXPECT_EQ(loaded.route, spec.route);
  EXPECT_EQ(loaded.objective, Objective::kRoute);
}

TEST(Route, RefusesMembersThatCannotShareItsProblems) {
  const auto n64 = trained("r_n64", "n=64", 64), all = trained("r_all", "", 0);
  const auto dir = kselect::testing::scratch_dir("route_refused");
  EXPECT_THROW(write_route(dir, {n64}), InputError);       // one member
  EXPECT_THROW(write_route(dir, {all, n64}), InputError);  // a catch-all before the last
  const auto latency = trained("r_latency", "n=250", 250, Objective::kRegression, {"latency"});
  EXPECT_THROW(write_route(dir, {latency, all}), InputError);  // predicts another quantity
  // Another objective joins: each problem is scored by one member alone.
  const auto ranking = trained("r_ranking", "n=250", 250, Objective::kRanking);
  EXPECT_NO_THROW(write_route(dir, {ranking, all}));
  write_route(dir, {n64, all});
  const auto nested = kselect::testing::scratch_dir("route_nested");
  EXPECT_THROW(write_route(nested, {dir, all}), InputError);  // a route as a member
  // A directory holding a trained model is never written over.
  EXPECT_THROW(write_route(all, {n64, all}), InputError);
  EXPECT_THROW(write_blend(dir / "blend", {{n64, 1}, {dir, 1}}), InputError);
}

}  // namespace
}  // namespace kselect::model
