// model::KernelClassifier: per-context multi-class models of the fastest kernel, fitted through
// XGBoost and scored through model::Forest.
#include "model/classify.h"
#include "model/xgboost.h"
#include "ops/operation.h"

#include <gtest/gtest.h>

#include <fstream>
#include <numeric>

#include "classify_fixture.h"
#include "core/error.h"
#include "features/engine.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

std::vector<ClassifyExample> examples(const std::vector<data::Measurement>& rows) {
  std::vector<ClassifyExample> out;
  for (const auto& [problem, kernel] : testing::measured_winners(rows))
    out.push_back({problem, kernel});
  return out;
}

std::unique_ptr<features::FeatureEngine> fitted_engine(const std::vector<data::Measurement>& rows) {
  return find_operation("generic").make_feature_engine(
      testing::fixed_hardware(), find_operation("generic").fit_feature_state(
                                     testing::pointers(rows), testing::generic_configs()));
}

ClassifierParams quick_params() {
  ClassifierParams p;
  p.boosting.trees = 30;
  p.boosting.threads = 1;
  p.boosting.eta = 0.3;
  p.boosting.max_depth = 4;
  p.boosting.max_leaves = 0;
  p.boosting.min_child_weight = 0.2;
  p.boosting.subsample = 1;
  p.boosting.colsample = 1;
  return p;
}

std::vector<data::Measurement> concat(std::vector<data::Measurement> a,
                                      const std::vector<data::Measurement>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Fitted {
  std::vector<data::Measurement> rows;
  std::unique_ptr<features::FeatureEngine> engine;
  std::unique_ptr<ProblemFeatures> features;
  KernelClassifier classifier;
};

// 120 rule problems (context dtype=fp32) and 10 of a one-winner context (dir=W).
Fitted fit_two_contexts() {
  Fitted f;
  f.rows = concat(testing::generic_measurements(120, 11), testing::one_winner_context(10, 12));
  f.engine = fitted_engine(f.rows);
  f.features = std::make_unique<ProblemFeatures>(*f.engine, ProblemFeatures::names_of(*f.engine));
  f.classifier = KernelClassifier::fit(examples(f.rows), *f.features, quick_params());
  return f;
}

const std::vector<std::string> kAllKernels = {"kern_t16_a",  "kern_t16_b", "kern_t32_a",
                                              "kern_t32_b",  "kern_t64_a", "kern_t64_b",
                                              "kern_t128_a", "kern_t128_b"};

TEST(KernelClassifier, ScoresAreClassProbabilitiesAndNonClassesScoreBelowThem) {
  Fitted f = fit_two_contexts();
  ASSERT_EQ(f.classifier.contexts().size(), 2u);
  const auto* rule = f.classifier.find("dtype=fp32");
  ASSERT_TRUE(rule && rule->forest);
  EXPECT_EQ(rule->rounds, 30);
  EXPECT_EQ(rule->forest->num_outputs(), rule->classes.size());

  // Unseen problems: the pick is the rule's winner, class probabilities sum to 1.
  std::vector<std::string> candidates = kAllKernels;
  candidates.push_back("kern_unknown");
  int agree = 0, problems = 0;
  std::vector<double> scores;
  for (const auto& [problem, winner] :
       testing::measured_winners(testing::generic_measurements(15, 99))) {
    f.classifier.score(*f.features, problem, candidates, scores);
    ASSERT_EQ(scores.size(), candidates.size());
    EXPECT_EQ(scores.back(), KernelClassifier::kNotAClass);
    double sum = 0;
    for (std::size_t i = 0; i + 1 < scores.size(); ++i) sum += std::max(scores[i], 0.0);
    EXPECT_NEAR(sum, 1.0, 1e-9);
    auto best = std::max_element(scores.begin(), scores.end()) - scores.begin();
    agree += candidates[std::size_t(best)] == testing::rule_winner(problem);
    ++problems;
  }
  EXPECT_GE(agree, problems - 1) << agree << " of " << problems;
}

TEST(KernelClassifier, AOneWinnerContextNeedsNoModelAndAnUnseenContextHasNoClass) {
  Fitted f = fit_two_contexts();
  const auto* single = f.classifier.find("dir=W,dtype=fp32");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->classes, std::vector<std::string>{"kern_t128_b"});
  EXPECT_FALSE(single->forest);
  std::vector<double> scores;
  f.classifier.score(*f.features, "m=64,n=128,k=128,dtype=fp32,device=dev0,dir=W", kAllKernels,
                     scores);
  for (std::size_t i = 0; i < kAllKernels.size(); ++i)
    EXPECT_EQ(scores[i], kAllKernels[i] == "kern_t128_b" ? 1.0 : KernelClassifier::kNotAClass);
  f.classifier.score(*f.features, "m=64,n=128,k=128,dtype=fp32,device=dev0,dir=B", kAllKernels,
                     scores);
  for (double s : scores) EXPECT_EQ(s, KernelClassifier::kNotAClass);
}

TEST(KernelClassifier, SavedModelsLoadToTheSameScores) {
  Fitted f = fit_two_contexts();
  auto dir = testing::scratch_dir("classifier_save");
  std::filesystem::create_directories(dir);
  // Model files a previous training left (a regression model, a classifier with more contexts)
  // are removed; other targets' files are not.
  for (const char* stale : {"model_latency.json", "model_latency.7.json.gz", "model_tflops.json"})
    std::ofstream(dir / stale) << "{}";
  nlohmann::json saved = f.classifier.save(dir, "latency", false);
  EXPECT_FALSE(std::filesystem::exists(dir / "model_latency.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "model_latency.7.json.gz"));
  EXPECT_TRUE(std::filesystem::exists(dir / "model_tflops.json"));
  ASSERT_EQ(saved["contexts"].size(), 2u);
  EXPECT_EQ(saved["contexts"][0]["context"], "dir=W,dtype=fp32");
  EXPECT_TRUE(saved["contexts"][0]["model"].is_null());
  EXPECT_EQ(saved["contexts"][1]["model"], "model_latency.1.json");
  EXPECT_TRUE(std::filesystem::exists(dir / "model_latency.1.json"));
  auto loaded = KernelClassifier::load(dir, saved, f.features->width(), "test spec");
  std::vector<double> a, b;
  for (const auto& m : testing::generic_measurements(5, 7)) {
    f.classifier.score(*f.features, m.problem, kAllKernels, a);
    loaded.score(*f.features, m.problem, kAllKernels, b);
    EXPECT_EQ(a, b);
  }
  // Unsorted classes, or a model missing for several classes, are refused.
  nlohmann::json bad = saved;
  bad["contexts"][1]["model"] = nullptr;
  EXPECT_THROW(KernelClassifier::load(dir, bad, f.features->width(), "spec"), StorageError);
  bad = saved;
  std::swap(bad["contexts"][1]["classes"][0], bad["contexts"][1]["classes"][1]);
  EXPECT_THROW(KernelClassifier::load(dir, bad, f.features->width(), "spec"), StorageError);
  std::filesystem::remove_all(dir);
}

TEST(KernelClassifier, EarlyStoppingKeepsTheBestPrefix) {
  auto rows = testing::generic_measurements(40, 11);
  auto engine = fitted_engine(rows);
  ProblemFeatures features(*engine, ProblemFeatures::names_of(*engine));
  ClassifierParams params = quick_params();
  params.boosting.trees = 200;
  params.early_stopping = 5;
  auto valid = examples(testing::generic_measurements(15, 99));
  auto c = KernelClassifier::fit(examples(rows), features, params, valid);
  const auto& ctx = c.contexts().front();
  EXPECT_LT(ctx.rounds, 200);  // 40 problems: the validation loss stops falling long before
  EXPECT_EQ(ctx.forest->num_trees(), std::size_t(ctx.rounds) * ctx.classes.size());
  EXPECT_EQ(ctx.booster->boosted_rounds(), ctx.rounds);
}

TEST(KernelClassifier, NeedsAnEngineWithProblemOnlyFeatures) {
  auto gemm = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  EXPECT_THROW(ProblemFeatures::names_of(*gemm), InputError);
  auto rows = testing::generic_measurements(5, 3);
  auto engine = fitted_engine(rows);
  auto names = ProblemFeatures::names_of(*engine);
  ASSERT_FALSE(names.empty());
  for (const auto& n : names) EXPECT_TRUE(n.rfind("p_", 0) == 0 || n.rfind("d_", 0) == 0) << n;
}

}  // namespace
}  // namespace kselect::model
