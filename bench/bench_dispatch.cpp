// The runtime dispatcher's latency through the public API (include/kselect/kselect.h):
//   - BM_SelectCached: select() on a problem decided before (the target: <= 100 ns), over a
//     mix of shapes so that lookups do not hit one cache line only;
//   - BM_SelectCachedCApi: the same through the C API;
//   - BM_SelectFirstTime: a decision made afresh (the model ranks the candidates) — a new
//     selector per batch, so every call misses;
//   - BM_ParseProblem: Selector::problem (the text parsed and validated once per shape);
//   - BM_CacheFileRoundTrip: save_cache() and a selector loading it back, for 1,000 shapes.
// The model comes from $KSELECT_BENCH_MODEL (a model directory, e.g. quickstart/blend); without
// it the selector decides by the default order (no model), which makes misses cheaper but
// hits the same.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "kselect/c_api.h"
#include "kselect/kselect.h"

namespace {

kselect::SelectorOptions options() {
  kselect::SelectorOptions o;
  if (const char* model = std::getenv("KSELECT_BENCH_MODEL")) {
    o.model = model;
    o.strategy = "ml";
  } else {
    o.op = "gemm";
    o.strategy = "default";
  }
  o.log = [](const std::string&) {};
  return o;
}

std::vector<std::string> shapes(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i)
    out.push_back("m=" + std::to_string(1 + (i * 37) % 4000) + ",n=" +
                  std::to_string(16 + (i * 101) % 3000) + ",k=" + std::to_string(64 + i % 7 * 128));
  return out;
}

void BM_SelectCached(benchmark::State& state) {
  kselect::Selector selector(options());
  std::vector<kselect::Problem> problems;
  for (const auto& s : shapes(64)) problems.push_back(selector.problem(s));
  for (const auto& p : problems) selector.select(p);  // decided once
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(selector.select(problems[i]));
    i = (i + 1) & 63;
  }
  state.counters["misses"] = double(selector.counters().cache_misses);
}
BENCHMARK(BM_SelectCached);

void BM_SelectCachedCApi(benchmark::State& state) {
  KsSelector selector = nullptr;
  const std::string json = std::getenv("KSELECT_BENCH_MODEL")
                               ? "{\"model\": \"" + std::string(std::getenv("KSELECT_BENCH_MODEL")) +
                                     "\", \"strategy\": \"ml\"}"
                               : "{\"op\": \"gemm\", \"strategy\": \"default\"}";
  if (KsSelectorCreate(json.c_str(), &selector) != 0) {
    state.SkipWithError(KsGetLastError());
    return;
  }
  std::vector<KsProblem> problems;
  for (const auto& s : shapes(64)) {
    KsProblem p = nullptr;
    KsProblemCreate(selector, s.c_str(), &p);
    KsSelect(selector, p, nullptr, nullptr, nullptr);
    problems.push_back(p);
  }
  std::size_t i = 0;
  const char* kernel = nullptr;
  for (auto _ : state) {
    KsSelect(selector, problems[i], &kernel, nullptr, nullptr);
    benchmark::DoNotOptimize(kernel);
    i = (i + 1) & 63;
  }
  for (KsProblem p : problems) KsProblemFree(p);
  KsSelectorFree(selector);
}
BENCHMARK(BM_SelectCachedCApi);

void BM_SelectFirstTime(benchmark::State& state) {
  const auto texts = shapes(16);
  for (auto _ : state) {
    state.PauseTiming();
    kselect::Selector selector(options());
    std::vector<kselect::Problem> problems;
    for (const auto& s : texts) problems.push_back(selector.problem(s));
    state.ResumeTiming();
    for (const auto& p : problems) benchmark::DoNotOptimize(selector.select(p));
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(texts.size()));
}
BENCHMARK(BM_SelectFirstTime)->Unit(benchmark::kMillisecond);

void BM_ParseProblem(benchmark::State& state) {
  kselect::Selector selector(options());
  for (auto _ : state)
    benchmark::DoNotOptimize(selector.problem("m=128,n=1536,k=7168,layout=rcr,dtype=fp32"));
}
BENCHMARK(BM_ParseProblem);

void BM_CacheFileRoundTrip(benchmark::State& state) {
  const auto file = std::filesystem::temp_directory_path() / "kselect_bench_dispatch.cache";
  kselect::SelectorOptions o = options();
  o.strategy = "default";  // the round trip's cost, not the decisions'
  o.model.clear();
  o.op = "gemm";
  kselect::Selector selector(o);
  for (const auto& s : shapes(1000)) selector.select(selector.problem(s));
  o.cache_file = file.string();
  for (auto _ : state) {
    selector.save_cache(file.string());
    kselect::Selector loaded(o);
    benchmark::DoNotOptimize(loaded.counters());
  }
  std::filesystem::remove(file);
}
BENCHMARK(BM_CacheFileRoundTrip)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
