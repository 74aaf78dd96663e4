// The conv operation: glue between the op-generic pipeline (ops/operation.h) and the conv
// problem, configuration, rule sets and CPU kernels.
#include "ops/conv/operation.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/text.h"
#include "ops/conv/config.h"
#include "ops/conv/features.h"
#include "ops/conv/kernel.h"
#include "ops/conv/problem.h"
#include "ops/conv/reference.h"
#include "ops/conv/report.h"
#include "ops/conv/rule_sets.h"
#include "ops/conv/shapes.h"
#include "ops/cpu_gemm_core/bf16.h"
#include "ops/cpu_gemm_core/placed_operands.h"
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

// The operands of a direction in the order operand_names gives them: its two read tensors,
// then the written one.
std::vector<std::string> operand_names(Direction dir) {
  switch (dir) {
    case Direction::kForward:
      return {"input", "weight", "output"};
    case Direction::kBackwardData:
      return {"output_grad", "weight", "input_grad"};
    case Direction::kBackwardWeight:
      return {"input", "output_grad", "weight_grad"};
  }
  return {};
}

// The tensors of one call from a direction's (first, second, result) pointers.
cpu::ConvTensors tensors_of(const Roles& roles, const void* first, const void* second,
                            float* result) {
  const void* read[3] = {nullptr, nullptr, nullptr};
  read[int(roles.first)] = first;
  read[int(roles.second)] = second;
  cpu::ConvTensors t;
  t.x = read[int(Role::kX)], t.w = read[int(Role::kW)], t.y = read[int(Role::kY)];
  t.result = result;
  return t;
}

// A conv problem with tensors and the check of the result against the direct reference
// convolution of the first set's read tensors. Subclasses own the tensors
// (GeneratedConvWorkload) or point at a caller's (CallerConvWorkload).
class ConvWorkload : public Workload {
 public:
  const std::string& problem() const override { return text_; }
  double flops() const override { return problem_.flops(); }
  // Each tensor read or written once.
  double bytes() const override {
    const double element = bytes_per_element(problem_);
    return element * double(elements(problem_, roles_.first) + elements(problem_, roles_.second)) +
           4.0 * double(elements(problem_, roles_.result));
  }
  void advance() {
    if (sets_.size() > 1) current_ = current_ + 1 == sets_.size() ? 0 : current_ + 1;
  }

  const Problem& conv() const { return problem_; }
  const cpu::ConvTensors& tensors() const { return sets_[current_]; }
  size_t current_set() const { return current_; }
  size_t set_count() const { return sets_.size(); }

  // Set `set`'s weights packed for `kernel`'s weight layout, shared by every kernel of that
  // layout bound to this workload (null where the kernel reads no weights). The workload's
  // tensors are constant while kernels are bound to it, so packs are made once and kept.
  std::shared_ptr<const cpu::PackedWeights> packed_weights(const ConvKernel& kernel, size_t set) {
    const std::string layout = kernel.weight_layout();
    if (layout.empty()) return nullptr;
    auto& packs = packed_[layout];
    if (packs.size() != sets_.size()) packs.assign(sets_.size(), nullptr);
    if (!packs[set] || packs[set]->source != sets_[set].w)
      packs[set] = kernel.pack_weights(problem_, sets_[set].w);
    return packs[set];
  }

  // Compares the whole result with the reference.
  std::string check_output() {
    if (reference_.empty() || !exact_inputs_) build_reference();
    // Generated inputs are small integers: a correct kernel is exact. A caller's values round
    // once per fp32 add of the implicit GEMM's K, relative to the sum of |products|.
    const double per_add = exact_inputs_ ? 0 : 1e-6 * double(cpu::implicit_gemm(problem_).k + 16);
    const float* got = tensors().result;
    for (size_t i = 0; i < reference_.size(); ++i) {
      const double scale = exact_inputs_ ? std::fabs(reference_[i]) : magnitude_[i];
      if (!(std::fabs(got[i] - reference_[i]) <= (1e-6 + per_add) * scale + 1e-6))
        return "wrong result: element " + std::to_string(i) + " = " + std::to_string(got[i]) +
               ", expected " + std::to_string(reference_[i]);
    }
    return "";
  }

 protected:
  // `exact_inputs`: the read tensors never change and every sum of them is exact in fp32, so
  // the reference is computed once and the result must match it. Otherwise (a caller's
  // buffers) it is computed on every check, from the tensors as they are then.
  ConvWorkload(const Problem& p, bool exact_inputs)
      : problem_(p), text_(native_text(p)), roles_(roles(*p.dir)), exact_inputs_(exact_inputs) {}

  const Roles& roles_of() const { return roles_; }

  std::vector<cpu::ConvTensors> sets_;  // one, or the copies that calls rotate through
  size_t current_ = 0;
  // Per weight layout, each set's packed weights (ConvKernel::pack_weights).
  std::map<std::string, std::vector<std::shared_ptr<const cpu::PackedWeights>>> packed_;

 private:
  // A read tensor of the first set as values; the written one stays empty (the reference
  // ignores it).
  std::vector<float> values(Role role, bool absolute) const {
    const cpu::ConvTensors& t = sets_[0];
    const void* data = role == Role::kX ? t.x : role == Role::kW ? t.w : t.y;
    std::vector<float> out;
    if (role == roles_.result) return out;
    out.resize(size_t(elements(problem_, role)));
    if (problem_.dtype == "fp32")
      std::memcpy(out.data(), data, out.size() * sizeof(float));
    else
      for (size_t i = 0; i < out.size(); ++i)
        out[i] = kernels::bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    if (absolute)
      for (float& v : out) v = std::fabs(v);
    return out;
  }

  void build_reference() {
    auto run = [&](bool absolute) {
      return reference_conv(problem_, values(Role::kX, absolute), values(Role::kW, absolute),
                            values(Role::kY, absolute));
    };
    reference_ = run(false);
    // The sum of |products| per element: the reference over absolute values.
    if (!exact_inputs_) magnitude_ = run(true);
  }

  Problem problem_;
  std::string text_;
  Roles roles_;
  bool exact_inputs_;
  std::vector<double> reference_, magnitude_;
};

// A workload with tensors of its own, filled with deterministic small integers.
class GeneratedConvWorkload final : public ConvWorkload {
 public:
  // Placed (not malloc'd) so a kernel's time does not depend on where the heap put them.
  GeneratedConvWorkload(const Problem& p, unsigned seed)
      : ConvWorkload(p, true),
        placed_(size_t(elements(p, roles_of().first)) * size_t(bytes_per_element(p)),
                size_t(elements(p, roles_of().second)) * size_t(bytes_per_element(p)),
                size_t(elements(p, roles_of().result)) * sizeof(float)) {
    const bool bf16 = p.dtype == "bf16";
    fill_operand(placed_.sets()[0].first.data(), size_t(elements(p, roles_of().first)), bf16,
                 2ull * seed + 1);
    fill_operand(placed_.sets()[0].second.data(), size_t(elements(p, roles_of().second)), bf16,
                 2ull * seed + 2);
    rotate_operands(1);
  }

  void rotate_operands(int copies) override {
    placed_.rotate(copies);
    current_ = 0;
    packed_.clear();
    sets_ = placed_.views<cpu::ConvTensors>(
        [this](const void* first, const void* second, float* result) {
          return tensors_of(roles_of(), first, second, result);
        });
  }

 private:
  kernels::PlacedOperands placed_;
};

// A workload over a caller's tensors, read and written in place: the kernels read CK's dense
// layouts directly (gathering im2col blocks into their own scratch), so nothing is copied.
class CallerConvWorkload final : public ConvWorkload {
 public:
  CallerConvWorkload(const Problem& p, std::span<void* const> operands) : ConvWorkload(p, false) {
    sets_.push_back(
        tensors_of(roles_of(), operands[0], operands[1], static_cast<float*>(operands[2])));
  }
  void rotate_operands(int copies) override {
    if (copies != 1)
      throw InputError("", 0, "copies",
                       "a workload over a caller's buffers has one set of operands, not " +
                           std::to_string(copies));
  }
};

// Forward and backward data read the weights packed when bound (one pack per operand set,
// shared with the workload's other kernels of the same weight layout), as an inference
// framework reorders constant weights once: a kernel bound to a caller's buffers reads the
// weights as they were when bound.
class ConvBoundKernel : public BoundKernel {
 public:
  ConvBoundKernel(const ConvKernel& kernel, ConvWorkload& workload, int threads)
      : kernel_(kernel), workload_(workload), threads_(threads) {
    pack();
  }
  void run() override {
    workload_.advance();
    const size_t set = workload_.current_set();
    // Operands rotated since the bind are other tensors: pack theirs (runs check the source).
    if (set >= packs_.size() || (packs_[set] && packs_[set]->source != workload_.tensors().w))
      pack();
    kernel_.run(workload_.conv(), workload_.tensors(), threads_, packs_[set].get());
  }
  std::string verify() override { return workload_.check_output(); }

 private:
  void pack() {
    packs_.clear();
    for (size_t set = 0; set < workload_.set_count(); ++set)
      packs_.push_back(workload_.packed_weights(kernel_, set));
  }

  const ConvKernel& kernel_;
  ConvWorkload& workload_;
  int threads_;
  std::vector<std::shared_ptr<const cpu::PackedWeights>> packs_;
};

// Why `k` cannot run `p`: the one answer of the op's unsupported_reason, by name or through a
// catalogue.
std::string unsupported_reason(const ConvKernel& k, const Problem& p) {
  return k.unsupported_reason(p);
}

// Scratch memory of `k` running `p` with the default team (omp_get_max_threads(), the most
// workers a run takes unless told otherwise): the seam's question has no thread count, each
// worker gathers and packs its own blocks, and two_stage keeps one partial weight gradient per
// worker, so the answer is an upper bound for runs with fewer threads.
double workspace_bytes(const ConvKernel& k, const Problem& p) {
  return k.workspace_bytes(p, omp_get_max_threads());
}

class ConvOperation : public Operation {
 public:
  std::string_view name() const override { return "conv"; }

  const Capabilities& capabilities() const override {
    static const Capabilities caps{};
    return caps;
  }

  // Native problems and imported ones (measured elsewhere, naming their device) alike: the
  // op stores both, and its CPU kernels refuse what they cannot run (unsupported_reason).
  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    return canonical_text(text, source);
  }

  std::vector<std::string> problem_columns() const override {
    return {"n",           "c",     "k",     "g",      "di",          "hi",
            "wi",          "z",     "y",     "x",      "do",          "ho",
            "wo",          "pad_d", "pad_h", "pad_w",  "stride_d",    "stride_h",
            "stride_w",    "dil_d", "dil_h", "dil_w",  "pad_right_d", "pad_right_h",
            "pad_right_w", "dir",   "dtype", "layout", "bias",        "device"};
  }

  // Its kernels are the configurations of its rule sets; a MIOpen solver or a CK GPU kernel
  // imported under conv is not one.
  bool owns_kernel(std::string_view kernel) const override {
    return ConvConfig::from_name(kernel).has_value();
  }

  std::unique_ptr<features::FeatureEngine> make_feature_engine(
      const HardwareProfile& hardware, const nlohmann::json&) const override {
    return std::make_unique<ConvFeatureEngine>(hardware);
  }

  ReportGroups report_groups(std::string_view problem, std::string_view picked,
                             int cores) const override {
    return conv::report_groups(problem, picked, cores);
  }

  std::vector<std::string> shape_families() const override { return conv::shape_families(); }

  // The request's fields as conv reads them: shapes.h, generate_problems (kept out of this
  // file, whose every change alters the measured-code fingerprint).
  std::vector<std::string> generate_problems(const ShapeRequest& request) const override {
    return conv::generate_problems(request);
  }

  std::vector<std::string> kernel_names(std::string_view set,
                                        const KeyValues& filter) const override {
    return union_of_sets(
        set, [&](std::string_view one) { return matching_names(rule_set(one), filter, "conv"); });
  }

  // The GPU rule files (rules/conv_gfx942.json, conv_gfx950.json) list CK's kernels by name.
  std::vector<std::string> check_target_rules(const rules::RuleSets& sets) const override {
    return check_ck_names(sets);
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
    const Problem p = parse_stored_problem(problem);
    if (!p.dir) return kernels;  // an imported problem without a direction: no kernel runs it
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
    return conv::unsupported_reason(kernels_.get(kernel), parse_stored_problem(problem));
  }

  std::unique_ptr<KernelCatalogue> catalogue(std::vector<std::string> kernels) const override {
    std::vector<const ConvKernel*> built;
    built.reserve(kernels.size());
    for (const auto& name : kernels) built.push_back(&kernels_.get(name));  // InputError
    using Catalogue = BuiltKernelCatalogue<ConvKernel, Problem>;
    return std::make_unique<Catalogue>(
        std::move(kernels), std::move(built),
        Catalogue::Answers{[](std::string_view text) { return parse_stored_problem(text); },
                           &conv::unsupported_reason, &conv::workspace_bytes});
  }

  // The two read tensors as placed and as float values (while the reference is computed), the
  // result, the double reference, the K-split partial results (up to 8 parts) and each thread's
  // gathered and packed blocks (bounded by the read tensors), and the packed weights (the read
  // tensors again, for a few weight layouts).
  double workload_bytes(std::string_view problem) const override {
    const Problem p = parse_native_problem(problem);
    const Roles r = roles(*p.dir);
    const double read = double(elements(p, r.first) + elements(p, r.second));
    const double result = double(elements(p, r.result));
    return bytes_per_element(p) * read + 4 * read + 4 * result + 8 * result + 4 * 8 * result +
           4 * read + 4 * 4 * read;
  }

  std::vector<std::string> operand_names(std::string_view problem) const override {
    return conv::operand_names(*parse_native_problem(problem).dir);
  }

  // Per direction (operand_names): forward input, weight -> output; backward data output_grad,
  // weight -> input_grad; backward weight input, output_grad -> weight_grad. Tensors in CK's
  // dense layouts (input NHWGC / NDHWGC, weight GKYXC / GKZYXC, output NHWGK / NDHWGK, a
  // gradient as its tensor); read ones hold the problem's dtype (fp32, or bf16 as 16-bit
  // patterns), the written one is fp32, overwritten.
  std::unique_ptr<Workload> wrap_buffers(std::string_view problem,
                                         std::span<void* const> operands) const override {
    const Problem p = parse_native_problem(problem);
    check_operands(conv::operand_names(*p.dir), operands);
    return std::make_unique<CallerConvWorkload>(p, operands);
  }

  std::unique_ptr<Workload> make_workload(std::string_view problem, unsigned seed) const override {
    return std::make_unique<GeneratedConvWorkload>(parse_native_problem(problem), seed);
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
