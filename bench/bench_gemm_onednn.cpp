// Our best fp32 GEMM configuration against oneDNN's matmul, side by side in one run.
//
//   bench_gemm_onednn --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       times oneDNN and our configuration listed in kBest for each (shape, threads);
//   bench_gemm_onednn --search[=CASE_SUBSTRING]
//       times every configuration of candidates() for each (shape, threads) and prints the
//       fastest five: how kBest was chosen (docs/benchmarks.md).
// Layout rcr (A row-major, B column-major, C row-major) for both libraries.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "ops/gemm/kernel.h"
#include "ops/gemm/rule_sets.h"

namespace {

using kselect::gemm::GemmConfig;
using kselect::gemm::GemmKernel;
using kselect::gemm::GemmProblem;

struct Case {
  int m, n, k, threads;
  const char* best;  // our configuration for this case, found with --search
};

const Case kCases[] = {
    {2048, 2048, 2048, 1,
     "gemm_universal_fp32_rcr_compv4_cshuffle_intrawave_True_True_True_False_64x512x512_1x1x1_"
     "8x32x1"},
    {2048, 2048, 2048, 2,
     "gemm_universal_fp32_rcr_compv4_cshuffle_interwave_True_True_True_False_64x256x256_1x1x1_"
     "8x32x2"},
    {512, 512, 512, 1,
     "gemm_universal_fp32_rcr_compv4_default_intrawave_True_True_True_False_64x512x512_1x1x1_"
     "8x32x2"},
    {512, 512, 512, 2,
     "gemm_universal_fp32_rcr_compv4_default_interwave_True_True_True_False_112x256x512_1x1x1_"
     "14x32x1"},
    {16, 4096, 4096, 1,
     "gemm_universal_fp32_rcr_compv3_default_intrawave_True_True_True_False_32x32x128_1x1x1_"
     "4x32x1"},
    {16, 4096, 4096, 2,
     "gemm_universal_fp32_rcr_compv3_cshuffle_intrawave_True_True_True_True_32x16x256_2x1x1_"
     "8x16x2"},
};

GemmProblem problem(const Case& c) {
  GemmProblem p;
  p.m = c.m, p.n = c.n, p.k = c.k;
  return p;  // rcr, fp32
}

struct Buffers {
  std::vector<float> a, b, c;
  explicit Buffers(const GemmProblem& p) : a(p.m * p.k), b(p.k * p.n), c(p.m * p.n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1, 1);
    for (float& x : a) x = d(rng);
    for (float& x : b) x = d(rng);
  }
};

std::string case_name(const Case& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
         "/threads:" + std::to_string(c.threads);
}

void set_gflops(benchmark::State& state, const GemmProblem& p) {
  state.counters["GFLOPS"] =
      benchmark::Counter(p.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bench_onednn(benchmark::State& state, const Case& c) {
  using dnnl::memory;
  omp_set_num_threads(c.threads);
  GemmProblem p = problem(c);
  Buffers buf(p);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  memory::desc a_md({c.m, c.k}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc b_md({c.k, c.n}, memory::data_type::f32, memory::format_tag::ba);
  memory::desc c_md({c.m, c.n}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  dnnl::matmul matmul(pd);
  memory a(a_md, eng, buf.a.data()), b(b_md, eng, buf.b.data()), cm(c_md, eng, buf.c.data());
  for (auto _ : state) {
    matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, cm}});
    stream.wait();
  }
  set_gflops(state, p);
}

void bench_ours(benchmark::State& state, const Case& c, const std::string& config) {
  GemmProblem p = problem(c);
  Buffers buf(p);
  GemmKernel kernel(GemmConfig::parse_name(config));
  for (auto _ : state) kernel.run(p, buf.a.data(), buf.b.data(), buf.c.data(), c.threads);
  set_gflops(state, p);
  state.SetLabel(config);
}

// The `full` rule set's fp32/rcr configurations that run the case, pruned to the plausible
// ones so a search takes minutes: single-warp compv4 with large tiles for large M; for small M
// compv3 (packed B, A read in place) with tiles about as tall as M (padded twins only: pad-free
// kernels run the same code minus the edge path, which these shapes never take).
std::vector<GemmConfig> candidates(const Case& c) {
  std::vector<GemmConfig> out;
  for (const GemmConfig& g : kselect::gemm::rule_set("full")) {
    if (g.dtype != kselect::gemm::DType::kFp32 || g.layout != kselect::gemm::Layout::kRcr) continue;
    bool plausible = c.m > 64
                         ? g.pipeline == kselect::gemm::Pipeline::kCompV4 && g.num_warps() == 1 &&
                               g.tile_m >= 48 && g.tile_n >= 256 && g.tile_k >= 256 && g.pad_m
                         : g.pipeline == kselect::gemm::Pipeline::kCompV3 && g.tile_m >= c.m / 2 &&
                               g.tile_m <= 2 * c.m && g.pad_m && g.num_warps() <= c.threads &&
                               g.tile_k >= 128;
    if (plausible) out.push_back(g);
  }
  return out;
}

// The benchmark claims "the best configuration of `full`": refuse names outside it.
bool in_full_set(const std::string& name) {
  for (const GemmConfig& g : kselect::gemm::rule_set("full"))
    if (g.name() == name) return true;
  return false;
}

double seconds_per_run(const GemmKernel& kernel, const GemmProblem& p, Buffers& buf, int threads) {
  kernel.run(p, buf.a.data(), buf.b.data(), buf.c.data(), threads);
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    kernel.run(p, buf.a.data(), buf.b.data(), buf.c.data(), threads);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int search(const std::string& filter) {
  for (const Case& c : kCases) {
    if (case_name(c).find(filter) == std::string::npos) continue;
    GemmProblem p = problem(c);
    Buffers buf(p);
    std::vector<std::pair<double, std::string>> ranked;
    const std::vector<GemmConfig> list = candidates(c);
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < list.size(); ++i) {
      const GemmConfig& g = list[i];
      double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\r%s: %zu/%zu, ETA %.0f s   ", case_name(c).c_str(), i, list.size(),
                   i ? spent / double(i) * double(list.size() - i) : 0.0);
      GemmKernel kernel(g);
      if (!kernel.unsupported_reason(p).empty()) continue;
      ranked.emplace_back(p.flops() / seconds_per_run(kernel, p, buf, c.threads) / 1e9, g.name());
    }
    std::sort(ranked.rbegin(), ranked.rend());
    std::fprintf(stderr, "\n");
    std::printf("%s: %zu candidates\n", case_name(c).c_str(), ranked.size());
    for (size_t i = 0; i < std::min<size_t>(5, ranked.size()); ++i)
      std::printf("  %8.1f GFLOPS  %s\n", ranked[i].first, ranked[i].second.c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--search", 8) == 0)
      return search(argv[i][8] == '=' ? argv[i] + 9 : "");
  for (const Case& c : kCases) {
    if (!in_full_set(c.best)) {
      std::fprintf(stderr, "%s is not in the full rule set: rerun --search\n", c.best);
      return 1;
    }
    benchmark::RegisterBenchmark(("onednn/" + case_name(c)).c_str(),
                                 [c](benchmark::State& s) { bench_onednn(s, c); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("kselect/" + case_name(c)).c_str(),
                                 [c](benchmark::State& s) { bench_ours(s, c, c.best); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
