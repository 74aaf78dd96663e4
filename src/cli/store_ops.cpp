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
    if (op.empty()) op = ops.front();
    return;
  }
  data_op = op;
}

}  // namespace kselect::cli
