#include <stdexcept>

#include "core/error.h"
#include "core/text.h"
#include "ops/conv/operation.h"
#include "ops/gemm/operation.h"
#include "ops/generic/operation.h"
#include "ops/operation.h"

namespace kselect {

namespace {
// One line per operation.
const std::vector<const Operation*>& operations() {
  static const std::vector<const Operation*> ops = {&gemm::operation(), &generic::operation(),
                                                    &conv::operation()};
  return ops;
}
}  // namespace

const Operation& default_operation() {
  return *operations().front();
}

const Operation* lookup_operation(std::string_view name) {
  for (const Operation* op : operations())
    if (op->name() == name) return op;
  return nullptr;
}

const Operation& find_operation(std::string_view name) {
  if (const Operation* op = lookup_operation(name)) return *op;
  throw InputError(
      "", 0, "op",
      "unknown operation '" + std::string(name) + "' (known: " + join(operation_names()) + ")");
}

const Operation& imported_data_operation() {
  for (const Operation* op : operations())
    if (op->capabilities().learns_from_any_op) return *op;
  throw std::logic_error("no registered operation learns from imported data");
}

const Operation& learning_operation(const Operation& data_op,
                                    const std::vector<std::string>& kernels) {
  for (const std::string& kernel : kernels)
    if (!data_op.owns_kernel(kernel)) return imported_data_operation();
  return data_op;
}

bool is_imported_kernel(std::string_view op, std::string_view kernel) {
  const Operation* found = lookup_operation(op);
  return !found || !found->owns_kernel(kernel);
}

std::vector<std::string> operation_names() {
  std::vector<std::string> names;
  for (const Operation* op : operations()) names.emplace_back(op->name());
  return names;
}

}  // namespace kselect
