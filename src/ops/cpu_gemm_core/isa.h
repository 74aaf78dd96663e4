#pragma once
// Instruction-set levels of the CPU GEMM backend, chosen at run time from the CPU's features.
#include <string_view>

namespace kselect::kernels {

// Ordered: each level includes the ones before it.
enum class Isa { kScalar, kAvx2, kAvx512, kAvx512Bf16 };

std::string_view to_string(Isa isa);
// The best level this CPU supports, capped by KSELECT_ISA=scalar|avx2|avx512|avx512_bf16 when
// set (so tests and comparisons can run the fallbacks on a capable machine). Reads the
// environment on every call; an unknown KSELECT_ISA value throws InputError.
Isa detect_isa();

}  // namespace kselect::kernels
