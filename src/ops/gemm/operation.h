#pragma once
#include "ops/operation.h"

namespace kselect::gemm {
// The GEMM operation: CPU kernels from rules/gemm_cpu.json.
const Operation& operation();
}  // namespace kselect::gemm
