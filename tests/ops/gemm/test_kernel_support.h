#pragma once
#include <ostream>
// Shared by the GemmKernel tests: deterministic operands in every layout, a double-precision
// reference, a tolerance per dtype, and an RAII cap on the instruction set (KSELECT_ISA).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ops/cpu_gemm_core/bf16.h"
#include "ops/gemm/kernel.h"

namespace kselect::gemm {
// Parameterized tests print the kernel name instead of the struct's bytes.
inline void PrintTo(const GemmConfig& config, std::ostream* os) {
  *os << config.name();
}
}  // namespace kselect::gemm

namespace kselect::gemm::testing {

// Logical A (M x K) and B (K x N), values exactly representable in the problem's dtype, plus
// their storage in the problem's layout.
struct Operands {
  std::vector<float> a, b;              // logical, row-major
  std::vector<float> a32, b32;          // stored (fp32)
  std::vector<std::uint16_t> a16, b16;  // stored (bf16)
  const void* a_data() const { return a16.empty() ? (const void*)a32.data() : a16.data(); }
  const void* b_data() const { return b16.empty() ? (const void*)b32.data() : b16.data(); }
};

inline Operands make_operands(const GemmProblem& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operands o;
  auto fill = [&](std::vector<float>& v, std::int64_t size) {
    v.resize(size);
    for (float& x : v) {
      x = dist(rng);
      if (p.dtype == DType::kBf16) x = kernels::bf16_to_float(kernels::float_to_bf16(x));
    }
  };
  fill(o.a, p.m * p.k);
  fill(o.b, p.k * p.n);
  auto store = [&](const std::vector<float>& v, std::int64_t rows, std::int64_t cols, bool row,
                   std::vector<float>& f32, std::vector<std::uint16_t>& h16) {
    std::vector<float> s(v.size());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        s[row ? r * cols + c : c * rows + r] = v[r * cols + c];
    if (p.dtype == DType::kFp32) {
      f32 = std::move(s);
    } else {
      for (float x : s) h16.push_back(kernels::float_to_bf16(x));
    }
  };
  store(o.a, p.m, p.k, a_row_major(p.layout), o.a32, o.a16);
  store(o.b, p.k, p.n, b_row_major(p.layout), o.b32, o.b16);
  return o;
}

struct Reference {
  std::vector<double> c, abs_sum;  // C and sum_k |A||B| per element (scales the tolerance)
};

inline Reference reference(const GemmProblem& p, const Operands& o) {
  Reference r;
  r.c.assign(p.m * p.n, 0.0);
  r.abs_sum.assign(p.m * p.n, 0.0);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t k = 0; k < p.k; ++k) {
      double av = o.a[i * p.k + k];
      for (std::int64_t j = 0; j < p.n; ++j) {
        double prod = av * o.b[k * p.n + j];
        r.c[i * p.n + j] += prod;
        r.abs_sum[i * p.n + j] += std::fabs(prod);
      }
    }
  return r;
}

// fp32 accumulation error grows with K (one rounding per add); bf16 products are exact, but
// vdpbf16ps adds pairs in an unspecified order, so it gets a looser bound.
inline double tolerance(const GemmProblem& p, double abs_sum) {
  double per_add = p.dtype == DType::kFp32 ? 2e-7 : 1e-6;
  return abs_sum * per_add * double(p.k + 16) + 1e-30;
}

inline ::testing::AssertionResult matches(const GemmProblem& p, const std::vector<float>& c,
                                          const Reference& ref) {
  for (std::int64_t i = 0; i < p.m * p.n; ++i) {
    double err = std::fabs(double(c[i]) - ref.c[i]);
    if (!(err <= tolerance(p, ref.abs_sum[i])))
      return ::testing::AssertionFailure()
             << p.to_string() << ": C[" << i / p.n << "," << i % p.n << "] = " << c[i]
             << ", expected " << ref.c[i] << " (error " << err << ")";
  }
  return ::testing::AssertionSuccess();
}

// Runs `kernel` on p (C pre-filled with garbage, which must be overwritten) and compares.
inline ::testing::AssertionResult runs_correctly(const GemmKernel& kernel, const GemmProblem& p,
                                                 const Operands& o, const Reference& ref,
                                                 int threads) {
  std::vector<float> c(p.m * p.n, NAN);
  kernel.run(p, o.a_data(), o.b_data(), c.data(), threads);
  auto result = matches(p, c, ref);
  if (!result)
    result << " [" << kernel.config().name() << ", " << threads << " threads, isa " << kernel.isa()
           << "]";
  return result;
}

// Caps the instruction set for the lifetime of the guard.
class IsaCap {
 public:
  explicit IsaCap(const std::string& isa) {
    if (const char* old = std::getenv("KSELECT_ISA")) old_ = old, had_ = true;
    setenv("KSELECT_ISA", isa.c_str(), 1);
  }
  ~IsaCap() {
    if (had_)
      setenv("KSELECT_ISA", old_.c_str(), 1);
    else
      unsetenv("KSELECT_ISA");
  }

 private:
  std::string old_;
  bool had_ = false;
};

}  // namespace kselect::gemm::testing
