#pragma once
// The machine a measurement ran on. Recorded with every sweep run and mapped onto CK's hw_*
// features by the feature engine.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kselect {

struct HardwareProfile {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  std::string vendor;     // "AuthenticAMD", "GenuineIntel", ...
  int logical_cpus = 1;   // usable by this process (sched_getaffinity)
  int physical_cores = 1;
  int sockets = 1;
  double max_mhz = 0;                       // sysfs cpuinfo_max_freq, else /proc/cpuinfo "cpu MHz"
  int l1d_kib = 0, l2_kib = 0, l3_kib = 0;  // per core (L1, L2) and total shared (L3)
  std::vector<std::string>
      isa;  // subset of: avx2 fma avx512f avx512bw avx512vl avx512_bf16 amx_tile ...
  bool has(const std::string& flag) const;
  // Compact stable text for keys, e.g. "AMD EPYC/2c/avx512_bf16".
  std::string summary() const;
};

// Reads the profile of this machine once (cpuid/proc/sysfs); cheap after the first call.
const HardwareProfile& host_hardware();

// Bytes of memory the machine can give this process now without swapping: the smaller of
// /proc/meminfo's MemAvailable and the cgroup's limit less its usage (a container's memory
// limit). Read on every call, since it changes; 0 when nothing can be read.
double available_memory_bytes();

void to_json(nlohmann::json& j, const HardwareProfile& h);
void from_json(const nlohmann::json& j, HardwareProfile& h);

}  // namespace kselect
