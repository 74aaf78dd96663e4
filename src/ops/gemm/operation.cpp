// The GEMM operation: glue between the op-generic pipeline (ops/operation.h) and the GEMM
// problem, configuration, rule sets and CPU kernels.
#include "ops/gemm/operation.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/text.h"
#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/placed_operands.h"
#include "ops/gemm/config.h"
#include "ops/gemm/features.h"
#include "ops/gemm/kernel.h"
#include "ops/gemm/problem.h"
#include "ops/gemm/report.h"
#include "ops/gemm/rule_sets.h"
#include "ops/gemm/shapes.h"
#include "ops/kernel_sets.h"

namespace kselect::gemm {

namespace {

// The operands of one call: A and B in the problem's dtype and layout, C fp32 row-major.
struct GemmOperands {
  const void* a;
  const void* b;
  float* c;
};

// A GEMM problem with operands and the check of C against a reference computed from the first
// set's A and B. Subclasses own the operands (GeneratedGemmWorkload) or point at a caller's
// (CallerGemmWorkload).
class GemmWorkload : public Workload {
 public:
  const std::string& problem() const override { return text_; }
  double flops() const override { return problem_.flops(); }
  double bytes() const override { return problem_.bytes(); }

  // The next call's operands (the same set when there is one). On every timed call: a compare
  // instead of a division, which would cost a tiny kernel a measurable share of its time.
  void advance() {
    if (sets_.size() > 1) current_ = current_ + 1 == sets_.size() ? 0 : current_ + 1;
  }

  const GemmProblem& gemm() const { return problem_; }
  const void* a() const { return sets_[current_].a; }
  const void* b() const { return sets_[current_].b; }
  float* c() const { return sets_[current_].c; }

  // Compares C with a double-precision reference on a fixed sample of entries (all entries of
  // small problems).
  std::string check_output() {
    if (reference_.empty() || !exact_inputs_) build_reference();
    // Generated inputs are small integers: a correct kernel is exact. A caller's values round
    // once per fp32 add (bf16 products are exact, vdpbf16ps adds pairs in its own order).
    const double relative = exact_inputs_ ? 1e-6 : 1e-6 * double(problem_.k + 16);
    const float* c = this->c();
    for (const Entry& e : reference_) {
      double got = c[e.row * problem_.n + e.col];
      if (!(std::fabs(got - e.value) <= relative * e.magnitude + 1e-6))
        return "wrong result: C[" + std::to_string(e.row) + "," + std::to_string(e.col) +
               "] = " + std::to_string(got) + ", expected " + std::to_string(e.value);
    }
    return "";
  }

 protected:
  // `exact_inputs`: the inputs never change and every sum of them is exact in fp32, so the
  // reference is computed once and C must match it exactly. Otherwise (a caller's buffers) it
  // is computed on every check, from the inputs as they are then.
  GemmWorkload(const GemmProblem& p, bool exact_inputs)
      : problem_(p), text_(p.to_string()), exact_inputs_(exact_inputs) {}

  std::vector<GemmOperands> sets_;  // one, or the copies that calls rotate through
  size_t current_ = 0;

 private:
  struct Entry {
    std::int64_t row, col;
    double value, magnitude;
  };
  static constexpr double kReferenceBudget = 1 << 26;  // multiply-adds per workload

  template <class T>
  Entry reference_entry(const T* a, const T* b, std::int64_t i, std::int64_t j) const {
    const bool a_row = a_row_major(problem_.layout), b_row = b_row_major(problem_.layout);
    Entry e{i, j, 0, 0};
    for (std::int64_t kk = 0; kk < problem_.k; ++kk) {
      double a_ik = kernels::to_float(a_row ? a[i * problem_.k + kk] : a[kk * problem_.m + i]);
      double b_kj = kernels::to_float(b_row ? b[kk * problem_.n + j] : b[j * problem_.k + kk]);
      double product = a_ik * b_kj;
      e.value += product;
      e.magnitude += std::fabs(product);
    }
    return e;
  }

  void build_reference() {
    if (problem_.dtype == DType::kFp32)
      build_reference(static_cast<const float*>(sets_[0].a), static_cast<const float*>(sets_[0].b));
    else
      build_reference(static_cast<const std::uint16_t*>(sets_[0].a),
                      static_cast<const std::uint16_t*>(sets_[0].b));
  }

  template <class T>
  void build_reference(const T* a, const T* b) {
    reference_.clear();
    const std::int64_t m = problem_.m, n = problem_.n;
    double entries = double(m) * double(n);
    if (entries * double(problem_.k) <= kReferenceBudget) {
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) reference_.push_back(reference_entry(a, b, i, j));
      return;
    }
    // Corners and the last row and column catch edge-tile bugs; the rest is pseudo-random.
    for (auto [i, j] :
         {std::pair{std::int64_t{0}, std::int64_t{0}}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}})
      reference_.push_back(reference_entry(a, b, i, j));
    int samples = int(std::max(64.0, kReferenceBudget / double(problem_.k)));
    for (int s = 0; s < samples; ++s) {
      std::uint64_t r = splitmix(0xC0FFEEull + std::uint64_t(s));
      std::int64_t i = s % 4 == 0 ? m - 1 : std::int64_t(r % std::uint64_t(m));
      std::int64_t j = s % 4 == 1 ? n - 1 : std::int64_t((r >> 32) % std::uint64_t(n));
      reference_.push_back(reference_entry(a, b, i, j));
    }
  }

  GemmProblem problem_;
  std::string text_;
  bool exact_inputs_;
  std::vector<Entry> reference_;
};

// A workload with operands of its own, filled with deterministic small integers.
class GeneratedGemmWorkload final : public GemmWorkload {
 public:
  // Placed (not malloc'd) so a kernel's time does not depend on where the heap put them.
  GeneratedGemmWorkload(const GemmProblem& p, unsigned seed)
      : GemmWorkload(p, true),
        placed_(size_t(p.m * p.k) * size_t(bytes_per_element(p.dtype)),
                size_t(p.k * p.n) * size_t(bytes_per_element(p.dtype)),
                size_t(p.m * p.n) * sizeof(float)) {
    const bool bf16 = p.dtype == DType::kBf16;
    fill_operand(placed_.sets()[0].first.data(), size_t(p.m * p.k), bf16, 2ull * seed + 1);
    fill_operand(placed_.sets()[0].second.data(), size_t(p.k * p.n), bf16, 2ull * seed + 2);
    rotate_operands(1);
  }

  void rotate_operands(int copies) override {
    placed_.rotate(copies);
    current_ = 0;
    sets_ = placed_.views<GemmOperands>([](const void* a, const void* b, float* c) {
      return GemmOperands{a, b, c};
    });
  }

 private:
  kernels::PlacedOperands placed_;
};

// A workload over a caller's A, B and C, read and written in place: the kernels take any dense
// A and B in the problem's layout and write C row-major, so nothing is copied or placed.
class CallerGemmWorkload final : public GemmWorkload {
 public:
  CallerGemmWorkload(const GemmProblem& p, const GemmOperands& operands) : GemmWorkload(p, false) {
    sets_.push_back(operands);
  }
  void rotate_operands(int copies) override {
    if (copies != 1)
      throw InputError("", 0, "copies",
                       "a workload over a caller's buffers has one set of operands, not " +
                           std::to_string(copies));
  }
};

class GemmBoundKernel : public BoundKernel {
 public:
  GemmBoundKernel(const GemmKernel& kernel, GemmWorkload& workload, int threads)
      : kernel_(kernel), workload_(workload), threads_(threads) {}
  void run() override {
    workload_.advance();
    kernel_.run(workload_.gemm(), workload_.a(), workload_.b(), workload_.c(), threads_);
  }
  std::string verify() override { return workload_.check_output(); }

 private:
  const GemmKernel& kernel_;
  GemmWorkload& workload_;
  int threads_;
};

// Why `k` cannot run `p`: the one answer of the op's unsupported_reason, by name or through a
// catalogue.
std::string unsupported_reason(const GemmKernel& k, const GemmProblem& p) {
  const GemmConfig& c = k.config();
  if (c.dtype != p.dtype)
    return "dtype mismatch: kernel " + std::string(to_string(c.dtype)) + ", problem " +
           std::string(to_string(p.dtype));
  if (c.layout != p.layout)
    return "layout mismatch: kernel " + std::string(to_string(c.layout)) + ", problem " +
           std::string(to_string(p.layout));
  return k.unsupported_reason(p);
}

// Scratch memory of `k` running `p` with the default team (omp_get_max_threads(), the most
// workers a run takes unless told otherwise): the seam's question has no thread count, and
// each worker packs its own panels, so the answer is an upper bound for runs with fewer threads.
double workspace_bytes(const GemmKernel& k, const GemmProblem& p) {
  return k.workspace_bytes(p, omp_get_max_threads());
}

// "all" stands for every dtype.
std::vector<DType> dtypes_of(const std::vector<std::string>& names) {
  std::vector<DType> out;
  for (const auto& name : names) {
    if (name == "all") return {DType::kFp32, DType::kBf16};
    out.push_back(parse_dtype(name));
  }
  return out;
}

// "all" stands for every layout.
std::vector<Layout> layouts_of(const std::vector<std::string>& names) {
  std::vector<Layout> out;
  for (const auto& name : names) {
    if (name == "all") return {Layout::kRcr, Layout::kRrr, Layout::kCrr, Layout::kCcr};
    out.push_back(parse_layout(name));
  }
  return out;
}

class GemmOperation : public Operation {
 public:
  std::string_view name() const override { return "gemm"; }

  // Half the features per tree: the GEMM schema has many correlated features.
  const Capabilities& capabilities() const override {
    static const Capabilities caps{.default_colsample = 0.5};
    return caps;
  }

  std::unique_ptr<features::FeatureEngine> make_feature_engine(
      const HardwareProfile& hardware, const nlohmann::json&) const override {
    return std::make_unique<GemmFeatureEngine>(hardware);
  }

  std::vector<std::string> shape_families() const override { return gemm::shape_families(); }

  std::vector<std::string> generate_problems(const ShapeRequest& request) const override {
    ShapeOptions options;
    if (!request.family.empty()) options.family = request.family;
    options.count = request.count, options.seed = request.seed;
    options.max_gflop = request.max_gflop;
    if (!request.dtypes.empty()) options.dtypes = dtypes_of(request.dtypes);
    if (!request.layouts.empty()) options.layouts = layouts_of(request.layouts);
    std::vector<std::string> problems;
    for (const auto& p : generate_shapes(options)) problems.push_back(p.to_string());
    return problems;
  }

  ReportGroups report_groups(std::string_view problem, std::string_view picked,
                             int cores) const override {
    return gemm::report_groups(gemm_view(problem, picked), cores);
  }

  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    KeyValues kv = KeyValues::parse(text, source);
    // Name the offending dimension (GemmProblem's own check reports them together).
    for (const char* dim : {"m", "n", "k"})
      if (kv.has(dim) && kv.require_int(dim) < 1) throw InputError(source, 0, dim, "must be >= 1");
    return GemmProblem::from_key_values(kv, source).to_string();
  }

  std::vector<std::string> problem_columns() const override {
    return {"m", "n", "k", "layout", "dtype", "split_k"};
  }

  std::vector<std::string> kernel_names(std::string_view set,
                                        const KeyValues& filter) const override {
    return union_of_sets(
        set, [&](std::string_view one) { return matching_names(rule_set(one), filter, "GEMM"); });
  }

  // Its kernels are the configurations of its rule sets, named by GemmConfig.
  bool owns_kernel(std::string_view kernel) const override {
    return GemmConfig::from_name(kernel).has_value();
  }

  nlohmann::json kernel_fields(std::string_view kernel) const override {
    return GemmConfig::parse_name(kernel);
  }

  // Without a model, prefer the kernel with the least operand traffic: a tm x tn tile reads
  // (1/tm + 1/tn) operand elements per multiply-add over the padded M x N extent. That favours
  // large tiles for large shapes and tile_m = 1 for M = 1 (where a tall tile only pads); ties
  // keep the rule set's order.
  std::vector<std::string> heuristic_order(std::string_view problem,
                                           std::vector<std::string> kernels) const override {
    GemmProblem p = GemmProblem::parse(problem);
    auto traffic = [&](const std::string& name) {
      auto c = GemmConfig::from_name(name);
      if (!c) return std::numeric_limits<double>::infinity();
      auto round_up = [](std::int64_t x, int tile) { return double((x + tile - 1) / tile * tile); };
      return round_up(p.m, c->tile_m) * round_up(p.n, c->tile_n) *
             (1.0 / c->tile_m + 1.0 / c->tile_n);
    };
    return order_by_cost(std::move(kernels), traffic);
  }

  std::string unsupported_reason(std::string_view kernel, std::string_view problem) const override {
    return gemm::unsupported_reason(cached_kernel(kernel), GemmProblem::parse(problem));
  }

  std::unique_ptr<KernelCatalogue> catalogue(std::vector<std::string> kernels) const override {
    std::vector<const GemmKernel*> built;
    built.reserve(kernels.size());
    for (const auto& name : kernels) built.push_back(&cached_kernel(name));  // InputError
    using Catalogue = BuiltKernelCatalogue<GemmKernel, GemmProblem>;
    return std::make_unique<Catalogue>(
        std::move(kernels), std::move(built),
        Catalogue::Answers{[](std::string_view text) { return GemmProblem::parse(text); },
                           &gemm::unsupported_reason, &gemm::workspace_bytes});
  }

  // The operands as placed (A, B, C), the split-K partial sums (an M x N float block per part)
  // and the packing scratch of every thread (one block tile's panels over the whole K, bounded
  // by A + B).
  double workload_bytes(std::string_view problem) const override {
    const GemmProblem p = GemmProblem::parse(problem);
    const double m = double(p.m), n = double(p.n), k = double(p.k);
    const double element = bytes_per_element(p.dtype);
    const double operands = element * (m * k + k * n) + 4 * m * n;
    const double partials = p.split_k > 1 ? 4 * m * n * double(p.split_k) : 0;
    return operands + partials + element * (m * k + k * n);
  }

  std::vector<std::string> operand_names(std::string_view problem) const override {
    GemmProblem::parse(problem);  // InputError for a problem the op cannot run
    return {"a", "b", "c"};
  }

  // A (M x K) and B (K x N) hold the problem's dtype (fp32, or bf16 as 16-bit patterns) stored
  // as its layout says, densely (row-major A: lda = K, column-major A: lda = M; likewise B);
  // C is M x N fp32 row-major, overwritten.
  std::unique_ptr<Workload> wrap_buffers(std::string_view problem,
                                         std::span<void* const> operands) const override {
    const GemmProblem p = GemmProblem::parse(problem);
    const std::vector<std::string> names = operand_names(problem);
    check_operands(names, operands);
    return std::make_unique<CallerGemmWorkload>(
        p, GemmOperands{operands[0], operands[1], static_cast<float*>(operands[2])});
  }

  std::unique_ptr<Workload> make_workload(std::string_view problem, unsigned seed) const override {
    return std::make_unique<GeneratedGemmWorkload>(GemmProblem::parse(problem), seed);
  }

  std::unique_ptr<BoundKernel> bind(std::string_view kernel, Workload& workload,
                                    int threads) const override {
    auto* gemm_workload = dynamic_cast<GemmWorkload*>(&workload);
    if (!gemm_workload) throw InputError("", 0, "workload", "not a GEMM workload");
    std::string why = unsupported_reason(kernel, workload.problem());
    if (!why.empty())
      throw InputError("", 0, "kernel",
                       std::string(kernel) + " cannot run " + workload.problem() + ": " + why);
    return std::make_unique<GemmBoundKernel>(cached_kernel(kernel), *gemm_workload, threads);
  }

 private:
  const GemmKernel& cached_kernel(std::string_view name) const { return kernels_.get(name); }

  KernelCache<GemmKernel, GemmConfig> kernels_;
};

}  // namespace

const Operation& operation() {
  static const GemmOperation op;
  return op;
}

}  // namespace kselect::gemm
