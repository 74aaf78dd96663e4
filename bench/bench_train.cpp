// Training speed: about 1M synthetic-but-realistic rows (random GEMM shapes x real fp32/rcr
// configurations of the `full` rule set, roofline-like TFLOPS with 5% noise), ck55 features,
// 500 trees, 2 threads, final model only (no cross-validation). Prints the wall time; the
// target is <= 5 minutes. Environment: KSELECT_BENCH_ROWS (default 1000000),
// KSELECT_BENCH_TREES (500), KSELECT_BENCH_THREADS (2).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "model/train.h"
#include "ops/gemm/rule_sets.h"
#include "synthetic_gemm.h"

namespace {

using namespace kselect;

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v ? std::atol(v) : fallback;
}

void BM_Train(benchmark::State& state) {
  std::vector<gemm::GemmConfig> configs;
  for (const auto& c : gemm::rule_set("full"))
    if (c.dtype == gemm::DType::kFp32 && c.layout == gemm::Layout::kRcr) configs.push_back(c);
  long rows = env_or("KSELECT_BENCH_ROWS", 1000000);
  int shapes = int(std::max<long>(5, rows / long(configs.size())));
  auto data = synthetic::random_measurements(configs, shapes, 5);
  model::TrainOptions o;
  o.out_dir = std::filesystem::temp_directory_path() / "kselect_bench_train_model";
  o.schema = "ck55";
  o.folds = 0;
  o.boosting.trees = int(env_or("KSELECT_BENCH_TREES", 500));
  o.boosting.threads = int(env_or("KSELECT_BENCH_THREADS", 2));
  o.progress = true;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    model::train(data, o);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "\ntrained " << data.size() << " rows x 55 features, " << o.boosting.trees
              << " trees, " << o.boosting.threads << " threads in " << seconds << " s\n";
  }
  state.counters["rows"] = double(data.size());
  state.counters["trees"] = o.boosting.trees;
}
BENCHMARK(BM_Train)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
