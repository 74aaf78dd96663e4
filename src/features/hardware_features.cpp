#include "features/hardware_features.h"

#include <algorithm>

namespace kselect::features {

const std::array<std::string, kHardwareFeatureCount>& hardware_feature_names() {
  static const std::array<std::string, kHardwareFeatureCount> names = {
      "hw_num_cus",       "hw_simds_per_cu",     "hw_total_simds",    "hw_shader_engines",
      "hw_max_clock_mhz", "hw_max_waves_per_cu", "hw_wavefront_size", "hw_lds_capacity",
      "hw_l1_cache_kb",   "hw_l2_cache_kb",      "hw_l3_cache_kb",    "hw_num_xcd"};
  return names;
}

std::array<double, kHardwareFeatureCount> HardwareFeatures::values() const {
  return {
      num_cus,        simds_per_cu, total_simds, shader_engines, max_clock_mhz, max_waves_per_cu,
      wavefront_size, lds_capacity, l1_kb,       l2_kb,          l3_kb,         num_xcd};
}

HardwareFeatures hardware_features(const HardwareProfile& hw) {
  HardwareFeatures f;
  f.num_cus = std::max(1, hw.logical_cpus);
  // Every x86 core with AVX2 or AVX-512 since Haswell/Zen has two vector FMA pipes; cpuid
  // does not report the count, so it follows from the ISA.
  bool vector_fma = hw.has("avx2") || hw.has("avx512f");
  f.simds_per_cu = vector_fma ? 2 : 1;
  f.total_simds = f.num_cus * f.simds_per_cu;
  f.shader_engines = std::max(1, hw.sockets);
  f.max_clock_mhz = hw.max_mhz;
  // Hardware threads per core; logical_cpus is the affinity set, so it is capped at 2 (SMT2).
  f.max_waves_per_cu = hw.logical_cpus > hw.physical_cores ? 2 : 1;
  f.wavefront_size = hw.has("avx512f") ? 16 : hw.has("avx2") ? 8 : 1;
  f.lds_capacity = double(hw.l1d_kib) * 1024.0;
  f.l1_kb = hw.l1d_kib;
  f.l2_kb = hw.l2_kib;
  f.l3_kb = hw.l3_kib;
  f.num_xcd = std::max(1, hw.sockets);
  f.bf16_dot = hw.has("avx512_bf16");
  return f;
}

}  // namespace kselect::features
