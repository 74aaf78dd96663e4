#include "select/ranker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "model/blend.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "model/forest.h"
#include "model/xgboost.h"

namespace kselect::select {
namespace {

using kselect::testing::fixed_hardware;
using kselect::testing::quick_options;

// The pick's share of the best roofline TFLOPS among the synthetic kernels (the formula the
// training data came from).
double pick_over_best(const std::string& problem, const std::string& picked_kernel) {
  auto p = gemm::GemmProblem::parse(problem);
  double best = 0,
         picked = kselect::testing::roofline_tflops(p, gemm::GemmConfig::parse_name(picked_kernel));
  for (const auto& c : kselect::testing::synthetic_configs())
    best = std::max(best, kselect::testing::roofline_tflops(p, c));
  return picked / best;
}

// One trained model directory shared by the tests of this file.
const model::TrainOptions& trained(const std::string& schema) {
  static std::map<std::string, model::TrainOptions> done;
  auto it = done.find(schema);
  if (it != done.end()) return it->second;
  model::TrainOptions o = quick_options("ranker_" + schema);
  o.schema = schema;
  o.targets = {"tflops", "latency"};
  o.folds = 2;
  o.boosting.trees = 40;
  model::train(kselect::testing::synthetic_measurements(), o);
  return done.emplace(schema, o).first->second;
}

std::vector<std::string> candidate_names() {
  std::vector<std::string> names;
  for (const auto& c : kselect::testing::synthetic_configs()) names.push_back(c.name());
  return names;
}

// Shortlisted candidates in input order, plus the kept default; all of them when the model
// has no shortlist or none of the candidates is in it.
TEST(Ranker, ShortlistedKeepsTheModelsKernelsAndTheDefault) {
  auto dir = kselect::testing::scratch_dir("ranker_shortlist");
  std::filesystem::copy(
      trained("kselect").out_dir, dir,
      std::filesystem::copy_options::overwrite_existing | std::filesystem::copy_options::recursive);
  const auto names = candidate_names();
  model::FeatureSpec spec = model::FeatureSpec::load(dir);
  spec.shortlist = {names[5], names[2]};
  spec.save(dir);
  auto ranker = Ranker::load(dir, fixed_hardware());
  EXPECT_EQ(ranker.shortlisted(names), (std::vector<std::string>{names[2], names[5]}));
  EXPECT_EQ(ranker.shortlisted(names, names[7]),
            (std::vector<std::string>{names[2], names[5], names[7]}));
  const std::vector<std::string> unlisted = {names[0], names[1]};
  EXPECT_EQ(ranker.shortlisted(unlisted), unlisted) << "nothing listed: rank them all";
  spec.shortlist.clear();
  spec.save(dir);
  EXPECT_EQ(Ranker::load(dir, fixed_hardware()).shortlisted(names), names);
}

TEST(Ranker, RanksCandidatesBestFirstWithPredictedUnits) {
  auto ranker = Ranker::load(trained("kselect").out_dir, fixed_hardware());
  auto names = candidate_names();
  std::string problem = "m=700,n=2000,k=1000,layout=rcr,dtype=fp32";
  auto ranked = ranker.rank(problem, names);
  ASSERT_EQ(ranked.size(), names.size());
  for (size_t i = 1; i < ranked.size(); ++i) EXPECT_GE(ranked[i - 1].score, ranked[i].score);
  EXPECT_NEAR(ranked[0].score, std::log1p(ranked[0].tflops * 1e3), 1e-4);  // log1p(GFLOPS)
  EXPECT_GT(ranked[0].latency_ms, 0);
  EXPECT_GT(pick_over_best(problem, ranked[0].kernel), 0.85);
}

TEST(Ranker, EfficiencyModelsRankByPredictedFractionOfTheBest) {
  model::TrainOptions o = quick_options("ranker_efficiency");
  o.objective = model::Objective::kEfficiency;
  o.targets = {"latency"};  // the order does not depend on the target
  o.folds = 0;
  o.boosting.trees = 40;
  model::train(kselect::testing::synthetic_measurements(), o);
  auto ranker = Ranker::load(o.out_dir, fixed_hardware());
  auto names = candidate_names();
  std::string problem = "m=700,n=2000,k=1000,layout=rcr,dtype=fp32";
  auto ranked = ranker.rank(problem, names);
  for (size_t i = 1; i < ranked.size(); ++i) {
    EXPECT_GE(ranked[i - 1].score, ranked[i].score);
    EXPECT_GE(ranked[i - 1].efficiency, ranked[i].efficiency) << "larger is better";
  }
  EXPECT_NEAR(ranked[0].efficiency, std::exp(ranked[0].score), 1e-9);
  EXPECT_GT(ranked[0].efficiency, 0.5);
  EXPECT_TRUE(std::isnan(ranked[0].tflops) && std::isnan(ranked[0].latency_ms));
  EXPECT_GT(pick_over_best(problem, ranked[0].kernel), 0.85);
}

// A blend scores each kernel by its members' log speeds relative to each member's pick,
// weighted and summed; its speed is exp(score).
TEST(Ranker, BlendsAddTheMembersRelativeLogSpeeds) {
  model::TrainOptions eff = quick_options("ranker_blend_efficiency");
  eff.objective = model::Objective::kEfficiency;
  eff.folds = 0;
  eff.boosting.trees = 30;
  model::train(kselect::testing::synthetic_measurements(), eff);
  const auto& reg = trained("kselect");
  const auto dir = kselect::testing::scratch_dir("ranker_blend");
  const auto spec = model::write_blend(dir, {{reg.out_dir, 1.0}, {eff.out_dir, 3.0}}, 0);
  EXPECT_EQ(spec.objective, model::Objective::kBlend);
  ASSERT_EQ(spec.blend.size(), 2u);
  EXPECT_EQ(model::FeatureSpec::load(dir).blend[1].weight, 3.0);

  auto blend = Ranker::load(dir, fixed_hardware());
  auto regression = Ranker::load(reg.out_dir, fixed_hardware());
  auto efficiency = Ranker::load(eff.out_dir, fixed_hardware());
  const auto names = candidate_names();
  const std::string problem = "m=700,n=2000,k=1000,layout=rcr,dtype=fp32";
  auto relative = [&](const Ranker& r) {
    std::map<std::string, double> out;
    double top = -1e300;
    for (const auto& s : r.rank(problem, names)) top = std::max(top, std::log(s.speed));
    for (const auto& s : r.rank(problem, names)) out[s.kernel] = std::log(s.speed) - top;
    return out;
  };
  const auto a = relative(regression), b = relative(efficiency);
  const auto ranked = blend.rank(problem, names);
  ASSERT_EQ(ranked.size(), names.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& s = ranked[i];
    EXPECT_NEAR(s.score, a.at(s.kernel) + 3.0 * b.at(s.kernel), 1e-9) << s.kernel;
    EXPECT_NEAR(s.speed, std::exp(s.score), 1e-12);
    EXPECT_FALSE(std::isnan(s.tflops)) << "the regression member's prediction";
    EXPECT_FALSE(std::isnan(s.efficiency)) << "the efficiency member's";
    if (i > 0) EXPECT_GE(ranked[i - 1].score, s.score);
  }
  std::vector<double> scores;
  blend.score(problem, *blend.prepare(names), scores);
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_NEAR(scores[i], a.at(names[i]) + 3.0 * b.at(names[i]), 1e-9);
  EXPECT_EQ(blend.num_trees(), regression.num_trees() + efficiency.num_trees());

  // Survivors: the efficiency member scores only the regression's best 3; the others follow
  // them in the regression's order. As many survivors as candidates is the whole blend.
  const auto cut = kselect::testing::scratch_dir("ranker_blend_survivors");
  EXPECT_EQ(model::write_blend(cut, {{reg.out_dir, 1.0}, {eff.out_dir, 3.0}}, 3).blend_survivors,
            3u);
  EXPECT_EQ(model::FeatureSpec::load(cut).format_version, 5);
  const auto by_regression = regression.rank(problem, names);
  std::set<std::string> first_three;
  for (std::size_t i = 0; i < 3; ++i) first_three.insert(by_regression[i].kernel);
  const auto survivors = Ranker::load(cut, fixed_hardware()).rank(problem, names);
  ASSERT_EQ(survivors.size(), names.size());
  for (std::size_t i = 0; i < survivors.size(); ++i) {
    const auto& s = survivors[i];
    if (i < 3) {
      EXPECT_EQ(first_three.count(s.kernel), 1u) << s.kernel;
      EXPECT_NEAR(s.score, a.at(s.kernel) + 3.0 * b.at(s.kernel), 1e-9) << s.kernel;
    } else {
      EXPECT_EQ(s.kernel, by_regression[i].kernel);
      EXPECT_NEAR(s.score, a.at(s.kernel) - Cascade::kCutPenalty, 1e-3) << s.kernel;
      EXPECT_TRUE(std::isnan(s.speed)) << "no whole score, no speed for the default guard";
    }
  }
  model::write_blend(cut, {{reg.out_dir, 1.0}, {eff.out_dir, 3.0}}, names.size());
  const auto whole = Ranker::load(cut, fixed_hardware()).rank(problem, names);
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(whole[i].score, ranked[i].score);
  EXPECT_THROW(blend.rank("m=7,n=7,k=7,layout=rcr,dtype=bf16", names), InputError);

  // Refused: one member, a ranking member, a weight <= 0, a spec naming a blend's members
  // without the objective.
  EXPECT_THROW(model::write_blend(dir, {{reg.out_dir, 1.0}}), InputError);
  model::TrainOptions rank = quick_options("ranker_blend_ranking");
  rank.objective = model::Objective::kRanking;
  rank.folds = 0;
  rank.boosting.trees = 5;
  model::train(kselect::testing::synthetic_measurements(), rank);
  EXPECT_THROW(model::write_blend(dir, {{reg.out_dir, 1.0}, {rank.out_dir, 1.0}}), InputError);
  EXPECT_THROW(model::write_blend(dir, {{reg.out_dir, 1.0}, {eff.out_dir, 0.0}}), InputError);
  EXPECT_THROW(model::write_blend(eff.out_dir, {{reg.out_dir, 1.0}, {eff.out_dir, 1.0}}),
               InputError)
      << "a trained model's directory";
  EXPECT_EQ(model::FeatureSpec::load(eff.out_dir).objective, model::Objective::kEfficiency);
  model::FeatureSpec broken = spec;
  broken.objective = model::Objective::kRegression;
  broken.save(dir);
  EXPECT_THROW(model::FeatureSpec::load(dir), StorageError);
}

// A blend or route written over a member that cannot load is removed again, not left behind.
TEST(Ranker, CheckWrittenRemovesAModelWhoseMembersDoNotLoad) {
  const auto& reg = trained("kselect");
  const auto member = kselect::testing::scratch_dir("ranker_written_member");
  std::filesystem::copy(reg.out_dir, member, std::filesystem::copy_options::recursive);
  const auto dir = kselect::testing::scratch_dir("ranker_written");
  model::write_blend(dir, {{reg.out_dir, 1.0}, {member, 1.0}});
  EXPECT_NO_THROW(Ranker::check_written(dir));
  EXPECT_TRUE(std::filesystem::exists(dir / "feature_spec.json"));
  const auto spec = model::FeatureSpec::load(member);
  std::filesystem::remove(model::model_file(member, spec.targets.front()));
  EXPECT_THROW(Ranker::check_written(dir), StorageError);
  EXPECT_FALSE(std::filesystem::exists(dir / "feature_spec.json"));
}

// The ranker's scores and XGBoost's own predictions on the same feature rows (a model with a
// prior: XGBoost given the prior's margins as each row's base_margin). The ranker sums the same
// leaves in double, XGBoost in float: they agree to float rounding, 1e-5 relative at most.
void expect_scores_match_xgboost(const std::filesystem::path& dir, const std::string& schema) {
  auto ranker = Ranker::load(dir, fixed_hardware());
  auto names = candidate_names();
  std::string problem = "m=33,n=4096,k=333,layout=rcr,dtype=fp32";
  std::vector<double> scores;
  ranker.score(problem, *ranker.prepare(names), scores);
  auto matrix = ranker.engine().extract(schema, problem, names);
  model::xgb::Matrix dm(matrix.values.data(), matrix.rows, matrix.cols(), 1);
  if (const model::Prior* prior = ranker.spec().prior("tflops")) {
    const auto& features = ranker.spec().features;
    const auto column =
        std::size_t(std::find(features.begin(), features.end(), prior->feature) - features.begin());
    std::vector<float> margins;
    for (std::size_t r = 0; r < matrix.rows; ++r)
      margins.push_back(model::prior_margin(prior->scale, matrix.at(r, column)));
    dm.set_base_margin(margins);
  }
  model::xgb::Booster booster;
  booster.load(model::read_file(dir / "model_tflops.json"));
  auto expected = booster.predict(dm);
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_NEAR(scores[i], expected[i], 1e-5 * std::max(1.0, std::abs(double(expected[i]))));
}

TEST(Ranker, ScoresAgreeWithXgboostOnTheSameRows) {
  expect_scores_match_xgboost(trained("ck55").out_dir, "ck55");
}

TEST(Ranker, PriorModelsAgreeWithXgboostGivenThePriorAsBaseMargin) {
  const auto& o = trained("kselect");
  auto spec = model::FeatureSpec::load(o.out_dir);
  ASSERT_NE(spec.prior("tflops"), nullptr) << "the kselect schema's tflops model has a prior";
  expect_scores_match_xgboost(o.out_dir, "kselect");
}

TEST(Ranker, ParallelTreeModelsAgreeWithXgboost) {
  model::TrainOptions o = quick_options("ranker_parallel_trees");
  o.folds = 0, o.boosting.trees = 10,
  o.boosting.parallel_trees = 3;  // 30 trees, averaged by threes
  model::train(kselect::testing::synthetic_measurements(), o);
  expect_scores_match_xgboost(o.out_dir, "kselect");
}

TEST(Ranker, CascadeScoresSurvivorsExactlyAndRanksTheRestAfterThem) {
  auto ranker = Ranker::load(trained("kselect").out_dir, fixed_hardware());
  auto names = candidate_names();
  ASSERT_GT(names.size(), 4u);
  auto block = ranker.prepare(names);
  std::string problem = "m=300,n=900,k=500,layout=rcr,dtype=fp32";
  std::vector<double> full, cascaded;
  ranker.score(problem, *block, full);
  ranker.set_cascade(Cascade{2, 3});  // every candidate runs 2 trees, the best 3 run them all
  ranker.score(problem, *block, cascaded);
  ASSERT_EQ(cascaded.size(), full.size());
  int survivors = 0;
  double lowest_survivor = INFINITY, highest_cut = -INFINITY;
  for (size_t i = 0; i < full.size(); ++i) {
    if (cascaded[i] > -Cascade::kCutPenalty / 2) {
      ++survivors;
      EXPECT_EQ(cascaded[i], full[i]) << names[i];  // bit for bit
      lowest_survivor = std::min(lowest_survivor, cascaded[i]);
    } else {
      highest_cut = std::max(highest_cut, cascaded[i]);
    }
  }
  EXPECT_EQ(survivors, 3);
  EXPECT_GT(lowest_survivor, highest_cut);

  ranker.set_cascade(Cascade{1000, 3});  // a prefix covering the model: exact scores
  ranker.score(problem, *block, cascaded);
  EXPECT_EQ(cascaded, full);
  ranker.set_cascade(Cascade{2, names.size()});  // everyone survives: exact scores
  ranker.score(problem, *block, cascaded);
  EXPECT_EQ(cascaded, full);
}

TEST(Ranker, CascadeParsesPrefixAndSurvivors) {
  Cascade c = Cascade::parse("64:32");
  EXPECT_EQ(c.prefix_trees, 64u);
  EXPECT_EQ(c.survivors, 32u);
  EXPECT_FALSE(Cascade::parse("off").enabled());
  for (const char* bad : {"64", "0:5", "5:0", "a:b", "5:-1"})
    EXPECT_THROW(Cascade::parse(bad), InputError) << bad;
}

TEST(Ranker, RefusesOtherDtypesMissingFeaturesAndBrokenModels) {
  const auto& o = trained("ck55");
  auto ranker = Ranker::load(o.out_dir, fixed_hardware());
  auto names = candidate_names();
  EXPECT_THROW(ranker.rank("m=64,n=64,k=64,dtype=bf16", names), InputError);

  auto dir = kselect::testing::scratch_dir("ranker_broken");
  std::filesystem::create_directories(dir);
  std::filesystem::copy(o.out_dir, dir, std::filesystem::copy_options::recursive);
  auto spec = model::FeatureSpec::load(dir);
  spec.features[3] = "wave_mode";
  spec.save(dir);
  try {
    Ranker::load(dir, fixed_hardware());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("wave_mode"), std::string::npos);
  }
  model::FeatureSpec::load(o.out_dir).save(dir);
  model::write_file(dir / "model_latency.json", "{\"learner\": [1, 2");
  EXPECT_THROW(Ranker::load(dir, fixed_hardware()), StorageError);
  std::filesystem::remove(dir / "model_latency.json");
  EXPECT_THROW(Ranker::load(dir, fixed_hardware()), StorageError);
}

}  // namespace
}  // namespace kselect::select
