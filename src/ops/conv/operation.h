#pragma once
#include "ops/operation.h"

namespace kselect::conv {
// The grouped-convolution operation: CPU kernels from rules/conv_cpu.json.
const Operation& operation();
}  // namespace kselect::conv
