// Selection latency: rank every fp32/rcr candidate of the `full` rule set for one problem with
// a 500-tree model. The model comes from $KSELECT_BENCH_MODEL (a model directory) or is trained
// here once on synthetic data (bench/synthetic_gemm.h), which takes about a minute.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "model/feature_spec.h"
#include "model/file_io.h"
#include "model/forest.h"
#include "model/train.h"
#include "model/xgboost.h"
#include "ops/gemm/rule_sets.h"
#include "select/ranker.h"
#include "synthetic_gemm.h"

namespace {

using namespace kselect;

std::vector<gemm::GemmConfig> candidates() {
  std::vector<gemm::GemmConfig> out;
  for (const auto& c : gemm::rule_set("full"))
    if (c.dtype == gemm::DType::kFp32 && c.layout == gemm::Layout::kRcr) out.push_back(c);
  return out;
}

std::vector<std::string> names(const std::vector<gemm::GemmConfig>& configs) {
  std::vector<std::string> out;
  for (const auto& c : configs) out.push_back(c.name());
  return out;
}

// The model directory: $KSELECT_BENCH_MODEL, or one trained here once on synthetic data.
const std::filesystem::path& model_dir() {
  static const std::filesystem::path dir = [] {
    if (const char* given = std::getenv("KSELECT_BENCH_MODEL")) return std::filesystem::path(given);
    model::TrainOptions o;
    o.out_dir = std::filesystem::temp_directory_path() / "kselect_bench_select_model";
    o.folds = 0;
    o.boosting.trees = 500;
    o.boosting.threads = 2;
    std::cerr << "training a 500-tree model on synthetic data...\n";
    model::train(synthetic::random_measurements(candidates(), 200, 11), o);
    return o.out_dir;
  }();
  return dir;
}

const select::Ranker& ranker() {
  static const select::Ranker r = select::Ranker::load(model_dir());
  return r;
}

// The same training with the 12 nearest training problems blended in (model/neighbours.h):
// $KSELECT_BENCH_NEIGHBOURS_MODEL, or trained here once (another minute).
const select::Ranker& neighbour_ranker() {
  static const select::Ranker r = [] {
    if (const char* given = std::getenv("KSELECT_BENCH_NEIGHBOURS_MODEL"))
      return select::Ranker::load(given);
    model::TrainOptions o;
    o.out_dir = std::filesystem::temp_directory_path() / "kselect_bench_select_neighbours";
    o.folds = 0;
    o.boosting.trees = 500;
    o.boosting.threads = 2;
    o.neighbours = 12;
    std::cerr << "training a 500-tree model with neighbours on synthetic data...\n";
    model::train(synthetic::random_measurements(candidates(), 200, 11), o);
    return select::Ranker::load(o.out_dir);
  }();
  return r;
}

// The same model with two-stage scoring: $KSELECT_BENCH_CASCADE (P:S), default 64:32.
const select::Ranker& cascaded_ranker() {
  static const select::Ranker r = [] {
    select::Ranker loaded = select::Ranker::load(model_dir());
    const char* cascade = std::getenv("KSELECT_BENCH_CASCADE");
    loaded.set_cascade(select::Cascade::parse(cascade ? cascade : "64:32"));
    return loaded;
  }();
  return r;
}

const std::string kProblem = "m=128,n=1536,k=7168,layout=rcr,dtype=fp32";

// The fast path: a prepared candidate block, scores in input order. Arg: candidate count
// (0 = every fp32/rcr kernel of the full set).
// Scores `kernel_names` (prepared once, outside the timing) for kProblem.
void score_block(benchmark::State& state, const select::Ranker& r,
                 const std::vector<std::string>& kernel_names) {
  auto block = r.prepare(kernel_names);
  std::vector<double> scores;
  for (auto _ : state) {
    r.score(kProblem, *block, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.counters["candidates"] = double(kernel_names.size());
  state.counters["trees"] = double(r.num_trees());
}

void score_prepared(benchmark::State& state, const select::Ranker& r) {
  auto kernel_names = names(candidates());
  if (state.range(0) > 0) kernel_names.resize(std::size_t(state.range(0)));
  score_block(state, r, kernel_names);
}
void BM_ScorePrepared(benchmark::State& state) {
  score_prepared(state, ranker());
}
BENCHMARK(BM_ScorePrepared)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

// Two-stage scoring (select::Cascade): the pick's score is exact, the tail is cut early.
void BM_ScoreCascade(benchmark::State& state) {
  score_prepared(state, cascaded_ranker());
}
BENCHMARK(BM_ScoreCascade)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

// The fp32/rcr kernels of the `profiler` set (what a study sweeps, so what its model's
// shortlist comes from) that the model ranks (select::Ranker::shortlisted).
std::vector<std::string> shortlisted_profiler_kernels(const select::Ranker& r) {
  std::vector<std::string> all;
  for (const auto& c : gemm::rule_set("profiler"))
    if (c.dtype == gemm::DType::kFp32 && c.layout == gemm::Layout::kRcr) all.push_back(c.name());
  return r.shortlisted(all);
}

// Scoring the model's shortlist of the profiler set, as `kselect predict` does by default: the
// block is prepared once, as for BM_ScorePrepared.
void score_shortlist(benchmark::State& state, const select::Ranker& r) {
  score_block(state, r, shortlisted_profiler_kernels(r));
}
void BM_ScoreShortlist(benchmark::State& state) {
  score_shortlist(state, ranker());
}
BENCHMARK(BM_ScoreShortlist)->Unit(benchmark::kMicrosecond);
void BM_ScoreShortlistCascade(benchmark::State& state) {
  score_shortlist(state, cascaded_ranker());
}
BENCHMARK(BM_ScoreShortlistCascade)->Unit(benchmark::kMicrosecond);
// The shortlist scored with the nearest training problems' efficiencies blended in.
void BM_ScoreShortlistNeighbours(benchmark::State& state) {
  score_shortlist(state, neighbour_ranker());
}
BENCHMARK(BM_ScoreShortlistNeighbours)->Unit(benchmark::kMicrosecond);

// The candidates `kselect predict` ranks by default (fp32/rcr kernels of profiler+default),
// every one of them, exactly: no shortlist, no cascade.
void BM_ScoreDefaultCandidates(benchmark::State& state) {
  std::vector<std::string> all;
  for (const char* set : {"profiler", "default"})
    for (const auto& c : gemm::rule_set(set))
      if (c.dtype == gemm::DType::kFp32 && c.layout == gemm::Layout::kRcr &&
          std::find(all.begin(), all.end(), c.name()) == all.end())
        all.push_back(c.name());
  score_block(state, ranker(), all);
}
BENCHMARK(BM_ScoreDefaultCandidates)->Unit(benchmark::kMicrosecond);

// Everything `kselect predict` does after loading: names, all target models, sorting.
void BM_RankByName(benchmark::State& state) {
  auto kernel_names = names(candidates());
  for (auto _ : state) benchmark::DoNotOptimize(ranker().rank(kProblem, kernel_names));
  state.counters["candidates"] = double(kernel_names.size());
}
BENCHMARK(BM_RankByName)->Unit(benchmark::kMicrosecond);

// Feature extraction alone (kselect schema, every feature).
void BM_ExtractFeatures(benchmark::State& state) {
  auto kernel_names = names(candidates());
  const auto& engine = ranker().engine();
  auto block = engine.prepare(kernel_names);
  std::vector<int> columns(engine.all_features().size());
  for (size_t i = 0; i < columns.size(); ++i) columns[i] = int(i);
  std::vector<float> rows(kernel_names.size() * columns.size());
  for (auto _ : state) {
    engine.extract_rows(kProblem, *block, columns, rows.data());
    benchmark::DoNotOptimize(rows.data());
  }
}
BENCHMARK(BM_ExtractFeatures)->Unit(benchmark::kMicrosecond);

// ---- The forest against XGBoost's own predictor, on the same rows --------------------------
// The ordering model's rows for kProblem in the model's own column order, as XGBoost reads them.
struct ModelRows {
  std::vector<float> values;
  std::size_t rows = 0, cols = 0;
};

const ModelRows& model_rows() {
  static const ModelRows out = [] {
    const auto& engine = ranker().engine();
    const auto spec = model::FeatureSpec::load(model_dir());
    std::vector<int> columns = engine.columns_of(spec.features, "bench");
    auto kernel_names = names(candidates());
    auto block = engine.prepare(kernel_names);
    ModelRows m;
    m.rows = kernel_names.size(), m.cols = columns.size();
    m.values.resize(m.rows * m.cols);
    engine.extract_rows(kProblem, *block, columns, m.values.data());
    return m;
  }();
  return out;
}

std::filesystem::path ordering_model_file() {
  return model::model_file(model_dir(), model::FeatureSpec::load(model_dir()).targets.front());
}

// Arg: rows (0 = every fp32/rcr candidate of `full`). Margins without the prior's start
// margin on both sides (XGBoost without base_margin).
std::size_t bench_rows(const benchmark::State& state) {
  return state.range(0) > 0 ? std::size_t(state.range(0)) : model_rows().rows;
}

void BM_ForestMargins(benchmark::State& state) {
  const auto forest = model::Forest::load(ordering_model_file());
  const auto& m = model_rows();
  const std::size_t n = bench_rows(state);
  std::vector<float> out(n);
  for (auto _ : state) {
    forest.predict(m.values.data(), n, m.cols, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["rows"] = double(n);
  state.counters["trees"] = double(forest.num_trees());
}
BENCHMARK(BM_ForestMargins)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

// The exact path selection uses (Forest::predict_exact: double sums, shared columns resolved).
void BM_ForestExact(benchmark::State& state) {
  const auto forest = model::Forest::load(ordering_model_file());
  const auto& m = model_rows();
  const std::size_t n = bench_rows(state);
  std::vector<double> out(n);
  for (auto _ : state) {
    forest.predict_exact(m.values.data(), n, m.cols, 0, forest.num_trees(), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  const auto stats = model::Forest::last_exact_stats();
  state.counters["rows"] = double(n);
  state.counters["steps_per_row"] = double(stats.nodes) / double(n);
  state.counters["resolved_nodes"] = double(stats.resolved_nodes);
}
BENCHMARK(BM_ForestExact)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

// XGBoosterPredictFromDense, one thread; checks its margins against the forest's (1e-5).
void BM_XGBoostPredictFromDense(benchmark::State& state) {
  model::xgb::Booster booster;
  booster.load(model::read_file(ordering_model_file()));
  booster.set_param("nthread", "1");
  const auto forest = model::Forest::load(ordering_model_file());
  const auto& m = model_rows();
  const std::size_t n = bench_rows(state);
  std::vector<float> ours(n);
  forest.predict(m.values.data(), n, m.cols, ours.data());
  auto theirs = booster.predict_dense(m.values.data(), n, m.cols, 1, true);
  for (std::size_t i = 0; i < n; ++i)
    if (std::abs(theirs[i] - ours[i]) > 1e-5 * std::max(1.0f, std::abs(theirs[i])))
      return state.SkipWithError("the forest's margins differ from XGBoost's");
  for (auto _ : state)
    benchmark::DoNotOptimize(booster.predict_dense(m.values.data(), n, m.cols, 1, true));
  state.counters["rows"] = double(n);
}
BENCHMARK(BM_XGBoostPredictFromDense)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
