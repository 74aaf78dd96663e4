// `kselect train` and `kselect predict` end to end: a store written through the data API, the
// real binary, its exit codes and its JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "cli_runner.h"
#include "data/store.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "model/neighbours.h"

namespace kselect {
namespace {

struct Result {
  int rc = -1;
  std::string out;
};

// `kselect` with space-separated arguments (none of these tests' values hold a space).
Result run_cli(const std::string& args) {
  std::vector<std::string> argv;
  std::istringstream words(args);
  for (std::string word; words >> word;) argv.push_back(word);
  auto r = testing::run_cli(argv);
  return {r.code, r.out};
}

std::string make_store(const std::string& name) {
  auto dir = testing::scratch_dir(name);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "db.sqlite").string();
  data::Store store(path);
  long run = store.begin_run("gemm", testing::fixed_hardware(), {{"rules", "synthetic"}}, "k", 0);
  std::map<std::string, std::vector<data::Measurement>> by_problem;
  for (auto& m : testing::synthetic_measurements()) by_problem[m.problem].push_back(m);
  auto config_of = [](const std::string& k) {
    return nlohmann::json(gemm::GemmConfig::parse_name(k));
  };
  for (auto& [problem, rows] : by_problem)
    store.write_problem(run, "k", "gemm", problem, rows, config_of);
  store.finish_run(run, 0, false, "finished");
  return path;
}

// A 5-tree model trained by the CLI on make_store(name)'s data; empty when training failed.
std::filesystem::path small_model(const std::string& name) {
  const std::string db = make_store(name);
  auto model = testing::scratch_dir(name + "_model");
  Result r =
      run_cli("train --db " + db + " --out " + model.string() + " --trees 5 --folds 0 --threads 1");
  return r.rc == 0 ? model : std::filesystem::path();
}

TEST(TrainCli, TrainsFromADatabaseAndPredictsRankedKernels) {
  std::string db = make_store("cli_train");
  auto model = testing::scratch_dir("cli_model");
  Result t =
      run_cli("train --db " + db + " --out " + model.string() +
              " --trees 30 --folds 3 --threads 1 --target all --json --eta 0.2"
              " --max-leaves 15 --max-depth 6 --min-child-weight 3 --subsample 0.9"
              " --colsample 0.7 --final-trees 12 --near-best-weight 1 --seed 5 --parallel-trees 2"
              " --min-efficiency 0.5"
              " --prior off");
  ASSERT_EQ(t.rc, 0) << t.out;
  auto result = nlohmann::json::parse(t.out);
  EXPECT_EQ(result["targets"].size(), 3u);
  EXPECT_EQ(result["targets"][0]["trees"], 12);
  EXPECT_EQ(result["unique_shapes"], 84);
  auto params = model::FeatureSpec::load(model).params;  // every option reaches XGBoost's params
  EXPECT_EQ(params["eta"], 0.2);
  EXPECT_EQ(params["max_leaves"], 15);
  EXPECT_EQ(params["max_depth"], 6);
  EXPECT_EQ(params["min_child_weight"], 3.0);
  EXPECT_EQ(params["subsample"], 0.9);
  EXPECT_EQ(params["colsample_bytree"], 0.7);
  EXPECT_EQ(params["near_best_weight"], 1.0);
  EXPECT_EQ(params["min_efficiency"], 0.5);
  EXPECT_EQ(params["seed"], 5);
  EXPECT_EQ(params["parallel_trees"], 2);
  EXPECT_EQ(params["prior"], false);
  EXPECT_TRUE(model::FeatureSpec::load(model).priors.empty());

  Result p =
      run_cli("predict --model " + model.string() +
              " --problem m=128,n=1536,k=7168,layout=rcr,dtype=fp32 --rules full --top 5 --json"
              " --all-candidates");
  ASSERT_EQ(p.rc, 0) << p.out;
  auto ranked = nlohmann::json::parse(p.out);
  ASSERT_EQ(ranked["ranked"].size(), 5u);
  EXPECT_GT(ranked["candidates"].get<int>(), 5);
  EXPECT_GT(ranked["ranked"][0]["tflops"].get<double>(), 0);
  EXPECT_GT(ranked["ranked"][0]["latency_ms"].get<double>(), 0);

  // Without --all-candidates only the shortlist (and the default) is ranked.
  Result listed = run_cli("predict --model " + model.string() +
                          " --problem m=128,n=1536,k=7168,layout=rcr,dtype=fp32 --rules full"
                          " --top 0 --json");
  ASSERT_EQ(listed.rc, 0) << listed.out;
  auto short_ranked = nlohmann::json::parse(listed.out);
  const auto shortlist = model::FeatureSpec::load(model).shortlist;
  EXPECT_FALSE(shortlist.empty());
  EXPECT_EQ(short_ranked["candidates"], ranked["candidates"]);
  EXPECT_LT(short_ranked["shortlisted"].get<int>(), short_ranked["candidates"].get<int>());
  EXPECT_EQ(short_ranked["ranked"].size(), short_ranked["shortlisted"].get<std::size_t>());
  long outside = 0;
  for (const auto& r : short_ranked["ranked"])
    outside +=
        !std::binary_search(shortlist.begin(), shortlist.end(), r["kernel"].get<std::string>());
  EXPECT_LE(outside, 1) << "only the default may be outside the shortlist";

  // A margin no prediction reaches: the default kernel is always kept first.
  Result guarded = run_cli("predict --model " + model.string() +
                           " --problem m=128,n=1536,k=7168,layout=rcr,dtype=fp32 --rules full"
                           " --top 3 --default-margin 1e9 --json");
  ASSERT_EQ(guarded.rc, 0) << guarded.out;
  auto kept = nlohmann::json::parse(guarded.out);
  const std::string default_kernel = kept["default_guard"]["default_kernel"];
  EXPECT_FALSE(default_kernel.empty());
  EXPECT_EQ(kept["ranked"][0]["kernel"], default_kernel);
  // Kept: it moved up, unless it was the model's own pick already.
  EXPECT_EQ(kept["default_guard"]["kept"], ranked["ranked"][0]["kernel"] != default_kernel);
  EXPECT_EQ(run_cli("predict --model " + model.string() +
                    " --problem m=64,n=64,k=64 --default-margin -0.1")
                .rc,
            3);

  Result text =
      run_cli("predict --model " + model.string() + " --problem m=64,n=64,k=64 --rules full");
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("gemm_universal_fp32_rcr"), std::string::npos) << text.out;
}

TEST(TrainCli, AModelTrainedOnOlderFormulasWarnsAtPrediction) {
  const auto model = small_model("cli_revisions");
  ASSERT_FALSE(model.empty());
  auto spec = model::FeatureSpec::load(model);
  EXPECT_EQ(spec.feature_revisions.at("log2_est_cycles"), 2);  // recorded at training
  const std::vector<std::string> predict = {"predict", "--model", model.string(), "--problem",
                                            "m=64,n=64,k=64"};
  auto fresh = testing::run_cli(predict, true);
  ASSERT_EQ(fresh.code, 0) << fresh.out;
  EXPECT_EQ(fresh.out.find("warning"), std::string::npos) << fresh.out;
  spec.feature_revisions.clear();  // as written before the estimate changed
  spec.save(model);
  auto stale = testing::run_cli(predict, true);
  ASSERT_EQ(stale.code, 0) << stale.out;
  EXPECT_NE(stale.out.find("older formulas of log2_est_cycles, est_flops_per_cycle"),
            std::string::npos)
      << stale.out;
}

// --problems ranks every problem of a shape file with one load of the model: the same picks as
// one --problem at a time, and a problem no kernel supports reported in place (exit 1).
TEST(TrainCli, PredictsEveryProblemOfAShapeFile) {
  const auto model = small_model("cli_batch");
  ASSERT_FALSE(model.empty());
  const auto shapes_dir = testing::scratch_dir("cli_batch_shapes");
  std::filesystem::create_directories(shapes_dir);
  const auto shapes = shapes_dir / "shapes.csv";
  std::ofstream(shapes) << "m,n,k,layout,dtype,split_k\n64,64,64,rcr,fp32,1\n"
                           "300,17,999,rcr,fp32,1\n64,64,64,rcr,fp32,8\n";
  const std::string common = "predict --model " + model.string() + " --rules tiny --top 2";
  Result batch = run_cli(common + " --problems " + shapes.string() + " --json");
  EXPECT_EQ(batch.rc, 1) << "one problem has no supporting kernel";
  auto all = nlohmann::json::parse(batch.out);
  ASSERT_EQ(all.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    const std::string problem = all[i]["problem"];
    EXPECT_FALSE(all[i].contains("error"));
    Result one = run_cli(common + " --problem " + problem + " --json");
    ASSERT_EQ(one.rc, 0) << one.out;
    EXPECT_EQ(nlohmann::json::parse(one.out), all[i]) << problem;
  }
  EXPECT_EQ(all[2]["problem"], "m=64,n=64,k=64,layout=rcr,dtype=fp32,split_k=8");
  EXPECT_TRUE(all[2]["ranked"].empty());
  EXPECT_NE(all[2]["error"].get<std::string>().find("no kernel of rule set 'tiny'"),
            std::string::npos);
  Result text = run_cli(common + " --problems " + shapes.string());
  EXPECT_EQ(text.rc, 1);
  EXPECT_NE(text.out.find("== m=300,n=17,k=999,layout=rcr,dtype=fp32"), std::string::npos)
      << text.out;
  // Neither or both of --problem and --problems, and a malformed shape file, are input errors.
  EXPECT_EQ(run_cli("predict --model " + model.string()).rc, 3);
  EXPECT_NE(run_cli(common + " --problem m=1,n=1,k=1 --problems " + shapes.string()).rc, 0);
  std::ofstream(shapes) << "m,n,q\n1,2,3\n";
  EXPECT_EQ(run_cli(common + " --problems " + shapes.string()).rc, 3);
}

// kselect blend writes a model directory of two members that predict and evaluate like any
// other; bad member lists are input errors.
TEST(TrainCli, BlendsARegressionAndAnEfficiencyModel) {
  const auto regression = small_model("cli_blend");
  ASSERT_FALSE(regression.empty());
  const std::string db = make_store("cli_blend_data");
  const auto efficiency = testing::scratch_dir("cli_blend_efficiency");
  ASSERT_EQ(run_cli("train --db " + db + " --out " + efficiency.string() +
                    " --trees 5 --folds 0 --threads 1 --objective efficiency")
                .rc,
            0);
  const auto blend = testing::scratch_dir("cli_blend_out");
  const std::string members = " --model " + regression.string() + " --model " + efficiency.string();
  Result made = run_cli("blend --out " + blend.string() + members + " --weight 1 --weight 2");
  ASSERT_EQ(made.rc, 0) << made.out;
  Result picked =
      run_cli("predict --model " + blend.string() + " --problem m=64,n=64,k=64 --top 3 --json");
  ASSERT_EQ(picked.rc, 0) << picked.out;
  auto ranked = nlohmann::json::parse(picked.out)["ranked"];
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_LE(ranked[0]["score"].get<double>(), 0.0) << "relative log speeds are at most 0";
  // The second member scores the regression's best 8 (--survivors 8, the default); the others
  // are marked cut, in JSON and in the table.
  const std::string all =
      "predict --model " + blend.string() + " --problem m=64,n=64,k=64 --top 0 --all-candidates";
  Result listed = run_cli(all + " --json");
  ASSERT_EQ(listed.rc, 0) << listed.out;
  auto every = nlohmann::json::parse(listed.out)["ranked"];
  ASSERT_GT(every.size(), 8u);
  for (std::size_t i = 0; i < every.size(); ++i) EXPECT_EQ(every[i]["cut"], i >= 8) << i;
  Result table = run_cli(all);
  ASSERT_EQ(table.rc, 0) << table.out;
  EXPECT_NE(table.out.find("(cut)"), std::string::npos) << table.out;
  Result evaluated =
      run_cli("eval --model " + blend.string() + " --db " + db + " --heldout --json");
  ASSERT_EQ(evaluated.rc, 0) << evaluated.out;
  EXPECT_GT(nlohmann::json::parse(evaluated.out)["efficiency"]["mean"].get<double>(), 0.5);
  // The kernels beyond the survivors have no speed; the default guard still runs.
  Result guarded = run_cli("eval --model " + blend.string() + " --db " + db +
                           " --heldout --json --default-margin 0.05");
  ASSERT_EQ(guarded.rc, 0) << guarded.out;

  const std::string out = " --out " + testing::scratch_dir("cli_blend_bad").string();
  EXPECT_EQ(run_cli("blend" + out + " --model " + regression.string()).rc, 3);
  EXPECT_EQ(run_cli("blend" + out + members + " --weight 1").rc, 3);
  EXPECT_EQ(run_cli("blend" + out + members + " --weight 1 --weight -1").rc, 3);
  EXPECT_EQ(run_cli("blend" + out + members + " --model /nonexistent/model").rc, 4);
}

// `kselect train --blend-near` writes the blend in one command; it predicts, and evaluates out
// of fold from its members' files; options it cannot honour are input errors.
TEST(TrainCli, BlendNearTrainsBothMembersAndTheBlend) {
  const std::string db = make_store("cli_blend_near");
  const auto blend = testing::scratch_dir("cli_blend_near_model");
  const std::string train = "train --db " + db + " --out " + blend.string() +
                            " --trees 5 --folds 2 --threads 1 --blend-near 0.8";
  Result made = run_cli(train + " --json");
  ASSERT_EQ(made.rc, 0) << made.out;
  EXPECT_EQ(nlohmann::json::parse(made.out)["members"].size(), 2u);
  Result picked =
      run_cli("predict --model " + blend.string() + " --problem m=64,n=64,k=64 --top 3 --json");
  ASSERT_EQ(picked.rc, 0) << picked.out;
  EXPECT_EQ(nlohmann::json::parse(picked.out)["ranked"].size(), 3u);
  Result evaluated = run_cli("eval --model " + blend.string() + " --db " + db + " --json");
  ASSERT_EQ(evaluated.rc, 0) << evaluated.out;
  EXPECT_EQ(nlohmann::json::parse(evaluated.out)["protocol"], "out-of-fold");
  Result table = run_cli(train);  // retraining over a blend replaces it
  ASSERT_EQ(table.rc, 0) << table.out;
  EXPECT_NE(table.out.find("blend: "), std::string::npos) << table.out;

  // A retraining that fails (no bf16 rows) leaves the blend and its members as they were.
  const std::string member_model = model::read_file(blend / "regression" / "model_tflops.json");
  EXPECT_EQ(run_cli(train + " --dtype bf16").rc, 3);
  EXPECT_EQ(model::FeatureSpec::load(blend).objective, model::Objective::kBlend);
  EXPECT_EQ(model::read_file(blend / "regression" / "model_tflops.json"), member_model);
  EXPECT_FALSE(std::filesystem::exists(blend / "regression.partial"));
  EXPECT_FALSE(std::filesystem::exists(blend / "near.partial"));

  EXPECT_EQ(run_cli(train + " --objective ranking").rc, 3);
  EXPECT_EQ(run_cli("train --db " + db + " --out " + blend.string() + " --blend-near 1.5").rc, 3);
}

TEST(TrainCli, NeighboursAreWrittenBlendedIntoSelectionAndEvaluatedOutOfFold) {
  const std::string db = make_store("cli_neighbours");
  const auto model = testing::scratch_dir("cli_neighbours_model");
  const std::string train =
      "train --db " + db + " --out " + model.string() + " --trees 5 --folds 3 --threads 1";
  Result made = run_cli(train + " --neighbours 3 --neighbour-weight 0.75");
  ASSERT_EQ(made.rc, 0) << made.out;
  const auto table = model::NeighbourTable::load(model);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->count(), 3);
  EXPECT_DOUBLE_EQ(table->weight(), 0.75);
  EXPECT_EQ(table->problems(), 84u);
  EXPECT_EQ(std::count(table->columns().begin(), table->columns().end(), "log2_M"), 1);
  EXPECT_EQ(std::count(table->columns().begin(), table->columns().end(), "tile_m"), 0);

  // Each ranked score is the blend: 0.75 log(predicted TFLOPS) + 0.25 x the kernel's mean log
  // efficiency on its nearest training problems (at most 0), not the forest's margin.
  Result picked = run_cli("predict --model " + model.string() +
                          " --problem m=100,n=300,k=200,layout=rcr,dtype=fp32 --top 5 --json");
  ASSERT_EQ(picked.rc, 0) << picked.out;
  auto ranked = nlohmann::json::parse(picked.out)["ranked"];
  ASSERT_EQ(ranked.size(), 5u);
  for (const auto& r : ranked) {
    const double neighbour = r["neighbour_log_efficiency"].get<double>();
    EXPECT_LE(neighbour, 0.0) << r;
    EXPECT_NEAR(r["score"].get<double>(),
                0.75 * std::log(r["tflops"].get<double>()) + 0.25 * neighbour, 1e-9)
        << r;
  }
  Result evaluated = run_cli("eval --model " + model.string() + " --db " + db + " --json");
  ASSERT_EQ(evaluated.rc, 0) << evaluated.out;
  EXPECT_EQ(nlohmann::json::parse(evaluated.out)["problems"], 84);
  // A blend scores its members' forests alone: a member with neighbours is refused.
  const auto blend = testing::scratch_dir("cli_neighbours_blend");
  EXPECT_EQ(run_cli("blend --out " + blend.string() + " --model " + model.string() + " --model " +
                    model.string())
                .rc,
            3);

  // With a gate at the 1% quantile, a problem far from every training problem is ranked by the
  // model alone: each score is the log predicted TFLOPS, and no neighbour score is shown.
  ASSERT_EQ(run_cli(train + " --neighbours 3 --neighbour-gate 0.01").rc, 0);
  const auto gated = model::NeighbourTable::load(model);
  ASSERT_TRUE(gated.has_value());
  EXPECT_DOUBLE_EQ(gated->gate(), 0.01);
  EXPECT_GT(gated->gate_distance(), 0.0);
  picked = run_cli("predict --model " + model.string() +
                   " --problem m=8192,n=8,k=8192,layout=rcr,dtype=fp32 --top 5 --json");
  ASSERT_EQ(picked.rc, 0) << picked.out;
  ranked = nlohmann::json::parse(picked.out)["ranked"];
  ASSERT_EQ(ranked.size(), 5u);
  for (const auto& r : ranked) {
    EXPECT_TRUE(r["neighbour_log_efficiency"].is_null()) << r;
    EXPECT_NEAR(r["score"].get<double>(), std::log(r["tflops"].get<double>()), 1e-9) << r;
  }
  EXPECT_EQ(run_cli(train + " --neighbours 3 --neighbour-gate 1.5").rc, 3);
  ASSERT_EQ(run_cli(train + " --neighbours 3 --neighbour-power 2").rc, 0);
  EXPECT_DOUBLE_EQ(model::NeighbourTable::load(model)->power(), 2.0);
  EXPECT_EQ(run_cli(train + " --neighbours 3 --neighbour-power -1").rc, 3);

  // Retrained without neighbours, the directory holds none.
  ASSERT_EQ(run_cli(train).rc, 0);
  EXPECT_FALSE(model::NeighbourTable::load(model).has_value());
  EXPECT_EQ(run_cli(train + " --neighbours 3 --objective ranking").rc, 3);
  EXPECT_EQ(run_cli(train + " --neighbours 3 --neighbour-weight 1").rc, 3);
  EXPECT_EQ(run_cli(train + " --neighbours -1").rc, 3);
  EXPECT_EQ(run_cli(train + " --neighbours 3 --blend-near 0.8").rc, 3);
}

TEST(TrainCli, BadInputsExitNonZero) {
  auto model = testing::scratch_dir("cli_bad_model");
  EXPECT_EQ(run_cli("train --db /nonexistent/x.sqlite --out " + model.string()).rc, 4);
  std::string db = make_store("cli_bad");
  EXPECT_EQ(run_cli("train --db " + db + " --out " + model.string() + " --dtype bf16").rc, 3);
  EXPECT_EQ(run_cli("train --db " + db + " --out " + model.string() + " --folds 500").rc, 3);
  EXPECT_EQ(run_cli("predict --model " + model.string() + " --problem m=1,n=1,k=1").rc, 4);
}

TEST(FeaturesCli, WritesTheTrainingRowsAsCsv) {
  std::string db = make_store("cli_features");
  auto csv = testing::scratch_dir("cli_features_out") / "rows.csv";
  std::filesystem::create_directories(csv.parent_path());
  Result r =
      run_cli("features --db " + db + " --dtype fp32 --time-statistic min -o " + csv.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("problem,kernel,M,N,K,", 0), 0u) << header;
  std::size_t rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, testing::synthetic_measurements().size());
  Result out = run_cli("features --db " + db + " --schema ck55");  // to stdout
  ASSERT_EQ(out.rc, 0);
  EXPECT_EQ(out.out.rfind("problem,kernel,", 0), 0u);
  EXPECT_EQ(run_cli("features --db " + db + " --dtype bf16").rc, 3);
  EXPECT_EQ(run_cli("features --db /nonexistent/x.sqlite").rc, 4);
}

}  // namespace
}  // namespace kselect
