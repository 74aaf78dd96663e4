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
     "gemm_universal_fp32_rcr_compv4_default_intrawave_True_True_True_False_64x1008x512_1x1x1_"
     "8x48x1"},
    {2048, 2048, 2048, 2,
     "gemm_universal_fp32_rcr_compv4_default_intrawave_True_True_True_False_64x1024x512_1x1x1_"
     "8x32x1"},
    {512, 512, 512, 1,
     "gemm_universal_fp32_rcr_compv4_default_intrawave_True_True_True_False_192x512x512_1x1x1_"
     "12x32x1"},
    {512, 512, 512, 2,
     "gemm_universal_fp32_rcr_compv4_default_intrawave_True_True_True_False_96x256x512_1x1x1_"
     "12x32x1"},
    {16, 4096, 4096, 1,
     "gemm_universal_fp32_rcr_compv3_default_intrawave_True_True_True_False_32x96x256_1x1x1_"
     "8x48x1"},
    {16, 4096, 4096, 2,
     "gemm_universal_fp32_rcr_compv3_default_intrawave_True_True_True_False_8x64x128_1x2x1_8x32x1"},
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

// Plausible configurations: large register tiles, blocks sized for L2 (A block) and L3 (B
// block), both schedulers and epilogues; warps and the non-packing pipelines for skinny M.
std::vector<GemmConfig> candidates(const Case& c) {
  std::vector<GemmConfig> out;
  const int tiles[][2] = {{14, 32}, {12, 32}, {8, 48}, {6, 64}, {8, 32}};
  for (auto [mr, nr] : tiles)
    for (int mb : {1, 2, 4, 8, 16, 24})
      for (int nb :
           c.m <= 64 ? std::vector<int>{64, 128, 256, 512} : std::vector<int>{256, 512, 1024})
        for (int kt : {128, 256, 512})
          for (auto pipe : {kselect::gemm::Pipeline::kCompV4, kselect::gemm::Pipeline::kCompV3,
                            kselect::gemm::Pipeline::kMem}) {
            GemmConfig g;
            g.pipeline = pipe;
            g.warp_tile_m = mr, g.warp_tile_n = nr, g.warp_tile_k = 1;
            g.tile_m = mr * mb;
            g.tile_n = nb / nr * nr;
            g.tile_k = kt;
            if (g.tile_m > c.m * 2 && mb > 1) continue;
            if (g.tile_m < 64 && c.m > 256) continue;
            if (pipe != kselect::gemm::Pipeline::kCompV4 && c.m > 64) continue;
            out.push_back(g);
            for (auto [wm, wn] : {std::pair{1, 2}, std::pair{2, 1}}) {
              if (c.threads == 1 || c.m > 64) break;
              GemmConfig w = g;
              w.warp_m = wm, w.warp_n = wn;
              if (w.tile_m % (wm * mr) == 0 && w.tile_n % (wn * nr) == 0) out.push_back(w);
            }
          }
  return out;
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
