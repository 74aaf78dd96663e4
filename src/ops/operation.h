#pragma once
// The seam between pipeline stages and operations. Sweeps, storage, training, evaluation and
// selection are written once against this interface; each operation (src/ops/<op>/) implements
// it and registers itself in src/ops/registry.cpp.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"

namespace kselect {

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

class Operation {
 public:
  virtual ~Operation() = default;
  virtual std::string_view name() const = 0;

  // Parses and validates problem text ("m=..,n=.."); returns the canonical form.
  // Throws InputError naming `source` and the field.
  virtual std::string canonical_problem(std::string_view text, const std::string& source) const = 0;
  // The problem's fields, in order: the columns of a shape CSV and of the store.
  virtual std::vector<std::string> problem_columns() const = 0;

  // Kernel names of rule set `set`; `filter` restricts fields (e.g. dtype=bf16). Throws
  // InputError for an unknown set.
  virtual std::vector<std::string> kernel_names(std::string_view set,
                                                const KeyValues& filter) const = 0;
  // All configuration fields of a kernel, plus "name".
  virtual nlohmann::json kernel_fields(std::string_view kernel) const = 0;
  // Why `kernel` cannot run `problem`; "" when it can.
  virtual std::string unsupported_reason(std::string_view kernel,
                                         std::string_view problem) const = 0;

  // The order in which kselect tries `kernels` for `problem` when it has no model: the first
  // one that runs the problem is the no-model ("default") pick. The base order is the given one.
  virtual std::vector<std::string> heuristic_order(std::string_view problem,
                                                   std::vector<std::string> kernels) const {
    (void)problem;
    return kernels;
  }

  virtual std::unique_ptr<Workload> make_workload(std::string_view problem,
                                                  unsigned seed) const = 0;
  // Binds a supported kernel to a workload; throws InputError if it does not support it.
  virtual std::unique_ptr<BoundKernel> bind(std::string_view kernel, Workload& workload,
                                            int threads) const = 0;
};

// The registered operations; find_operation throws InputError listing the known names.
const Operation& find_operation(std::string_view name);
std::vector<std::string> operation_names();

}  // namespace kselect
