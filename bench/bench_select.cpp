// Selection latency: rank every fp32/rcr candidate of the `full` rule set for one problem with
// a 500-tree model. The model comes from $KSELECT_BENCH_MODEL (a model directory) or is trained
// here once on synthetic data (bench/synthetic_gemm.h), which takes about a minute.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "model/train.h"
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

const select::Ranker& ranker() {
  static const select::Ranker r = [] {
    if (const char* dir = std::getenv("KSELECT_BENCH_MODEL")) return select::Ranker::load(dir);
    model::TrainOptions o;
    o.out_dir = std::filesystem::temp_directory_path() / "kselect_bench_select_model";
    o.folds = 0;
    o.trees = 500;
    o.threads = 2;
    std::cerr << "training a 500-tree model on synthetic data...\n";
    model::train(synthetic::random_measurements(candidates(), 200, 11), o);
    return select::Ranker::load(o.out_dir);
  }();
  return r;
}

const std::string kProblem = "m=128,n=1536,k=7168,layout=rcr,dtype=fp32";

// The fast path: a prepared candidate block, scores in input order. Arg: candidate count
// (0 = every fp32/rcr kernel of the full set).
void BM_ScorePrepared(benchmark::State& state) {
  auto kernel_names = names(candidates());
  if (state.range(0) > 0) kernel_names.resize(std::size_t(state.range(0)));
  auto block = ranker().prepare(kernel_names);
  std::vector<double> scores;
  for (auto _ : state) {
    ranker().score(kProblem, *block, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.counters["candidates"] = double(kernel_names.size());
  state.counters["trees"] = double(ranker().spec().params.value("trees", 0));
}
BENCHMARK(BM_ScorePrepared)->Arg(300)->Arg(0)->Unit(benchmark::kMicrosecond);

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

}  // namespace

BENCHMARK_MAIN();
