// How long the rule engine takes to enumerate the GEMM configuration space and generate every
// set (what `kselect rules check` and the first rule_set() call pay). A benchmark, not a test:
// the time depends on the machine and its load.
//
//   build/bench/bench_rules
#include <benchmark/benchmark.h>

#include "rules/rule_file.h"
#include "rules/sets.h"

namespace {

void BM_GenerateGemmRuleSets(benchmark::State& state) {
  const auto file = kselect::rules::RuleFile::embedded("gemm_cpu");
  std::size_t configurations = 0;
  for (auto _ : state) {
    kselect::rules::RuleSets sets(file);
    configurations = sets.space().size();
    benchmark::DoNotOptimize(configurations);
  }
  state.counters["configurations"] = double(configurations);
}
BENCHMARK(BM_GenerateGemmRuleSets)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace

BENCHMARK_MAIN();
