// run_eval end to end: a store with a learnable timing pattern, a quickly trained model, then
// the out-of-fold and held-out protocols.
#include "eval/run_eval.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "../data/temp_dir.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "core/key_values.h"
#include "data/store.h"
#include "model/blend.h"
#include "model/feature_spec.h"
#include "model/route.h"
#include "ops/gemm/config.h"
#include "ops/operation.h"

namespace kselect::eval {
namespace {

// Time grows with the padded work of the kernel's tiles, so tile fit decides the winner.
double synthetic_ms(const gemm::GemmProblem& p, const gemm::GemmConfig& c) {
  auto padded = [](std::int64_t dim, int tile) { return double((dim + tile - 1) / tile * tile); };
  return padded(p.m, c.tile_m) * padded(p.n, c.tile_n) * double(p.k) * 1e-9 *
         (1.0 + 0.05 * c.warp_tile_k);
}

class RunEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const Operation& op = find_operation("gemm");
    auto kernels = op.kernel_names("tests", KeyValues::parse("dtype=fp32,layout=rcr"));
    kernels.resize(std::min<std::size_t>(kernels.size(), 10));
    std::vector<data::Measurement> all;
    std::filesystem::remove(db());
    data::Store store(db());
    long run = store.begin_run("gemm", {{"cpu_model", "test"}}, {{"threads", 2}}, "k", 0);
    for (int m : {3, 16, 50, 64, 200, 256})
      for (int n : {64, 100, 256}) {
        gemm::GemmProblem p{.m = m, .n = n, .k = 128};
        std::vector<data::Measurement> rows;
        for (const auto& name : kernels) {
          data::Measurement r;
          r.op = "gemm", r.problem = p.to_string(), r.kernel = name, r.valid = true;
          r.median_ms = synthetic_ms(p, gemm::GemmConfig::parse_name(name));
          // Fastest repeats a kernel-dependent share below the median (--time-statistic min).
          r.min_ms = r.median_ms * (0.8 + 0.03 * double(rows.size() % 7));
          r.tflops = p.flops() / (r.median_ms * 1e-3) / 1e12;
          rows.push_back(r);
        }
        store.write_problem(run, "k", "gemm", p.to_string(), rows,
                            [&op](const std::string& k) { return op.kernel_fields(k); });
        all.insert(all.end(), rows.begin(), rows.end());
      }
    store.finish_run(run, 0, false, "finished");
    auto options = kselect::testing::quick_options("run_eval_" + std::to_string(getpid()));
    options.folds = 3;
    train_result() = model::train(all, options);
    rows() = all;
  }
  static std::vector<data::Measurement>& rows() {
    static std::vector<data::Measurement> r;
    return r;
  }
  static std::string db() {
    return (std::filesystem::temp_directory_path() /
            ("kselect_run_eval_" + std::to_string(getpid()) + ".sqlite"))
        .string();
  }
  static model::TrainResult& train_result() {
    static model::TrainResult r;
    return r;
  }
  EvalJob job(Protocol protocol) const {
    EvalJob j;
    j.model_dir = train_result().dir.string();
    j.db = db();
    j.protocol = protocol;
    return j;
  }
};

TEST_F(RunEval, OutOfFoldByDefaultWhenTheModelHasThem) {
  EvalOutcome out = run_eval(job(Protocol::kAuto));
  EXPECT_EQ(out.protocol, "out-of-fold");
  EXPECT_EQ(out.report.problems, 18);
  EXPECT_EQ(out.oof_mismatched, 0);
  EXPECT_EQ(out.report.options.cores, 2);
  // Training scores the same out-of-fold predictions: both must agree on mean efficiency.
  EXPECT_NEAR(out.report.efficiency.mean, train_result().targets[0].overall.mean_efficiency, 1e-6);
}

// A model trained on the fastest repeats records it; eval then reads the same times, so its
// out-of-fold rows match the database's, unless told to read medians.
TEST_F(RunEval, TheModelsTimeStatisticIsEvalsDefault) {
  auto options = kselect::testing::quick_options("run_eval_min_" + std::to_string(getpid()));
  options.folds = 3;
  options.time_statistic = data::TimeStatistic::kMin;
  model::TrainResult trained = model::train(rows(), options);
  EXPECT_EQ(model::FeatureSpec::load(trained.dir).time_statistic, "min");
  EvalJob j = job(Protocol::kAuto);
  j.model_dir = trained.dir.string();
  EvalOutcome out = run_eval(j);
  EXPECT_EQ(out.report.options.time_statistic, data::TimeStatistic::kMin);
  EXPECT_EQ(out.oof_mismatched, 0);
  EXPECT_NEAR(out.report.efficiency.mean, trained.targets[0].overall.mean_efficiency, 1e-6);
  j.time_statistic = "median";
  EXPECT_GT(run_eval(j).oof_mismatched, 0);
  j.time_statistic = "mean";
  EXPECT_THROW(run_eval(j), InputError);
  std::filesystem::remove_all(trained.dir);
}

TEST_F(RunEval, HeldOutRanksEveryValidKernelWithTheModel) {
  EvalOutcome out = run_eval(job(Protocol::kHeldOut));
  EXPECT_EQ(out.protocol, "held-out");
  EXPECT_EQ(out.report.problems, 18);
  EXPECT_EQ(out.report.missing_predictions, 0);
  EXPECT_EQ(out.report.fit.rows, 18 * 10);
  // The model saw these problems in training: its picks must be close to the oracle.
  EXPECT_GT(out.report.efficiency.mean, 0.9);
}

// A held-out database with no problem the model can be judged on (every row invalid) is an
// error naming the counts, not a report of zeros.
TEST_F(RunEval, AnEvaluationOverNoProblemIsAnError) {
  kselect::testing::TempDir dir;
  const std::string path = dir.file("invalid.sqlite");
  {
    data::Store store(path);
    long run = store.begin_run("gemm", {{"cpu_model", "test"}}, {{"threads", 2}}, "k", 0);
    std::vector<data::Measurement> invalid = rows();
    invalid.resize(10);
    for (auto& r : invalid) r.valid = false, r.reason = "does not fit";
    store.write_problem(run, "k", "gemm", invalid.front().problem, invalid,
                        [](const std::string& k) {
                          return nlohmann::json{{"name", k}};
                        });
    store.finish_run(run, 0, false, "finished");
  }
  EvalJob j = job(Protocol::kHeldOut);
  j.db = path;
  try {
    run_eval(j);
    FAIL() << "evaluated no problem without an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no problem could be evaluated"), std::string::npos)
        << e.what();
  }
}

// The same database as its own replicate: its winners score 100% there and the picks score
// what they score on the database itself. A replicate that does not exist is an error.
TEST_F(RunEval, ReplicateAddsTheSecondSweepBaselines) {
  EvalJob j = job(Protocol::kAuto);
  j.replicate_db = db();
  EvalOutcome out = run_eval(j);
  const Baseline& oracle = out.report.baselines.at("replicate_oracle");
  EXPECT_EQ(oracle.coverage, 18);
  EXPECT_DOUBLE_EQ(oracle.efficiency.mean, 1.0);
  const Baseline& picks = out.report.baselines.at("model_on_replicate");
  EXPECT_EQ(picks.coverage, 18);
  EXPECT_NEAR(picks.efficiency.mean, out.report.efficiency.mean, 1e-12);
  EXPECT_EQ(run_eval(job(Protocol::kAuto)).report.baselines.count("replicate_oracle"), 0u);
  j.replicate_db = "/nonexistent/replicate.sqlite";
  EXPECT_ANY_THROW(run_eval(j));
}

// A blend of models with out-of-fold files is scored out of fold from its members' files; a
// blend of a model with itself picks as the model does.
TEST_F(RunEval, ABlendIsScoredFromItsMembersOutOfFoldFiles) {
  const auto regression = train_result().dir;
  auto options = kselect::testing::quick_options("run_eval_near");
  options.folds = 3, options.objective = model::Objective::kEfficiency,
  options.min_efficiency = 0.8;
  model::train(rows(), options);
  const auto blend = kselect::testing::scratch_dir("run_eval_blend");
  model::write_blend(blend, {{regression, 1}, {options.out_dir, 1}});
  EvalJob j = job(Protocol::kAuto);
  j.model_dir = blend.string();
  EvalOutcome out = run_eval(j);
  EXPECT_EQ(out.protocol, "out-of-fold");
  EXPECT_EQ(out.report.problems, 18);
  EXPECT_NE(out.predictions.find(options.out_dir.filename().string() + "/oof_tflops.csv"),
            std::string::npos);
  EXPECT_GT(out.report.efficiency.mean, 0.8);

  const auto itself = kselect::testing::scratch_dir("run_eval_self_blend");
  model::write_blend(itself, {{regression, 1}, {regression, 3}});
  j.model_dir = itself.string();
  EvalOutcome same = run_eval(j);
  EvalOutcome alone = run_eval(job(Protocol::kAuto));
  EXPECT_DOUBLE_EQ(same.report.efficiency.mean, alone.report.efficiency.mean);
  EXPECT_DOUBLE_EQ(same.report.top1, alone.report.top1);

  j.oof_file = (regression / "oof_tflops.csv").string();  // one file cannot score a blend
  EXPECT_THROW(run_eval(j), InputError);
  j.oof_file.clear();
  options.folds = 0;  // a member without out-of-fold predictions: held out, unless required
  model::train(rows(), options);
  j.model_dir = blend.string();
  EXPECT_EQ(run_eval(j).protocol, "held-out");
  j.protocol = Protocol::kOutOfFold;
  EXPECT_THROW(run_eval(j), InputError);
}

// A route is scored out of fold from its members' files, each member for the problems its
// filter takes: members trained on n = 64, on n != 64 and on n = 100 alone.
TEST_F(RunEval, ARouteIsScoredFromItsMembersOutOfFoldFilesByTheirFilters) {
  auto member = [&](const std::string& name, const std::string& where, auto keep) {
    auto options = kselect::testing::quick_options("run_eval_route_" + name);
    options.folds = 3, options.where = where;
    std::vector<data::Measurement> subset;
    for (const auto& r : rows())
      if (keep(gemm::GemmProblem::parse(r.problem).n)) subset.push_back(r);
    model::train(subset, options);
    return options.out_dir;
  };
  const auto n64 = member("n64", "n=64", [](std::int64_t n) { return n == 64; });
  const auto rest = member("rest", "n!=64", [](std::int64_t n) { return n != 64; });
  const auto n100 = member("n100", "n=100", [](std::int64_t n) { return n == 100; });
  const auto route = kselect::testing::scratch_dir("run_eval_route");
  model::write_route(route, {n64, rest});
  EvalJob j = job(Protocol::kAuto);
  j.model_dir = route.string();
  EvalOutcome out = run_eval(j);
  EXPECT_EQ(out.protocol, "out-of-fold");
  EXPECT_EQ(out.report.problems, 18);  // 6 from the first member, 12 from the second
  EXPECT_EQ(out.oof_rows, 18 * 10);
  EXPECT_GT(out.report.efficiency.mean, 0.5);
  // Members that cover n = 64 and n = 100 only: the n = 256 problems have no predictions.
  model::write_route(route, {n64, n100});
  EXPECT_EQ(run_eval(j).report.problems, 12);
}

// A route's member may be a blend: its problems are scored as the blend alone scores them, from
// the blend's members' files (the first member's rows counted once).
TEST_F(RunEval, ARouteMemberThatIsABlendIsScoredAsTheBlend) {
  auto member = [&](const std::string& name, const std::string& where, auto keep,
                    model::Objective objective) {
    auto options = kselect::testing::quick_options("run_eval_route_blend_" + name);
    options.folds = 3, options.where = where, options.objective = objective;
    std::vector<data::Measurement> subset;
    for (const auto& r : rows())
      if (keep(gemm::GemmProblem::parse(r.problem).n)) subset.push_back(r);
    model::train(subset, options);
    return options.out_dir;
  };
  auto is64 = [](std::int64_t n) { return n == 64; };
  const auto regression = member("reg", "n=64", is64, model::Objective::kRegression);
  const auto near = member("eff", "n=64", is64, model::Objective::kEfficiency);
  const auto rest = member(
      "rest", "n!=64", [](std::int64_t n) { return n != 64; }, model::Objective::kRegression);
  const auto blend = kselect::testing::scratch_dir("run_eval_route_blend");
  model::write_blend(blend, {{regression, 1}, {near, 1}});
  const auto route = kselect::testing::scratch_dir("run_eval_route_of_blend");
  model::write_route(route, {blend, rest});
  EvalJob j = job(Protocol::kOutOfFold);
  j.model_dir = route.string();
  EvalOutcome all = run_eval(j);
  EXPECT_EQ(all.report.problems, 18);
  EXPECT_EQ(all.oof_rows, 18 * 10);
  j.where = "n=64";
  EvalOutcome routed = run_eval(j);
  j.model_dir = blend.string();
  EvalOutcome alone = run_eval(j);
  EXPECT_EQ(routed.report.problems, 6);
  EXPECT_DOUBLE_EQ(routed.report.efficiency.mean, alone.report.efficiency.mean);
  EXPECT_DOUBLE_EQ(routed.report.top1, alone.report.top1);
  EXPECT_EQ(routed.oof_rows, alone.oof_rows);
}

// A bad --hybrid-top fails before anything is read or ranked (a held-out ranking can take
// minutes): here the store and the model do not even exist.
TEST(RunEvalOptions, ANegativeHybridTopIsRefusedBeforeAnythingIsRead) {
  EvalJob j;
  j.db = "/nonexistent/none.sqlite";
  j.model_dir = "/nonexistent/model";
  j.options.hybrid_top = {3, -2};
  try {
    run_eval(j);
    FAIL() << "a negative k was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid-top"), std::string::npos) << e.what();
  }
}

TEST_F(RunEval, OutOfFoldRequiredButMissing) {
  EvalJob j = job(Protocol::kOutOfFold);
  j.oof_file = "/nonexistent/oof_tflops.csv";
  EXPECT_THROW(run_eval(j), InputError);
  j.protocol = Protocol::kHeldOut;
  j.model_dir.clear();
  EXPECT_THROW(run_eval(j), InputError);
}

}  // namespace
}  // namespace kselect::eval
