#include "ops/cpu_gemm_core/isa.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.h"

namespace kselect::kernels {
namespace {

TEST(Isa, EnvironmentCapsButNeverRaises) {
  unsetenv("KSELECT_ISA");
  const Isa cpu = detect_isa();
  for (Isa cap : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16}) {
    setenv("KSELECT_ISA", std::string(to_string(cap)).c_str(), 1);
    EXPECT_EQ(detect_isa(), std::min(cap, cpu)) << to_string(cap);
  }
  setenv("KSELECT_ISA", "avx1024", 1);
  EXPECT_THROW(detect_isa(), InputError);
  unsetenv("KSELECT_ISA");
  EXPECT_EQ(detect_isa(), cpu);
}

}  // namespace
}  // namespace kselect::kernels
