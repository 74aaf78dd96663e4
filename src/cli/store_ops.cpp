#include "cli/store_ops.h"

#include <algorithm>

#include "core/error.h"
#include "core/text.h"
#include "ops/operation.h"

namespace kselect::cli {

HardwareProfile run_hardware(const data::Store& store, const std::string& op) {
  const auto runs = store.runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->op == op && it->hardware.is_object() && !it->hardware.empty())
      return it->hardware.get<HardwareProfile>();
  return host_hardware();
}

void choose_ops(const data::Store& store, std::string& op, std::string& data_op) {
  const auto ops = store.ops();
  if (ops.empty()) throw InputError(store.path(), 0, "op", "the database holds no measurements");
  const bool held = std::find(ops.begin(), ops.end(), op) != ops.end();
  if (op.empty() || (!held && find_operation(op).capabilities().learns_from_any_op)) {
    if (ops.size() != 1)
      throw InputError(
          store.path(), 0, "op",
          "the database holds several operations (" + join(ops) + "): choose one with --op");
    data_op = ops.front();
  } else {
    data_op = op;
  }
  const Operation* stored = lookup_operation(data_op);
  if (!stored) {  // rows of an op this kselect does not have: only a generic learner reads them
    if (op.empty() || op == data_op) op = std::string(imported_data_operation().name());
    return;
  }
  // Imported rows of an op (MIOpen's convolutions under conv) hold kernels the op's own
  // features cannot describe: the op that learns from any op's data fits them.
  std::vector<std::string> kernels;
  for (const auto& [kernel, config] : store.kernel_configs(data_op)) kernels.push_back(kernel);
  const Operation& learner = learning_operation(*stored, kernels);
  if (op.empty()) {
    op = std::string(learner.name());
  } else if (&learner != stored && op == data_op) {
    const auto foreign = std::find_if(kernels.begin(), kernels.end(), [&](const auto& kernel) {
      return !stored->owns_kernel(kernel);
    });
    throw InputError(store.path(), 0, "op",
                     "the " + data_op + " rows hold kernels measured elsewhere and imported ('" +
                         *foreign + "' is not one of " + data_op + "'s own), which only --op " +
                         std::string(learner.name()) + " learns from (or leave --op out)");
  }
}

}  // namespace kselect::cli
