#pragma once
// CK's twelve hw_* features, filled from a CPU's HardwareProfile. CK describes a GPU; the CPU
// analogue of each field is chosen so that the same feature names keep their meaning
// (docs/features.md has the table and the reasoning).
#include <array>
#include <string>

#include "core/hardware.h"

namespace kselect::features {

inline constexpr int kHardwareFeatureCount = 12;

// CK's names, in CK's order.
const std::array<std::string, kHardwareFeatureCount>& hardware_feature_names();

struct HardwareFeatures {
  double num_cus = 1;           // cores this process may use (logical CPUs in the affinity set)
  double simds_per_cu = 1;      // vector FMA pipes per core: 2 with AVX2/AVX-512, else 1
  double total_simds = 1;       // num_cus * simds_per_cu
  double shader_engines = 1;    // sockets
  double max_clock_mhz = 0;     // maximum core clock
  double max_waves_per_cu = 1;  // hardware threads per core (SMT)
  double wavefront_size = 1;    // fp32 lanes of the widest vector unit: 16 AVX-512, 8 AVX2
  double lds_capacity = 0;      // L1d bytes per core: the small, fast per-core scratch
  double l1_kb = 0, l2_kb = 0, l3_kb = 0;
  double num_xcd = 1;  // L3 domains (one per socket here)
  // Not one of CK's features: vdpbf16ps (avx512_bf16) multiplies bf16 K pairs; without it bf16
  // kernels widen to fp32. The GEMM cycle estimate needs it.
  bool bf16_dot = false;

  std::array<double, kHardwareFeatureCount> values() const;
};

HardwareFeatures hardware_features(const HardwareProfile& hw);

}  // namespace kselect::features
