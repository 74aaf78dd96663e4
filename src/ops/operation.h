#pragma once
// The seam between pipeline stages and operations. Sweeps, storage, training, evaluation and
// selection are written once against this interface; each operation (src/ops/<op>/) implements
// it and registers itself in src/ops/registry.cpp.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "core/key_values.h"
#include "data/measurement.h"
#include "features/engine.h"

namespace kselect {

namespace rules {
class RuleSets;
}

// A problem with its buffers allocated and filled with deterministic data.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual const std::string& problem() const = 0;  // canonical problem text
  virtual double flops() const = 0;
  virtual double bytes() const = 0;  // minimum memory traffic
  // Keep `copies` copies of the operands; every later call of a kernel bound to this workload
  // uses the next one, so a copy comes round again only after the others have pushed it out of
  // the caches (the sweep's rotate_above_kib). 1: a single set, as made.
  virtual void rotate_operands(int copies) = 0;
};

// One kernel bound to one workload.
class BoundKernel {
 public:
  virtual ~BoundKernel() = default;
  virtual void run() = 0;  // executes the kernel once; no allocation inside
  // Checks the output of the last run() against a reference: "" if correct, else why not.
  virtual std::string verify() = 0;
};

// The kernels of one candidate set, parsed once (Operation::catalogue). Selection holds one
// per model and asks it which kernels support a problem by index: no name is looked up or
// parsed again per problem, and the problem is parsed once per question, not once per kernel.
class KernelCatalogue {
 public:
  static constexpr std::size_t npos = std::size_t(-1);
  explicit KernelCatalogue(std::vector<std::string> names);
  virtual ~KernelCatalogue() = default;

  const std::vector<std::string>& names() const { return names_; }
  std::size_t size() const { return names_.size(); }
  const std::string& name(std::size_t index) const { return names_[index]; }
  // The index of `kernel`, npos when the catalogue lacks it.
  std::size_t find(std::string_view kernel) const;

  // Why kernel `index` cannot run `problem` (canonical text); "" when it can.
  virtual std::string unsupported_reason(std::size_t index, std::string_view problem) const = 0;
  // The indices of the kernels that can run `problem`, in catalogue order.
  virtual std::vector<std::uint32_t> supported(std::string_view problem) const;
  // Scratch memory (bytes) kernel `index` allocates beyond the problem's operands to run
  // `problem`: packed panels, split-K partial sums. 0 when it needs none (or cannot run it).
  // Where scratch is per worker thread (gemm, conv) it is counted for the op's default team,
  // omp_get_max_threads() workers: a bound for runs with fewer.
  virtual double workspace_bytes(std::size_t index, std::string_view problem) const {
    (void)index, (void)problem;
    return 0;
  }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, std::size_t> index_;  // views into names_
};

// What an operation can do. Generic layers branch on these, never on the operation's name.
struct Capabilities {
  // Kernel names come from rule sets (kernel_names): selection ranks a set's supported kernels,
  // a model may carry a shortlist of them, the no-model pick is the first kernel of the
  // "default" set in heuristic_order, and models of the op can join a blend. False: the
  // candidates are the kernels the model's fitted feature state saw in training
  // (FeatureEngine::candidates), and the no-model pick is the one that won most often there.
  bool kernels_from_rule_sets = true;
  // Every measurement of the op carries its FLOPs, so TFLOPS is a target. False: imported data
  // may hold times alone, and a model then learns latency.
  bool always_has_flops = true;
  // The op's feature engine is fitted from training data (fit_feature_state), which needs the
  // kernels' configurations from the store.
  bool fits_feature_state = false;
  // The op learns from measurements stored under another op's name (a database of imported
  // convolutions trains a generic model).
  bool learns_from_any_op = false;
  // XGBoost's column sample per tree when training does not set one.
  double default_colsample = 0.8;
};

// What `kselect shapes` asks of an operation that generates problem families.
struct ShapeRequest {
  std::string family;
  int count = 20;
  unsigned seed = 1;
  double max_gflop = 2.0;
  std::vector<std::string> dtypes;   // spread round-robin; empty: the op's default
  std::vector<std::string> layouts;  // the same; "all": every layout
};

// How evaluation groups one evaluated problem: (slice, bucket) pairs, and the regret strata it
// falls in ("all" always first).
struct ReportGroups {
  std::vector<std::pair<std::string, std::string>> slices;
  std::vector<std::string> strata{"all"};
};

class Operation {
 public:
  virtual ~Operation() = default;
  virtual std::string_view name() const = 0;
  virtual const Capabilities& capabilities() const = 0;

  // Parses and validates problem text ("m=..,n=.."); returns the canonical form.
  // Throws InputError naming `source` and the field.
  virtual std::string canonical_problem(std::string_view text, const std::string& source) const = 0;
  // The problem's fields, in order: the columns of a shape CSV and of the store.
  virtual std::vector<std::string> problem_columns() const = 0;

  // Kernel names of rule set `set`; `filter` restricts fields (e.g. dtype=bf16). Throws
  // InputError for an unknown set.
  virtual std::vector<std::string> kernel_names(std::string_view set,
                                                const KeyValues& filter) const = 0;
  // The rule file whose sets kernel_names reads, enumerated (its valid space and named sets),
  // for searching configurations that no set lists; null when the op's kernels do not come
  // from rule sets. The base: the embedded rule file that declares this op (its "op" field)
  // for the native target (rules::kNativeTarget; files for other targets list kernels this op
  // cannot run).
  virtual const rules::RuleSets* rule_sets() const;
  // Problems with a built-in rule file that declares this op for another target (a GPU's CK
  // kernels, listed by `kselect configs --arch` but not run here): each configuration's name
  // must read back through the op's codec of that target's kernel names to the fields it came
  // from. `kselect rules check` reports them. The base: one problem (the op reads no other
  // target's kernel names).
  virtual std::vector<std::string> check_target_rules(const rules::RuleSets& sets) const;
  // All configuration fields of a kernel, plus "name".
  virtual nlohmann::json kernel_fields(std::string_view kernel) const = 0;
  // Why `kernel` cannot run `problem`; "" when it can.
  virtual std::string unsupported_reason(std::string_view kernel,
                                         std::string_view problem) const = 0;
  // Whether `kernel` is one of the op's own kernels (one its rule sets name and its feature
  // engine describes), not one measured elsewhere and imported under the op (a MIOpen solver
  // stored under conv). Only imported_data_operation() learns from the others. The base: every
  // kernel is the op's own.
  virtual bool owns_kernel(std::string_view kernel) const {
    (void)kernel;
    return true;
  }

  // `kernels` parsed once, for repeated support questions (KernelCatalogue). InputError naming
  // a kernel that is not one of the op's. The base answers through unsupported_reason by name.
  virtual std::unique_ptr<KernelCatalogue> catalogue(std::vector<std::string> kernels) const;

  // The order in which kselect tries `kernels` for `problem` when it has no model: the first
  // one that runs the problem is the no-model ("default") pick. The base order is the given one.
  virtual std::vector<std::string> heuristic_order(std::string_view problem,
                                                   std::vector<std::string> kernels) const {
    (void)problem;
    return kernels;
  }

  // The feature engine filling hw_* features from `hardware`. `state` is the fitted state of an
  // op whose features are learnt from data (Capabilities::fits_feature_state: required there);
  // other ops ignore it. InputError for a missing or malformed state.
  // The base: InputError (an op that kselect only measures has no feature engine).
  virtual std::unique_ptr<features::FeatureEngine> make_feature_engine(
      const HardwareProfile& hardware, const nlohmann::json& state = nullptr) const;
  // The fitted feature state: `rows` are the training measurements, `kernel_configs` the
  // kernels' parameters, `encoding` the category-code order ("target" or "alphabetical"). Null
  // for ops with fixed schemas.
  virtual nlohmann::json fit_feature_state(
      std::span<const data::Measurement* const> rows,
      const std::map<std::string, nlohmann::json>& kernel_configs,
      const std::string& encoding = "target") const {
    (void)rows, (void)kernel_configs, (void)encoding;
    return nullptr;
  }
  // `state` with the parameters of kernels it does not know yet added (kernels of held-out data
  // or of a warm start's new data; codes unchanged). Unchanged for ops with fixed schemas.
  virtual nlohmann::json extend_feature_state(
      const nlohmann::json& state,
      const std::map<std::string, nlohmann::json>& kernel_configs) const {
    (void)kernel_configs;
    return state;
  }

  // The feature engine for training on `rows`: the fitted state when the op fits one
  // (fit_feature_state), then make_feature_engine.
  std::unique_ptr<features::FeatureEngine> fitted_feature_engine(
      const HardwareProfile& hardware, std::span<const data::Measurement* const> rows,
      const std::map<std::string, nlohmann::json>& kernel_configs,
      const std::string& encoding = "target") const;

  // Problems of a named family, for sweeps; InputError when the op has no shape families.
  virtual std::vector<std::string> generate_problems(const ShapeRequest& request) const;
  virtual std::vector<std::string> shape_families() const { return {}; }

  // Slices and strata of an evaluated problem whose pick was `picked`, on a machine of `cores`
  // cores. The base: the "all" stratum only.
  virtual ReportGroups report_groups(std::string_view problem, std::string_view picked,
                                     int cores) const {
    (void)problem, (void)picked, (void)cores;
    return {};
  }

  // Host memory a workload of `problem` and the kernels bound to it need at most (operands,
  // reference values, packing and partial sums), so a sweep can refuse a problem the machine
  // cannot hold before allocating it. 0: the op does not know.
  virtual double workload_bytes(std::string_view problem) const {
    (void)problem;
    return 0;
  }
  // The operands of `problem` in the order wrap_buffers takes them ("a", "b", "c" for
  // GEMM), empty when the op cannot run on a caller's memory.
  virtual std::vector<std::string> operand_names(std::string_view problem) const {
    (void)problem;
    return {};
  }
  // A workload over the caller's operands (operand_names order; element type the problem's
  // dtype, though an output may be wider: gemm and conv write fp32 for bf16 inputs; layout as
  // the problem says): kernels bound to it read and write the caller's memory, and verify()
  // checks the output against a reference computed from the caller's inputs. InputError
  // naming the operand for a null pointer or a wrong count. The base: InputError (the op
  // cannot run on a caller's memory).
  virtual std::unique_ptr<Workload> wrap_buffers(std::string_view problem,
                                                 std::span<void* const> operands) const;
  virtual std::unique_ptr<Workload> make_workload(std::string_view problem,
                                                  unsigned seed) const = 0;
  // Binds a supported kernel to a workload; throws InputError if it does not support it. A
  // kernel may prepare constant operands when bound (conv packs its weights, as inference
  // frameworks reorder weights once): bind again after changing a caller's weights.
  virtual std::unique_ptr<BoundKernel> bind(std::string_view kernel, Workload& workload,
                                            int threads) const = 0;
};

// The registered operations; find_operation throws InputError listing the known names.
const Operation& find_operation(std::string_view name);
// The op a command works on when none is named: the first registered, which kselect measures
// with its own CPU kernels.
const Operation& default_operation();
// The same, or null for a name no operation has (data stored under a foreign op's name).
const Operation* lookup_operation(std::string_view name);
std::vector<std::string> operation_names();
// The operation that learns from imported measurements: the registered op whose capabilities
// say it learns from any op's data (Capabilities::learns_from_any_op). Imported rows are stored
// under the op whose problems they are (conv for MIOpen's and CK's convolutions), or under this
// op when no op has their problems; their kernels are ones kselect cannot run (GPU kernels,
// other libraries'), which only this op models. The strict and transfer protocols evaluate it.
const Operation& imported_data_operation();
// The op that learns from `data_op`'s measurements of `kernels` (what `kselect train` and
// `kselect features` fit when no --op is given): data_op itself when every kernel is its own
// (Operation::owns_kernel), else imported_data_operation().
const Operation& learning_operation(const Operation& data_op,
                                    const std::vector<std::string>& kernels);
// Whether a measurement of `kernel` stored under `op` was imported: its op is not registered or
// does not own the kernel. The strict and transfer protocols evaluate these rows.
bool is_imported_kernel(std::string_view op, std::string_view kernel);

}  // namespace kselect
