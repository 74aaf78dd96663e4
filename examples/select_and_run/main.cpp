// Selects a GEMM kernel for a few problem shapes with kselect's C++ API, runs the first
// problem's kernel on this program's own buffers with verification, and exits non-zero on any
// failure.
//
//   select_and_run              # no model: strategy "default" (the op's no-model order)
//   select_and_run <model dir>  # a model directory written by `kselect train`
#include <kselect/kselect.h>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  try {
    kselect::SelectorOptions options;
    options.op = "gemm";
    if (argc > 1) {
      options.model = argv[1];
      options.strategy = "ml";
      options.require_model = true;  // a model that does not load is an error here
    } else {
      options.strategy = "default";
    }
    kselect::Selector selector(options);
    std::printf("kselect %s, op %s, %zu kernels, model: %s\n", kselect::version(),
                std::string(selector.op()).c_str(), selector.kernels().size(),
                selector.has_model() ? "yes" : "no");

    const char* shapes[] = {"m=64,n=64,k=64,layout=rcr,dtype=fp32",
                            "m=128,n=1536,k=7168,layout=rcr,dtype=fp32",
                            "m=1,n=4096,k=4096,layout=rcr,dtype=fp32"};
    for (const char* text : shapes) {
      const kselect::Problem p = selector.problem(text);
      const kselect::Selection s = selector.select(p);
      std::printf("%-45s %s (%s)\n", p.text().c_str(), std::string(s.kernel).c_str(),
                  std::string(s.level).c_str());
    }

    // Run the first problem's kernel on our own buffers: A (m x k, row-major), B (k x n,
    // column-major) and C (m x n, row-major) for layout rcr; fp32 elements.
    const int m = 64, n = 64, k = 64;
    std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.5f;
    const kselect::Problem p = selector.problem(shapes[0]);
    void* operands[] = {a.data(), b.data(), c.data()};
    const kselect::RunResult r = selector.run(p, operands, /*verify=*/true);
    std::printf("ran %s in %.3f ms: %s\n", std::string(r.selection.kernel).c_str(), r.ms,
                r.verify_error.empty() ? "verified" : r.verify_error.c_str());
    if (!r.verify_error.empty()) return 1;
    const kselect::Counters counters = selector.counters();
    std::printf("selects %llu, cache hits %llu\n",
                static_cast<unsigned long long>(counters.selects),
                static_cast<unsigned long long>(counters.cache_hits));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "select_and_run: %s\n", e.what());
    return 1;
  }
}
