#include "ops/cpu_gemm_core/isa.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/error.h"

namespace kselect::kernels {

std::string_view to_string(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx512Bf16:
      return "avx512_bf16";
  }
  return "?";
}

namespace {

Isa cpu_isa() {
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (avx512 && __builtin_cpu_supports("avx512bf16")) return Isa::kAvx512Bf16;
  if (avx512) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
  return Isa::kScalar;
}

}  // namespace

Isa detect_isa() {
  static const Isa cpu = cpu_isa();
  const char* cap = std::getenv("KSELECT_ISA");
  if (!cap || !*cap) return cpu;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16})
    if (to_string(isa) == cap) return std::min(isa, cpu);
  throw InputError(
      "", 0, "KSELECT_ISA",
      "unknown value '" + std::string(cap) + "' (expected scalar, avx2, avx512 or avx512_bf16)");
}

}  // namespace kselect::kernels
