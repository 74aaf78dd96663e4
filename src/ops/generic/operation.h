#pragma once
#include "ops/operation.h"

namespace kselect::generic {
// The generic operation: measurements imported from elsewhere (docs/generic-op.md). kselect
// cannot run its kernels; it only learns from and selects among them.
const Operation& operation();
}  // namespace kselect::generic
