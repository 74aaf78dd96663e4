// The conv operation: glue between the op-generic pipeline (ops/operation.h) and the conv
// problem, configuration, rule sets and CPU kernels.
#include "ops/conv/operation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/text.h"
#include "ops/conv/config.h"
#include "ops/conv/kernel.h"
#include "ops/conv/problem.h"
#include "ops/conv/reference.h"
#include "ops/conv/rule_sets.h"
#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/placed_buffer.h"
#include "ops/kernel_sets.h"

namespace kselect::conv {

namespace {

using std::int64_t;

// The tensors a direction reads (first, second) and writes, as x, w or y.
enum class Role { kX, kW, kY };
struct Roles {
  Role first, second, result;
};
Roles roles(Direction dir) {
  switch (dir) {
    case Direction::kForward:
      return {Role::kX, Role::kW, Role::kY};
    case Direction::kBackwardData:
      return {Role::kY, Role::kW, Role::kX};
    case Direction::kBackwardWeight:
      return {Role::kX, Role::kY, Role::kW};
  }
  return {Role::kX, Role::kW, Role::kY};
}
int64_t elements(const Problem& p, Role role) {
  return role == Role::kX ? x_elements(p) : role == Role::kW ? w_elements(p) : y_elements(p);
}

double bytes_per_element(const Problem& p) {
  return p.dtype == "bf16" ? 2 : 4;
}

class ConvWorkload : public Workload {
 public:
  ConvWorkload(const Problem& p, unsigned seed)
      : problem_(p), text_(native_text(p)), roles_(roles(*p.dir)) {
    values_[int(Role::kX)].resize(size_t(x_elements(p)));
    values_[int(Role::kW)].resize(size_t(w_elements(p)));
    values_[int(Role::kY)].resize(size_t(y_elements(p)));
    sets_.push_back(make_operands());
    fill(roles_.first, sets_[0].first.data(), 2ull * seed + 1);
    fill(roles_.second, sets_[0].second.data(), 2ull * seed + 2);
  }

  const std::string& problem() const override { return text_; }
  double flops() const override { return problem_.flops(); }
  // Each tensor read or written once.
  double bytes() const override {
    const double element = bytes_per_element(problem_);
    return element * double(elements(problem_, roles_.first) + elements(problem_, roles_.second)) +
           4.0 * double(elements(problem_, roles_.result));
  }
  void rotate_operands(int copies) override {
    sets_.resize(1);
    current_ = 0;
    for (int i = 1; i < copies; ++i) {
      sets_.push_back(make_operands());
      std::memcpy(sets_.back().first.data(), sets_[0].first.data(), sets_[0].first.size());
      std::memcpy(sets_.back().second.data(), sets_[0].second.data(), sets_[0].second.size());
    }
  }
  void advance() {
    if (sets_.size() > 1) current_ = current_ + 1 == sets_.size() ? 0 : current_ + 1;
  }

  const Problem& conv() const { return problem_; }
  cpu::ConvTensors tensors() const {
    const Operands& set = sets_[current_];
    cpu::ConvTensors t;
    const void* read[3] = {nullptr, nullptr, nullptr};
    read[int(roles_.first)] = set.first.data();
    read[int(roles_.second)] = set.second.data();
    t.x = read[int(Role::kX)], t.w = read[int(Role::kW)], t.y = read[int(Role::kY)];
    t.result = reinterpret_cast<float*>(set.result.data());
    return t;
  }

  // Compares the whole result with the direct reference convolution (computed once).
  std::string check_output() {
    if (reference_.empty())
      reference_ = reference_conv(problem_, values_[int(Role::kX)], values_[int(Role::kW)],
                                  values_[int(Role::kY)]);
    const float* got = tensors().result;
    for (size_t i = 0; i < reference_.size(); ++i)
      if (!(std::fabs(got[i] - reference_[i]) <= 1e-6 * std::fabs(reference_[i]) + 1e-6))
        return "wrong result: element " + std::to_string(i) + " = " + std::to_string(got[i]) +
               ", expected " + std::to_string(reference_[i]);
    return "";
  }

 private:
  // Placed (not malloc'd) so a kernel's time does not depend on where the heap put them.
  struct Operands {
    kernels::PlacedBuffer first, second, result;
  };

  Operands make_operands() const {
    const auto element = size_t(bytes_per_element(problem_));
    const auto result_bytes = size_t(elements(problem_, roles_.result)) * sizeof(float);
    Operands set{
        {size_t(elements(problem_, roles_.first)) * element, kernels::Placement::kOperandA},
        {size_t(elements(problem_, roles_.second)) * element, kernels::Placement::kOperandB},
        {result_bytes, kernels::Placement::kOperandC}};
    std::memset(set.result.data(), 0, result_bytes);
    return set;
  }

  void fill(Role role, void* storage, std::uint64_t seed) {
    std::vector<float>& values = values_[int(role)];
    for (size_t i = 0; i < values.size(); ++i) values[i] = operand_value(seed, i);
    if (problem_.dtype == "fp32") {
      std::memcpy(storage, values.data(), values.size() * sizeof(float));
      return;
    }
    auto* bits = static_cast<std::uint16_t*>(storage);
    for (size_t i = 0; i < values.size(); ++i) bits[i] = kernels::float_to_bf16(values[i]);
  }

  Problem problem_;
  std::string text_;
  Roles roles_;
  std::vector<float> values_[3];  // x, w, y as values (the written one stays zero)
  std::vector<Operands> sets_;    // one, or the copies that calls rotate through
  size_t current_ = 0;
  std::vector<double> reference_;
};

class ConvBoundKernel : public BoundKernel {
 public:
  ConvBoundKernel(const ConvKernel& kernel, ConvWorkload& workload, int threads)
      : kernel_(kernel), workload_(workload), threads_(threads) {}
  void run() override {
    workload_.advance();
    kernel_.run(workload_.conv(), workload_.tensors(), threads_);
  }
  std::string verify() override { return workload_.check_output(); }

 private:
  const ConvKernel& kernel_;
  ConvWorkload& workload_;
  int threads_;
};

class ConvOperation : public Operation {
 public:
  std::string_view name() const override { return "conv"; }

  const Capabilities& capabilities() const override {
    static const Capabilities caps{};
    return caps;
  }

  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    return native_text(parse_native_problem(text, source));
  }

  std::vector<std::string> problem_columns() const override {
    return {"n",     "c",           "k",           "g",           "di",       "hi",    "wi",
            "z",     "y",           "x",           "do",          "ho",       "wo",    "pad_d",
            "pad_h", "pad_w",       "stride_d",    "stride_h",    "stride_w", "dil_d", "dil_h",
            "dil_w", "pad_right_d", "pad_right_h", "pad_right_w", "dir",      "dtype", "layout"};
  }

  std::vector<std::string> kernel_names(std::string_view set,
                                        const KeyValues& filter) const override {
    return union_of_sets(
        set, [&](std::string_view one) { return matching_names(rule_set(one), filter, "conv"); });
  }

  nlohmann::json kernel_fields(std::string_view kernel) const override {
    nlohmann::json fields = ConvConfig::parse_name(kernel);
    fields["name"] = std::string(kernel);
    return fields;
  }

  // Without a model, prefer the kernel with the least operand traffic over the per-group
  // implicit GEMM (a tm x tn block reads 1/tm + 1/tn operand elements per multiply-add over the
  // padded M x N extent), and a specialisation over the default path at equal traffic, since it
  // runs only where it is faster; ties keep the rule set's order.
  std::vector<std::string> heuristic_order(std::string_view problem,
                                           std::vector<std::string> kernels) const override {
    const Problem p = parse_native_problem(problem);
    const cpu::GemmShape shape = cpu::implicit_gemm(p);
    auto traffic = [&](const std::string& name) {
      auto c = ConvConfig::from_name(name);
      if (!c) return std::numeric_limits<double>::infinity();
      auto round_up = [](int64_t x, int tile) { return double((x + tile - 1) / tile * tile); };
      const double specialised = c->specialization == Specialization::kDefault ? 1.0 : 0.9;
      return specialised * round_up(shape.m, c->tile_m) * round_up(shape.n, c->tile_n) *
             (1.0 / c->tile_m + 1.0 / c->tile_n);
    };
    return order_by_cost(std::move(kernels), traffic);
  }

  std::string unsupported_reason(std::string_view kernel, std::string_view problem) const override {
    return kernels_.get(kernel).unsupported_reason(parse_native_problem(problem));
  }

  // The two read tensors as placed and as float values, the result and its float copy, the
  // double reference, the K-split partial results (up to 8 parts) and each thread's gathered
  // and packed blocks (bounded by the read tensors).
  double workload_bytes(std::string_view problem) const override {
    const Problem p = parse_native_problem(problem);
    const Roles r = roles(*p.dir);
    const double read = double(elements(p, r.first) + elements(p, r.second));
    const double result = double(elements(p, r.result));
    return bytes_per_element(p) * read + 4 * (read + result) + 4 * result + 8 * result +
           4 * 8 * result + 4 * read;
  }

  std::unique_ptr<Workload> make_workload(std::string_view problem, unsigned seed) const override {
    return std::make_unique<ConvWorkload>(parse_native_problem(problem), seed);
  }

  std::unique_ptr<BoundKernel> bind(std::string_view kernel, Workload& workload,
                                    int threads) const override {
    auto* conv_workload = dynamic_cast<ConvWorkload*>(&workload);
    if (!conv_workload) throw InputError("", 0, "workload", "not a conv workload");
    std::string why = unsupported_reason(kernel, workload.problem());
    if (!why.empty())
      throw InputError("", 0, "kernel",
                       std::string(kernel) + " cannot run " + workload.problem() + ": " + why);
    return std::make_unique<ConvBoundKernel>(kernels_.get(kernel), *conv_workload, threads);
  }

 private:
  KernelCache<ConvKernel, ConvConfig> kernels_;  // one built kernel per name
};

}  // namespace

const Operation& operation() {
  static const ConvOperation op;
  return op;
}

}  // namespace kselect::conv
