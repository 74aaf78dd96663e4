// Training, selection and evaluation through the generic op, on synthetic imported data with a
// known fastest kernel per problem (generic_synthetic.h).
#include <gtest/gtest.h>

#include <fstream>

#include "../../model/synthetic.h"
#include "../../model/train_fixture.h"
#include "core/error.h"
#include "eval/run_eval.h"
#include "generic_synthetic.h"
#include "model/feature_spec.h"
#include "model/train.h"
#include "select/candidates.h"
#include "select/ranker.h"

namespace kselect {
namespace {

model::TrainOptions generic_options(const std::string& name) {
  auto o = testing::quick_options(name);
  o.op = "generic";
  o.kernel_configs = testing::generic_configs();
  o.boosting.trees = 120;
  o.boosting.min_child_weight = 1;
  return o;
}

// A fresh store path in a scratch directory named `name`.
std::string scratch_store(const std::string& name, const std::string& file) {
  auto dir = testing::scratch_dir(name);
  std::filesystem::create_directories(dir);
  return (dir / file).string();
}

// Evaluation of the model trained with `o` on `db`, target from the model.
eval::EvalJob eval_job(const model::TrainOptions& o, const std::string& db) {
  eval::EvalJob job;
  job.model_dir = o.out_dir.string();
  job.db = db;
  job.options.target = "";
  return job;
}

// Mean of best_time / picked_time over the problems of `rows`, picking with `ranker`.
double held_out_efficiency(const select::Ranker& ranker,
                           const std::vector<data::Measurement>& rows) {
  std::map<std::string, std::map<std::string, double>> times;
  for (const auto& m : rows) times[m.problem][m.kernel] = m.median_ms;
  double sum = 0;
  for (const auto& [problem, by_kernel] : times) {
    auto candidates = ranker.engine().candidates(problem);
    EXPECT_EQ(candidates.size(), 8u);
    std::string pick = ranker.rank(problem, candidates).front().kernel;
    double best = 1e300;
    for (const auto& [k, t] : by_kernel) best = std::min(best, t);
    sum += best / by_kernel.at(pick);
  }
  return sum / double(times.size());
}

TEST(GenericLearning, TrainsOnTimesAndPicksTheFastestKernelOnHeldOutProblems) {
  auto train_rows = testing::generic_measurements(40, 11);
  auto o = generic_options("generic_train");
  auto r = model::train(train_rows, o);
  EXPECT_EQ(r.target_note, "latency (no row has TFLOPS > 0)");
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].target, "latency");
  EXPECT_EQ(r.unique_shapes, 40u);
  EXPECT_GT(r.targets[0].overall.mean_efficiency, 0.9) << "out-of-fold";

  auto spec = model::FeatureSpec::load(o.out_dir);
  EXPECT_EQ(spec.op, "generic");
  EXPECT_EQ(spec.schema, "generic");
  ASSERT_TRUE(spec.engine_state.is_object());
  EXPECT_EQ(spec.features, spec.engine_state["features"].get<std::vector<std::string>>());

  auto ranker = select::Ranker::load(o.out_dir, testing::fixed_hardware());
  double eff = held_out_efficiency(ranker, testing::generic_measurements(15, 99));
  EXPECT_GT(eff, 0.95);
}

TEST(GenericLearning, WarmStartNeedsTheSameFittedFeatureList) {
  auto rows = testing::generic_measurements(20, 12);
  auto o = generic_options("generic_warm_base");
  o.folds = 0;
  model::train(rows, o);
  auto more = generic_options("generic_warm_more");
  more.warm_start = o.out_dir;
  more.add_trees = 5;
  auto r = model::train(testing::generic_measurements(20, 13), more);
  EXPECT_EQ(r.targets[0].previous_trees, o.boosting.trees);
  // Data where variant is constant has no k_variant: refused.
  auto only_a = testing::generic_measurements(20, 14);
  std::erase_if(only_a, [](const data::Measurement& m) { return m.kernel.back() == 'b'; });
  auto refused = generic_options("generic_warm_refused");
  refused.warm_start = o.out_dir;
  refused.add_trees = 5;
  EXPECT_THROW(model::train(only_a, refused), InputError);
}

TEST(GenericLearning, GemmDataThroughTheGenericFeatures) {
  auto rows = testing::synthetic_measurements();
  auto o = testing::quick_options("generic_on_gemm");
  o.op = "generic";
  o.data_op = "gemm";
  o.folds = 0;
  for (const auto& m : rows)
    o.kernel_configs[m.kernel] = nlohmann::json(gemm::GemmConfig::parse_name(m.kernel));
  auto r = model::train(rows, o);
  EXPECT_EQ(r.targets[0].target, "tflops");  // the GEMM data has TFLOPS
  auto spec = model::FeatureSpec::load(o.out_dir);
  EXPECT_EQ(spec.op, "generic");
  EXPECT_EQ(spec.data_op, "gemm");
  auto has = [&](const std::string& f) {
    return std::find(spec.features.begin(), spec.features.end(), f) != spec.features.end();
  };
  EXPECT_TRUE(has("d_log_flops"));
  EXPECT_TRUE(has("k_tile_m"));
  EXPECT_TRUE(has("k_pipeline"));
  EXPECT_FALSE(has("k_id"));
  auto ranker = select::Ranker::load(o.out_dir, testing::fixed_hardware());
  auto candidates = ranker.engine().candidates(rows.front().problem);
  EXPECT_EQ(candidates.size(), testing::synthetic_configs().size());
  EXPECT_EQ(ranker.rank(rows.front().problem, candidates).size(), candidates.size());
}

TEST(GenericLearning, ModelWithoutEngineStateFailsToLoad) {
  auto o = generic_options("generic_no_state");
  o.folds = 0;
  o.boosting.trees = 5;
  model::train(testing::generic_measurements(10, 15), o);
  auto spec = model::FeatureSpec::load(o.out_dir);
  spec.engine_state = nullptr;
  spec.save(o.out_dir);
  EXPECT_THROW(select::Ranker::load(o.out_dir, testing::fixed_hardware()), InputError);
}

TEST(GenericLearning, EvalOutOfFoldAndHeldOutWithTheWinnerBaseline) {
  std::string train_db = scratch_store("generic_eval", "train.sqlite");
  std::string test_db = scratch_store("generic_eval_test", "test.sqlite");
  auto train_rows = testing::generic_measurements(40, 21);
  testing::write_generic_store(train_db, train_rows);
  testing::write_generic_store(test_db, testing::generic_measurements(15, 22));
  auto o = generic_options("generic_eval_model");
  model::train(train_rows, o);

  eval::EvalJob job = eval_job(o, train_db);
  auto oof = eval::run_eval(job);
  EXPECT_EQ(oof.protocol, "out-of-fold");
  EXPECT_EQ(oof.efficiency_basis, "time");
  EXPECT_EQ(oof.report.problems, 40);
  EXPECT_GT(oof.report.efficiency.mean, 0.9);
  ASSERT_TRUE(oof.report.baselines.count("default"));
  // The most frequent winner is one fixed kernel per context: clearly worse than the model.
  EXPECT_LT(oof.report.baselines.at("default").efficiency.mean, oof.report.efficiency.mean);

  job.db = test_db;
  job.protocol = eval::Protocol::kHeldOut;
  auto held = eval::run_eval(job);
  EXPECT_EQ(held.report.problems, 15);
  EXPECT_GT(held.report.efficiency.mean, 0.95);
  nlohmann::json j = eval::outcome_json(held);
  EXPECT_TRUE(j.contains("top1"));
  EXPECT_EQ(j["efficiency_basis"], "time");
}

// Out of fold, the most-frequent-winner baseline counts only the other folds' winners: with
// kernel X fastest on problems 1-2 and Y on 3-4 (one problem per fold), every problem's
// baseline is the other kernel. Counting the problem's own win would tie X and Y and pick X
// (the first) for problems 1 and 2.
TEST(GenericLearning, OutOfFoldWinnerBaselineIgnoresTheProblemsOwnFold) {
  std::vector<data::Measurement> rows;
  for (int p = 1; p <= 4; ++p)
    for (std::string kernel : {"X", "Y"}) {
      data::Measurement m;
      m.op = "generic";
      m.problem = "n=" + std::to_string(p) + ",device=d";
      m.kernel = kernel;
      m.valid = true;
      m.median_ms = (kernel == "X") == (p <= 2) ? 1.0 : 2.0;
      rows.push_back(m);
    }
  std::string db = scratch_store("generic_fold_baseline", "db.sqlite");
  testing::write_generic_store(db, rows);
  auto o = generic_options("generic_fold_baseline_model");
  o.folds = 4;
  o.boosting.trees = 5;
  o.kernel_configs = {{"X", {{"tile", 1}}}, {"Y", {{"tile", 2}}}};
  model::train(rows, o);
  auto out = eval::run_eval(eval_job(o, db));
  ASSERT_EQ(out.report.per_problem.size(), 4u);
  for (const auto& r : out.report.per_problem) {
    EXPECT_NE(r.default_kernel, r.best) << r.problem;
    EXPECT_FALSE(r.default_kernel.empty()) << r.problem;
  }
}

// Held out, kernels the model never saw (new names) are ranked from the database's parameters:
// without them their features would be missing and the picks arbitrary.
TEST(GenericLearning, HeldOutKernelsUnseenInTrainingUseTheDatabasesParameters) {
  auto train_rows = testing::generic_measurements(40, 41);
  auto o = generic_options("generic_renamed_model");
  o.folds = 0;
  model::train(train_rows, o);
  auto test_rows = testing::generic_measurements(15, 42);
  std::map<std::string, nlohmann::json> renamed;
  for (const auto& [name, config] : testing::generic_configs()) renamed["v2_" + name] = config;
  for (auto& m : test_rows) m.kernel = "v2_" + m.kernel;
  std::string db = scratch_store("generic_renamed", "test.sqlite");
  testing::write_generic_store(db, test_rows, "generic", renamed);
  auto job = eval_job(o, db);
  job.protocol = eval::Protocol::kHeldOut;
  auto held = eval::run_eval(job);
  EXPECT_EQ(held.report.problems, 15);
  EXPECT_GT(held.report.efficiency.mean, 0.95);
}

}  // namespace
}  // namespace kselect
