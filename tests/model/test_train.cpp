#include "model/train.h"
#include "ops/operation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "eval/oof_file.h"
#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "synthetic.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

using kselect::testing::quick_options;
using kselect::testing::synthetic_measurements;

std::string error_of(const std::vector<data::Measurement>& data, const TrainOptions& o) {
  try {
    train(data, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Train, LearnsSyntheticDataAndWritesEveryArtifact) {
  auto data = synthetic_measurements();
  data[3].valid = false;  // an unsupported row: not trained on, not in the OOF file
  TrainOptions o = quick_options("train_basic");
  TrainResult r = train(data, o);
  ASSERT_EQ(r.targets.size(), 1u);
  const TargetResult& t = r.targets[0];
  EXPECT_EQ(r.valid_rows, data.size() - 1);
  EXPECT_EQ(r.unique_shapes, 84u);
  EXPECT_EQ(t.folds.size(), 5u);
  EXPECT_GT(t.overall.r2, 0.8) << "out-of-fold R2 in TFLOPS";
  EXPECT_GT(t.overall.mean_efficiency, 0.9);
  // The final model's rounds come from cross-validation: the folds' mean best round count x 5/4.
  double mean_best = 0;
  for (const FoldResult& f : t.folds) mean_best += f.best_trees / 5.0;
  const int expected_trees = std::min(int(std::lround(mean_best * 1.25)), o.boosting.trees);
  EXPECT_EQ(t.trees, expected_trees);
  for (const char* file :
       {"model_tflops.json", "feature_spec.json", "train_manifest.json", "cv_metrics_tflops.json",
        "feature_importances_tflops.json", "oof_tflops.csv"})
    EXPECT_TRUE(std::filesystem::exists(o.out_dir / file)) << file;
  auto manifest = read_json(o.out_dir / "train_manifest.json");
  EXPECT_EQ(manifest["valid_rows"], data.size() - 1);
  EXPECT_EQ(manifest["trees"]["tflops"]["total"], expected_trees);
  auto cv = read_json(o.out_dir / "cv_metrics_tflops.json");
  EXPECT_EQ(cv["folds"].size(), 5u);
  EXPECT_TRUE(cv["folds"][0]["p10_efficiency"].is_number());
  auto importances = read_json(o.out_dir / "feature_importances_tflops.json");
  EXPECT_TRUE(importances.contains("tile_m")) << importances.dump();
  auto spec = FeatureSpec::load(o.out_dir);
  EXPECT_EQ(spec.schema, "kselect");
  EXPECT_EQ(spec.dtype, "fp32");
  EXPECT_EQ(spec.log_targets, std::vector<std::string>{"tflops"});
  EXPECT_EQ(spec.scale("tflops"), 1e3);
  EXPECT_NEAR(spec.decode("tflops", spec.encode("tflops", 0.25)), 0.25, 1e-12);
}

TEST(Train, FinalTreesOverridesTheCrossValidatedRoundCount) {
  TrainOptions o = quick_options("train_final_trees");
  o.final_trees = 7;
  EXPECT_EQ(train(synthetic_measurements(), o).targets[0].trees, 7);
  o.folds = 0, o.final_trees = 0;  // no cross-validation: `trees` rounds
  EXPECT_EQ(train(synthetic_measurements(), o).targets[0].trees, o.boosting.trees);
  o.final_trees = -1;
  EXPECT_NE(error_of(synthetic_measurements(), o).find("--final-trees"), std::string::npos);
}

// --colsample left out: each op's measured default reaches XGBoost's params; given: as given.
TEST(Train, ColsampleDefaultsPerOp) {
  EXPECT_EQ(default_colsample("gemm"), 0.5);
  EXPECT_EQ(default_colsample("generic"), 0.8);
  TrainOptions o = quick_options("train_colsample");
  o.folds = 0;
  ASSERT_LT(o.boosting.colsample, 0) << "the fixture must leave the default";
  train(synthetic_measurements(), o);
  EXPECT_EQ(FeatureSpec::load(o.out_dir).params["colsample_bytree"], 0.5);
  o.boosting.colsample = 0.7;
  train(synthetic_measurements(), o);
  EXPECT_EQ(FeatureSpec::load(o.out_dir).params["colsample_bytree"], 0.7);
}

// The rule every objective's final model follows (train_classify per context).
TEST(Train, FinalRoundsScaleTheFoldsMeanBestRounds) {
  TrainOptions o;
  o.folds = 3, o.boosting.trees = 100;
  EXPECT_EQ(final_rounds(o, std::vector<int>{20, 40}), 45);   // 30 x 3/2
  EXPECT_EQ(final_rounds(o, std::vector<int>{90, 90}), 100);  // at most --trees
  EXPECT_EQ(final_rounds(o, std::vector<int>{0}), 1);
  EXPECT_EQ(final_rounds(o, {}), 100);  // no fold rounds: --trees
  o.final_trees = 7;
  EXPECT_EQ(final_rounds(o, std::vector<int>{20, 40}), 7);
  EXPECT_EQ(final_rounds(o, {}), 7);
}

TEST(Train, UsableTargetIsFiniteAndPositive) {
  data::Measurement m;
  m.tflops = 2, m.median_ms = 0, m.bandwidth_gb_s = std::nan("");
  EXPECT_TRUE(has_usable_target(m, "tflops"));
  EXPECT_FALSE(has_usable_target(m, "latency"));
  EXPECT_FALSE(has_usable_target(m, "bandwidth"));
  m.median_ms = -1;
  EXPECT_FALSE(has_usable_target(m, "latency"));
}

TEST(Train, OofCsvQuotesNamesAndWritesNineDigits) {
  const auto dir = kselect::testing::scratch_dir("train_oof_csv");
  std::filesystem::create_directories(dir);
  data::Measurement m;
  m.problem = "m=1,n=2", m.kernel = "k", m.median_ms = 0.1234567891;
  OofCsv csv("latency");
  csv.add(m, 2, 1.0 / 3);
  csv.write(dir);
  EXPECT_EQ(read_file(dir / "oof_latency.csv"),
            "problem,kernel,fold,predicted,measured\n\"m=1,n=2\",k,2,0.333333333,0.123456789\n");
  std::filesystem::remove_all(dir);
}

TEST(Train, NearBestWeightsChangeTheFitAndAreRecorded) {
  TrainOptions o = quick_options("train_weights");
  o.folds = 0, o.near_best_weight = 0;  // every row weighs 1
  train(synthetic_measurements(), o);
  std::string plain_model = read_file(o.out_dir / "model_tflops.json");
  o.near_best_weight = 4;
  train(synthetic_measurements(), o);
  EXPECT_NE(read_file(o.out_dir / "model_tflops.json"), plain_model);
  EXPECT_EQ(FeatureSpec::load(o.out_dir).params["near_best_weight"], 4.0);
  o.near_best_weight = -1;
  EXPECT_NE(error_of(synthetic_measurements(), o).find("near-best-weight"), std::string::npos);
}

TEST(Train, MinEfficiencyTrainsOnNearBestRowsAndStillScoresEveryRow) {
  auto data = synthetic_measurements();
  std::map<std::string, double> best;  // each problem's best TFLOPS
  for (const auto& m : data) best[m.problem] = std::max(best[m.problem], m.tflops);
  std::size_t near = 0;
  for (const auto& m : data) near += m.tflops >= 0.8 * best[m.problem];
  ASSERT_GT(near, best.size());
  ASSERT_LT(near, data.size());

  TrainOptions o = quick_options("train_min_efficiency");
  o.objective = Objective::kEfficiency, o.folds = 3;
  train(data, o);
  const std::string every_row_model = read_file(o.out_dir / "model_tflops.json");
  o.min_efficiency = 0.8;
  TrainResult r = train(data, o);
  std::size_t trained = 0, scored = 0;
  for (const FoldResult& f : r.targets[0].folds) trained += f.train_rows, scored += f.valid_rows;
  EXPECT_EQ(trained, near * std::size_t(o.folds - 1));  // a near-best row trains in 2 of 3 folds
  EXPECT_EQ(scored, data.size());
  EXPECT_EQ(eval::read_oof_csv((o.out_dir / "oof_tflops.csv").string()).size(), data.size());
  EXPECT_NE(read_file(o.out_dir / "model_tflops.json"), every_row_model);
  EXPECT_EQ(FeatureSpec::load(o.out_dir).params["min_efficiency"], 0.8);

  for (double bad : {1.0, -0.1, std::nan("")}) {
    o.min_efficiency = bad;
    EXPECT_NE(error_of(data, o).find("min-efficiency"), std::string::npos) << bad;
  }
}

TEST(Train, OutOfFoldFileHasOneRowPerValidMeasurementAndNeverSplitsAShape) {
  auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_oof");
  o.folds = 4;
  train(data, o);
  auto rows = eval::read_oof_csv((o.out_dir / "oof_tflops.csv").string());
  ASSERT_EQ(rows.size(), data.size());
  auto engine = find_operation("gemm").make_feature_engine(o.hardware);
  std::map<std::string, int> fold_of_shape;
  std::map<int, int> per_fold;
  for (const auto& row : rows) {
    auto [it, fresh] = fold_of_shape.emplace(engine->group_key(row.problem), row.fold);
    EXPECT_EQ(it->second, row.fold) << row.problem;
    EXPECT_TRUE(std::isfinite(row.predicted));
    ++per_fold[row.fold];
  }
  EXPECT_EQ(per_fold.size(), 4u);
}

TEST(Train, AllTargetsAndGzipModels) {
  auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_all");
  o.targets = target_names();
  o.compress = true;
  o.folds = 3;
  o.boosting.trees = 30;
  TrainResult r = train(data, o);
  ASSERT_EQ(r.targets.size(), 3u);
  for (const auto& t : target_names()) {
    EXPECT_TRUE(std::filesystem::exists(o.out_dir / ("model_" + t + ".json.gz"))) << t;
    EXPECT_EQ(model_file(o.out_dir, t), o.out_dir / ("model_" + t + ".json.gz"));
  }
  EXPECT_GT(r.targets[1].overall.mean_efficiency, 0.85) << "latency model picks fast kernels";
}

// Quick options for an objective other than regression: 3 folds, `trees` rounds.
TrainOptions objective_options(const std::string& name, Objective objective, int trees) {
  TrainOptions o = quick_options(name);
  o.objective = objective;
  o.folds = 3;
  o.boosting.trees = trees;
  return o;
}

TEST(Train, RankingObjectiveTrainsOnProblemGroups) {
  auto data = synthetic_measurements();
  TrainOptions o = objective_options("train_rank", Objective::kRanking, 30);
  TrainResult r = train(data, o);
  EXPECT_GT(r.targets[0].overall.mean_efficiency, 0.85);
  EXPECT_TRUE(std::isnan(r.targets[0].overall.r2));
  EXPECT_EQ(FeatureSpec::load(o.out_dir).objective, Objective::kRanking);
}

TEST(Train, EfficiencyObjectiveLearnsEachKernelsFractionOfItsProblemsBest) {
  auto data = synthetic_measurements();
  TrainOptions o = objective_options("train_efficiency", Objective::kEfficiency, 40);
  TrainResult r = train(data, o);
  const FoldResult& overall = r.targets[0].overall;
  EXPECT_GT(overall.mean_efficiency, 0.85);
  EXPECT_GT(overall.r2, 0.5) << "R2 of the predicted efficiency within the problem";
  auto spec = FeatureSpec::load(o.out_dir);
  EXPECT_EQ(spec.objective, Objective::kEfficiency);
  EXPECT_TRUE(spec.log_targets.empty());
  EXPECT_DOUBLE_EQ(spec.decode("tflops", std::log(0.5)), 0.5);
  // Out-of-fold predictions are efficiencies: positive, about 1 at most.
  for (const auto& row : eval::read_oof_csv((o.out_dir / "oof_tflops.csv").string())) {
    EXPECT_GT(row.predicted, 0) << row.problem << " " << row.kernel;
    EXPECT_LT(row.predicted, 1.5) << row.problem << " " << row.kernel;
  }
  // Efficiency is the same whatever the target, so more than one is refused.
  o.targets = {"tflops", "latency"};
  EXPECT_NE(error_of(data, o).find("give one target"), std::string::npos);
  // A blend is made of trained models, never trained itself.
  o.targets = {"tflops"};
  o.objective = Objective::kBlend;
  EXPECT_NE(error_of(data, o).find("kselect blend"), std::string::npos);
}

TEST(Train, WarmStartAddsTreesAndRefusesAnotherFeatureList) {
  auto data = synthetic_measurements();
  TrainOptions first = quick_options("warm_base");
  first.schema = "ck55";
  first.folds = 3;
  first.boosting.trees = 20;
  train(data, first);

  TrainOptions more = quick_options("warm_more");
  more.warm_start = first.out_dir;
  more.add_trees = 7;
  TrainResult r = train(synthetic_measurements(gemm::DType::kFp32, 99), more);
  EXPECT_EQ(r.targets[0].previous_trees, 20);
  EXPECT_EQ(r.targets[0].trees, 27);
  auto manifest = read_json(more.out_dir / "train_manifest.json");
  EXPECT_EQ(manifest["warm_start_from"], first.out_dir.string());
  EXPECT_EQ(manifest["trees"]["tflops"]["new"], 7);

  TrainOptions other = more;
  other.out_dir = kselect::testing::scratch_dir("warm_other");
  other.schema = "kselect";
  std::string why = error_of(data, other);
  EXPECT_NE(why.find("same feature list"), std::string::npos) << why;
  EXPECT_NE(why.find("tile_util_m"), std::string::npos) << why;

  TrainOptions fastest = more;  // another time statistic: another target
  fastest.out_dir = kselect::testing::scratch_dir("warm_min");
  fastest.time_statistic = data::TimeStatistic::kMin;
  why = error_of(data, fastest);
  EXPECT_NE(why.find("--time-statistic median"), std::string::npos) << why;
}

TEST(Train, TflopsRegressionStartsFromTheEnginesEstimate) {
  auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_prior");
  o.folds = 2;
  o.targets = {"tflops", "latency"};
  train(data, o);
  auto spec = FeatureSpec::load(o.out_dir);
  const Prior* prior = spec.prior("tflops");
  ASSERT_NE(prior, nullptr);
  EXPECT_EQ(prior->feature, "est_flops_per_cycle");
  // The median of GFLOPS over the estimate's FLOPs per cycle: a clock in GHz, give or take the
  // estimate's optimism.
  EXPECT_GT(prior->scale, 0.01);
  EXPECT_LT(prior->scale, 100);
  EXPECT_EQ(spec.prior("latency"), nullptr) << "the estimate is a throughput";
  EXPECT_EQ(read_json(o.out_dir / "feature_spec.json")["format_version"], 3);
  EXPECT_EQ(spec.params["prior"], true);

  // Without one: --prior off, a schema without the estimate, other objectives.
  TrainOptions off = quick_options("train_prior_off");
  off.folds = 0;
  off.prior = false;
  TrainOptions ck55 = quick_options("train_prior_ck55");
  ck55.folds = 0;
  ck55.schema = "ck55";
  TrainOptions efficiency = quick_options("train_prior_efficiency");
  efficiency.folds = 0;
  efficiency.objective = Objective::kEfficiency;
  for (const TrainOptions* none : {&off, &ck55, &efficiency}) {
    train(data, *none);
    EXPECT_TRUE(FeatureSpec::load(none->out_dir).priors.empty()) << none->out_dir;
    EXPECT_EQ(read_json(none->out_dir / "feature_spec.json")["format_version"], 1);
  }
}

TEST(Train, ThePriorKeepsTheSyntheticFitAsGood) {
  // The synthetic TFLOPS follow a roofline of tile efficiencies that the cycle estimate models
  // in part: starting from it must not make the fit worse than the trees alone.
  auto data = synthetic_measurements();
  TrainOptions with = quick_options("train_prior_fit");
  TrainOptions without = quick_options("train_prior_fit_off");
  without.prior = false;
  const double mean_with = train(data, with).targets[0].overall.mean_efficiency;
  const double mean_without = train(data, without).targets[0].overall.mean_efficiency;
  EXPECT_GE(mean_with, mean_without - 0.01) << mean_with << " vs " << mean_without;
}

TEST(Train, WarmStartKeepsTheContinuedModelsPrior) {
  auto data = synthetic_measurements();
  TrainOptions first = quick_options("warm_prior_base");
  first.folds = 0;
  first.boosting.trees = 15;
  train(data, first);
  const double scale = FeatureSpec::load(first.out_dir).prior("tflops")->scale;

  TrainOptions more = quick_options("warm_prior_more");
  more.warm_start = first.out_dir;
  more.add_trees = 5;
  train(synthetic_measurements(gemm::DType::kFp32, 99), more);  // other data: another median
  const Prior* kept = FeatureSpec::load(more.out_dir).prior("tflops");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->scale, scale) << "the first trees were fitted around this scale";

  TrainOptions plain = quick_options("warm_prior_plain");  // a model without one stays so
  plain.folds = 0;
  plain.boosting.trees = 15;
  plain.prior = false;
  train(data, plain);
  TrainOptions plain_more = quick_options("warm_prior_plain_more");
  plain_more.warm_start = plain.out_dir;
  plain_more.add_trees = 5;
  train(data, plain_more);
  EXPECT_TRUE(FeatureSpec::load(plain_more.out_dir).priors.empty());
}

// The kernels within `tolerance` of the best TFLOPS of at least one problem accepted by `take`.
template <typename Take>
std::set<std::string> near_best_kernels(const std::vector<data::Measurement>& data,
                                        double tolerance, Take take) {
  std::map<std::string, double> best;
  for (const auto& m : data)
    if (take(m.problem)) best[m.problem] = std::max(best[m.problem], m.tflops);
  std::set<std::string> kept;
  for (const auto& m : data)
    if (take(m.problem) && m.tflops >= (1 - tolerance) * best[m.problem]) kept.insert(m.kernel);
  return kept;
}

TEST(Train, ShortlistHoldsTheKernelsNearSomeTrainingProblemsBest) {
  const auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_shortlist");
  o.folds = 4;
  o.shortlist = 0.005;  // the synthetic noise is 3%: most kernels win nowhere
  train(data, o);
  const FeatureSpec spec = FeatureSpec::load(o.out_dir);
  const auto every = near_best_kernels(data, 0.005, [](const std::string&) { return true; });
  EXPECT_EQ(std::set<std::string>(spec.shortlist.begin(), spec.shortlist.end()), every);
  EXPECT_TRUE(std::is_sorted(spec.shortlist.begin(), spec.shortlist.end()));
  EXPECT_EQ(spec.shortlist_tolerance, 0.005);
  EXPECT_LT(every.size(), kselect::testing::synthetic_configs().size())
      << "some kernel never comes near";
  EXPECT_EQ(spec.params["shortlist"], 0.005);

  // Out of fold, each row says whether its fold's training problems shortlisted its kernel.
  const auto rows = eval::read_oof_csv((o.out_dir / "oof_tflops.csv").string());
  std::map<std::string, int> fold_of;
  for (const auto& r : rows) fold_of[r.problem] = r.fold;
  long outside = 0;
  for (int f = 0; f < 4; ++f) {
    const auto fold_list = near_best_kernels(
        data, 0.005, [&](const std::string& problem) { return fold_of.at(problem) != f; });
    for (const auto& r : rows)
      if (r.fold == f) {
        EXPECT_EQ(r.shortlisted, fold_list.count(r.kernel) > 0) << r.kernel;
        outside += !r.shortlisted;
      }
  }
  EXPECT_GT(outside, 0);

  o.shortlist = -1;  // off: every candidate, and no column
  train(data, o);
  EXPECT_TRUE(FeatureSpec::load(o.out_dir).shortlist.empty());
  EXPECT_EQ(
      read_file(o.out_dir / "oof_tflops.csv").rfind("problem,kernel,fold,predicted,measured\n", 0),
      0u);
  o.shortlist = 1;
  EXPECT_NE(error_of(data, o).find("shortlist"), std::string::npos);
}

TEST(Train, WarmStartKeepsTheContinuedModelsShortlist) {
  TrainOptions first = quick_options("warm_shortlist_base");
  first.folds = 0;
  first.boosting.trees = 15;
  first.shortlist = 0;
  train(synthetic_measurements(), first);
  const auto before = FeatureSpec::load(first.out_dir).shortlist;
  TrainOptions more = quick_options("warm_shortlist_more");
  more.warm_start = first.out_dir;
  more.add_trees = 5;
  more.shortlist = 0;
  const auto other = synthetic_measurements(gemm::DType::kFp32, 99);
  train(other, more);
  std::set<std::string> expected(before.begin(), before.end());
  const auto added = near_best_kernels(other, 0, [](const std::string&) { return true; });
  expected.insert(added.begin(), added.end());
  const auto after = FeatureSpec::load(more.out_dir).shortlist;
  EXPECT_EQ(std::set<std::string>(after.begin(), after.end()), expected);

  first.shortlist = -1;  // a model without one keeps ranking every candidate
  train(synthetic_measurements(), first);
  train(other, more);
  EXPECT_TRUE(FeatureSpec::load(more.out_dir).shortlist.empty());
}

TEST(Train, WarmStartRefusesAModelTrainedOnOlderFormulas) {
  auto data = synthetic_measurements();
  TrainOptions first = quick_options("warm_revision_base");  // kselect schema: the estimate
  first.folds = 0;
  first.boosting.trees = 5;
  train(data, first);
  FeatureSpec spec = FeatureSpec::load(first.out_dir);
  ASSERT_EQ(spec.feature_revisions.at("log2_est_cycles"), 2);
  spec.feature_revisions.clear();  // as written before the cycle estimate changed
  spec.save(first.out_dir);

  TrainOptions more = quick_options("warm_revision_more");
  more.warm_start = first.out_dir;
  more.add_trees = 3;
  std::string why = error_of(data, more);
  EXPECT_NE(why.find("older formulas of log2_est_cycles"), std::string::npos) << why;
}

TEST(Train, BadDataIsAClearInputError) {
  TrainOptions o = quick_options("train_bad");
  EXPECT_NE(error_of({}, o).find("no measurements"), std::string::npos);

  auto few = synthetic_measurements();
  few.resize(18 * 3);  // three shapes
  EXPECT_NE(error_of(few, o).find("fewer than 5 folds"), std::string::npos);

  auto no_latency = synthetic_measurements();
  for (auto& m : no_latency) m.median_ms = 0;
  o.targets = {"latency"};
  EXPECT_NE(error_of(no_latency, o).find("no valid rows"), std::string::npos);

  o.targets = {"tflops"};
  o.dtype = "bf16";
  std::string why = error_of(synthetic_measurements(), o);
  EXPECT_NE(why.find("no measurements with dtype 'bf16'"), std::string::npos) << why;
  EXPECT_NE(why.find("fp32"), std::string::npos) << why;

  auto invalid = synthetic_measurements();
  for (auto& m : invalid) m.valid = false;
  o.dtype = "";
  EXPECT_NE(error_of(invalid, o).find("no valid rows"), std::string::npos);
}

}  // namespace
}  // namespace kselect::model
