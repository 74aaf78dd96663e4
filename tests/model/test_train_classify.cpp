// model::train with the classify objective: cross-validated per-context classifiers, written to
// a model directory that select::Ranker and kselect eval read.
#include <gtest/gtest.h>

#include <fstream>

#include "classify_fixture.h"
#include "core/error.h"
#include "eval/run_eval.h"
#include "model/feature_spec.h"
#include "model/train.h"
#include "select/candidates.h"
#include "select/ranker.h"
#include "synthetic.h"
#include "train_fixture.h"

namespace kselect {
namespace {

model::TrainOptions classify_options(const std::string& name) {
  auto o = testing::quick_options(name);
  o.op = "generic";
  o.objective = model::Objective::kClassify;
  o.kernel_configs = testing::generic_configs();
  o.boosting.trees = 40;
  o.boosting.eta = 0.3;
  o.boosting.min_child_weight = 0.2;
  o.folds = 3;
  return o;
}

std::vector<data::Measurement> training_rows() {
  auto rows = testing::generic_measurements(120, 11);
  auto single = testing::one_winner_context(10, 12);
  rows.insert(rows.end(), single.begin(), single.end());
  return rows;
}

// One training shared by the tests that only read its results (training is the slow part).
struct TrainClassify : ::testing::Test {
  static void SetUpTestSuite() {
    options = classify_options("train_classify");
    db = (options.out_dir.parent_path() /
          ("train_classify_db_" + std::to_string(getpid()) + ".sqlite"))
             .string();
    std::filesystem::remove(db);
    auto rows = training_rows();
    testing::write_generic_store(db, rows);
    result = model::train(rows, options);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(options.out_dir);
    std::filesystem::remove(db);
  }
  static inline model::TrainOptions options;
  static inline std::string db;
  static inline model::TrainResult result;
};

TEST_F(TrainClassify, CrossValidatesOnProblemsAndPicksWellOutOfFold) {
  ASSERT_EQ(result.targets.size(), 1u);
  const auto& t = result.targets[0];
  EXPECT_EQ(t.target, "latency");
  EXPECT_EQ(t.rows, 130u * 8);  // every valid row is scored out of fold
  ASSERT_EQ(t.folds.size(), 3u);
  EXPECT_GT(t.overall.top1, 0.85);
  EXPECT_GT(t.overall.mean_efficiency, 0.95);
  EXPECT_TRUE(std::isnan(t.overall.r2));
  for (const auto& f : t.folds) {
    EXPECT_GT(f.best_trees, 0);
    EXPECT_LE(f.best_trees, options.boosting.trees);
  }
  std::ifstream in(options.out_dir / "cv_metrics_latency.json");
  auto cv = nlohmann::json::parse(in);
  EXPECT_EQ(cv["objective"], "classify");
  EXPECT_TRUE(cv["overall"]["r2"].is_null());
  EXPECT_TRUE(cv["overall"]["rmse"].is_null());
  EXPECT_GT(cv["overall"]["top1"].get<double>(), 0.85);
}

TEST_F(TrainClassify, WritesTheClassifierIntoTheSpec) {
  auto spec = model::FeatureSpec::load(options.out_dir);
  EXPECT_EQ(spec.objective, model::Objective::kClassify);
  EXPECT_EQ(spec.params["objective"], "multi:softprob");
  for (const auto& f : spec.features) EXPECT_TRUE(f.rfind("p_", 0) == 0 || f.rfind("d_", 0) == 0);
  const auto& contexts = spec.classifier["contexts"];
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0]["context"], "dir=W,dtype=fp32");
  EXPECT_EQ(contexts[0]["classes"], nlohmann::json({"kern_t128_b"}));
  EXPECT_TRUE(contexts[0]["model"].is_null());
  EXPECT_EQ(contexts[1]["context"], "dtype=fp32");
  EXPECT_EQ(contexts[1]["model"], "model_latency.1.json");
  EXPECT_TRUE(std::filesystem::exists(options.out_dir / "model_latency.1.json"));
  EXPECT_TRUE(std::filesystem::exists(options.out_dir / "feature_importances_latency.json"));
  EXPECT_FALSE(std::filesystem::exists(options.out_dir / "model_latency.json"));
}

TEST_F(TrainClassify, RankerPicksTheRulesWinnerOnUnseenProblems) {
  auto ranker = select::Ranker::load(options.out_dir, testing::fixed_hardware());
  int agree = 0, problems = 0;
  for (const auto& [problem, winner] :
       testing::measured_winners(testing::generic_measurements(15, 99))) {
    auto candidates = ranker.engine().candidates(problem);
    auto ranked = ranker.rank(problem, candidates);
    ASSERT_EQ(ranked.size(), 8u);
    double sum = 0;
    for (const auto& s : ranked) {
      EXPECT_EQ(s.score, s.probability);
      sum += s.probability;
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
    agree += ranked.front().kernel == testing::rule_winner(problem);
    ++problems;
  }
  EXPECT_GE(agree, problems - 1) << agree << " of " << problems;
  EXPECT_GT(ranker.num_trees(), 0u);
}

TEST_F(TrainClassify, KernelsThatAreNotClassesRankLastInInputOrder) {
  auto ranker = select::Ranker::load(options.out_dir, testing::fixed_hardware());
  const std::string problem = "m=64,n=128,k=128,dtype=fp32,device=dev0,dir=W";
  std::vector<std::string> kernels = {"kern_t16_a", "kern_t128_b", "kern_t64_a"};
  auto ranked = ranker.rank(problem, kernels);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].kernel, "kern_t128_b");
  EXPECT_EQ(ranked[0].probability, 1.0);
  EXPECT_EQ(ranked[1].kernel, "kern_t16_a");
  EXPECT_EQ(ranked[2].kernel, "kern_t64_a");
  EXPECT_TRUE(std::isnan(ranked[1].probability));
  EXPECT_EQ(ranked[1].score, model::KernelClassifier::kNotAClass);
  // score() on a prepared block gives the same scores in input order.
  std::vector<double> scores;
  ranker.score(problem, *ranker.prepare(kernels), scores);
  EXPECT_EQ(scores, (std::vector<double>{-1, 1, -1}));
  // No cascade: nothing to cut short.
  EXPECT_THROW(ranker.set_cascade(select::Cascade{2, 3}), InputError);
  EXPECT_NO_THROW(ranker.set_cascade(select::Cascade{}));
}

TEST_F(TrainClassify, EvalReadsTheOutOfFoldScores) {
  eval::EvalJob job;
  job.model_dir = options.out_dir.string();
  job.db = db;
  job.options.target = "";
  auto out = eval::run_eval(job);
  EXPECT_EQ(out.protocol, "out-of-fold");
  EXPECT_EQ(out.report.problems, 130);
  EXPECT_GT(out.report.top1, 0.85);
  EXPECT_GT(out.report.efficiency.mean, 0.95);
}

TEST(TrainClassifyRefusals, GemmOpWarmStartAndSeveralTargets) {
  auto gemm = testing::quick_options("classify_gemm");
  gemm.objective = model::Objective::kClassify;
  try {
    model::train(testing::synthetic_measurements(), gemm);
    FAIL() << "classify on the gemm op must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--op generic"), std::string::npos) << e.what();
  }
  auto warm = classify_options("classify_warm");
  warm.warm_start = warm.out_dir;
  warm.add_trees = 5;
  EXPECT_THROW(model::train(training_rows(), warm), InputError);
  auto targets = classify_options("classify_targets");
  targets.targets = {"latency", "tflops"};
  EXPECT_THROW(model::train(training_rows(), targets), InputError);
}

TEST(TrainClassifyWithoutFolds, TrainsTheFinalModelOnly) {
  auto o = classify_options("classify_no_folds");
  o.folds = 0;
  o.boosting.trees = 10;
  auto r = model::train(testing::generic_measurements(30, 5), o);
  EXPECT_TRUE(r.targets[0].folds.empty());
  EXPECT_FALSE(std::filesystem::exists(o.out_dir / "oof_latency.csv"));
  auto spec = model::FeatureSpec::load(o.out_dir);
  EXPECT_EQ(spec.classifier["contexts"][0]["rounds"], 10);
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace kselect
