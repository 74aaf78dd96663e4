// The GEMM operation: glue between the op-generic pipeline (ops/operation.h) and the GEMM
// problem, configuration, rule sets and CPU kernels.
#include "ops/gemm/operation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/text.h"
#include "ops/cpu_gemm_core/placed_buffer.h"
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

std::uint16_t to_bf16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return std::uint16_t(bits >> 16);  // exact for the small integers used here
}

class GemmWorkload : public Workload {
 public:
  GemmWorkload(const GemmProblem& p, unsigned seed)
      : problem_(p),
        text_(p.to_string()),
        a_values_(size_t(p.m * p.k)),
        b_values_(size_t(p.k * p.n)) {
    sets_.push_back(make_operands());
    fill(a_values_, sets_[0].a.data(), 2ull * seed + 1);
    fill(b_values_, sets_[0].b.data(), 2ull * seed + 2);
  }

  const std::string& problem() const override { return text_; }
  double flops() const override { return problem_.flops(); }
  double bytes() const override { return problem_.bytes(); }

  // Every copy has the placement of the first, so a kernel meets the same cache sets and
  // 4 KiB aliasing whichever copy a call uses; only what the caches hold of it differs.
  void rotate_operands(int copies) override {
    sets_.resize(1);
    current_ = 0;
    for (int i = 1; i < copies; ++i) {
      sets_.push_back(make_operands());
      std::memcpy(sets_.back().a.data(), sets_[0].a.data(), sets_[0].a.size());
      std::memcpy(sets_.back().b.data(), sets_[0].b.data(), sets_[0].b.size());
    }
  }
  // The next call's operands (the same set when there is one). On every timed call: a compare
  // instead of a division, which would cost a tiny kernel a measurable share of its time.
  void advance() {
    if (sets_.size() > 1) current_ = current_ + 1 == sets_.size() ? 0 : current_ + 1;
  }

  const GemmProblem& gemm() const { return problem_; }
  const void* a() const { return sets_[current_].a.data(); }
  const void* b() const { return sets_[current_].b.data(); }
  float* c() const { return reinterpret_cast<float*>(sets_[current_].c.data()); }

  // Compares C with a double-precision reference on a fixed sample of entries (all entries of
  // small problems); the reference is computed once per workload.
  std::string check_output() {
    if (reference_.empty()) build_reference();
    const float* c = this->c();
    for (const Entry& e : reference_) {
      double got = c[e.row * problem_.n + e.col];
      if (!(std::fabs(got - e.value) <= 1e-6 * e.magnitude + 1e-6))
        return "wrong result: C[" + std::to_string(e.row) + "," + std::to_string(e.col) +
               "] = " + std::to_string(got) + ", expected " + std::to_string(e.value);
    }
    return "";
  }

 private:
  struct Entry {
    std::int64_t row, col;
    double value, magnitude;
  };
  // Placed (not malloc'd) so a kernel's time does not depend on where the heap put them.
  struct Operands {
    kernels::PlacedBuffer a, b, c;
  };

  Operands make_operands() const {
    const auto element = size_t(bytes_per_element(problem_.dtype));
    const auto c_bytes = size_t(problem_.m * problem_.n) * sizeof(float);
    Operands set{{size_t(problem_.m * problem_.k) * element, kernels::Placement::kOperandA},
                 {size_t(problem_.k * problem_.n) * element, kernels::Placement::kOperandB},
                 {c_bytes, kernels::Placement::kOperandC}};
    std::memset(set.c.data(), 0, c_bytes);
    return set;
  }
  static constexpr double kReferenceBudget = 1 << 26;  // multiply-adds per workload

  void fill(std::vector<float>& values, void* storage, std::uint64_t seed) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = operand_value(seed, i);
    if (problem_.dtype == DType::kFp32) {
      std::memcpy(storage, values.data(), values.size() * sizeof(float));
      return;
    }
    auto* bits = static_cast<std::uint16_t*>(storage);
    for (size_t i = 0; i < values.size(); ++i) bits[i] = to_bf16_bits(values[i]);
  }

  double a_at(std::int64_t i, std::int64_t kk) const {
    return a_row_major(problem_.layout) ? a_values_[size_t(i * problem_.k + kk)]
                                        : a_values_[size_t(kk * problem_.m + i)];
  }
  double b_at(std::int64_t kk, std::int64_t j) const {
    return b_row_major(problem_.layout) ? b_values_[size_t(kk * problem_.n + j)]
                                        : b_values_[size_t(j * problem_.k + kk)];
  }

  Entry reference_entry(std::int64_t i, std::int64_t j) const {
    Entry e{i, j, 0, 0};
    for (std::int64_t kk = 0; kk < problem_.k; ++kk) {
      double product = a_at(i, kk) * b_at(kk, j);
      e.value += product;
      e.magnitude += std::fabs(product);
    }
    return e;
  }

  void build_reference() {
    const std::int64_t m = problem_.m, n = problem_.n;
    double entries = double(m) * double(n);
    if (entries * double(problem_.k) <= kReferenceBudget) {
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) reference_.push_back(reference_entry(i, j));
      return;
    }
    // Corners and the last row and column catch edge-tile bugs; the rest is pseudo-random.
    for (auto [i, j] :
         {std::pair{std::int64_t{0}, std::int64_t{0}}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}})
      reference_.push_back(reference_entry(i, j));
    int samples = int(std::max(64.0, kReferenceBudget / double(problem_.k)));
    for (int s = 0; s < samples; ++s) {
      std::uint64_t r = splitmix(0xC0FFEEull + std::uint64_t(s));
      std::int64_t i = s % 4 == 0 ? m - 1 : std::int64_t(r % std::uint64_t(m));
      std::int64_t j = s % 4 == 1 ? n - 1 : std::int64_t((r >> 32) % std::uint64_t(n));
      reference_.push_back(reference_entry(i, j));
    }
  }

  GemmProblem problem_;
  std::string text_;
  std::vector<float> a_values_, b_values_;  // logical values in storage order
  std::vector<Operands> sets_;              // one, or the copies that calls rotate through
  size_t current_ = 0;
  std::vector<Entry> reference_;
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
    GemmProblem p = GemmProblem::parse(problem);
    const GemmKernel& k = cached_kernel(kernel);
    const GemmConfig& c = k.config();
    if (c.dtype != p.dtype)
      return "dtype mismatch: kernel " + std::string(to_string(c.dtype)) + ", problem " +
             std::string(to_string(p.dtype));
    if (c.layout != p.layout)
      return "layout mismatch: kernel " + std::string(to_string(c.layout)) + ", problem " +
             std::string(to_string(p.layout));
    return k.unsupported_reason(p);
  }

  // The operands as placed (A, B, C), their values kept in float for the reference, the split-K
  // partial sums (an M x N float block per part) and the packing scratch of every thread (one
  // block tile's panels over the whole K, bounded by A + B).
  double workload_bytes(std::string_view problem) const override {
    const GemmProblem p = GemmProblem::parse(problem);
    const double m = double(p.m), n = double(p.n), k = double(p.k);
    const double element = bytes_per_element(p.dtype);
    const double operands = element * (m * k + k * n) + 4 * m * n;
    const double values = 4 * (m * k + k * n);
    const double partials = p.split_k > 1 ? 4 * m * n * double(p.split_k) : 0;
    return operands + values + partials + element * (m * k + k * n);
  }

  std::unique_ptr<Workload> make_workload(std::string_view problem, unsigned seed) const override {
    return std::make_unique<GemmWorkload>(GemmProblem::parse(problem), seed);
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
