#include "core/hardware.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

namespace kselect {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// sysfs cache sizes look like "48K" or "32768K" or "1M".
int parse_cache_kib(const std::string& text) {
  if (text.empty()) return 0;
  int value = std::atoi(text.c_str());
  if (text.back() == 'M') value *= 1024;
  return value;
}

void read_caches(HardwareProfile& h) {
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::string level = read_first_line(dir + "level");
    if (level.empty()) break;
    std::string type = read_first_line(dir + "type");
    int kib = parse_cache_kib(read_first_line(dir + "size"));
    if (level == "1" && type == "Data") h.l1d_kib = kib;
    if (level == "2") h.l2_kib = kib;
    if (level == "3") h.l3_kib = kib;
  }
}

void read_cpuinfo(HardwareProfile& h) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags, physical_ids, core_ids;
  static const std::set<std::string> kInteresting = {
      "sse4_2",   "avx",      "avx2",     "fma",         "f16c",        "avx512f",
      "avx512bw", "avx512vl", "avx512dq", "avx512_bf16", "avx512_vnni", "avx512_fp16",
      "amx_tile", "amx_bf16", "amx_int8", "avx_vnni"};
  std::string physical_id;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && h.cpu_model.empty()) h.cpu_model = value;
    if (key == "vendor_id" && h.vendor.empty()) h.vendor = value;
    if (key == "cpu MHz" && h.max_mhz == 0) h.max_mhz = std::atof(value.c_str());
    if (key == "physical id") physical_id = value, physical_ids.insert(value);
    if (key == "core id") core_ids.insert(physical_id + ":" + value);
    if (key == "flags" && flags.empty()) {
      std::istringstream words(value);
      std::string w;
      while (words >> w)
        if (kInteresting.count(w)) flags.insert(w);
    }
  }
  h.isa.assign(flags.begin(), flags.end());
  h.sockets = std::max<int>(1, int(physical_ids.size()));
  h.physical_cores = std::max<int>(1, int(core_ids.size()));
}

HardwareProfile detect() {
  HardwareProfile h;
  read_cpuinfo(h);
  read_caches(h);
  std::string max_khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!max_khz.empty()) h.max_mhz = std::atof(max_khz.c_str()) / 1000.0;
  cpu_set_t set;
  CPU_ZERO(&set);
  h.logical_cpus = sched_getaffinity(0, sizeof(set), &set) == 0
                       ? CPU_COUNT(&set)
                       : int(sysconf(_SC_NPROCESSORS_ONLN));
  return h;
}

}  // namespace

bool HardwareProfile::has(const std::string& flag) const {
  return std::find(isa.begin(), isa.end(), flag) != isa.end();
}

std::string HardwareProfile::summary() const {
  std::string best = has("avx512_bf16") ? "avx512_bf16"
                     : has("avx512f")   ? "avx512"
                     : has("avx2")      ? "avx2"
                                        : "scalar";
  return cpu_model + "/" + std::to_string(logical_cpus) + "c/" + best;
}

const HardwareProfile& host_hardware() {
  static const HardwareProfile profile = detect();
  return profile;
}

namespace {
// The first number in `path` (a cgroup file); nullopt for "max", a missing or unreadable file.
std::optional<double> file_number(const char* path) {
  std::ifstream in(path);
  double value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}
}  // namespace

double available_memory_bytes() {
  double available = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    double kib = 0;
    meminfo >> kib;
    meminfo.ignore(64, '\n');
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
  }
  const auto limit = file_number("/sys/fs/cgroup/memory.max");
  const auto used = file_number("/sys/fs/cgroup/memory.current");
  if (limit && used) {
    const double room = std::max(0.0, *limit - *used);
    available = available > 0 ? std::min(available, room) : room;
  }
  return available;
}

void to_json(nlohmann::json& j, const HardwareProfile& h) {
  j = nlohmann::json{{"cpu_model", h.cpu_model},
                     {"vendor", h.vendor},
                     {"logical_cpus", h.logical_cpus},
                     {"physical_cores", h.physical_cores},
                     {"sockets", h.sockets},
                     {"max_mhz", h.max_mhz},
                     {"l1d_kib", h.l1d_kib},
                     {"l2_kib", h.l2_kib},
                     {"l3_kib", h.l3_kib},
                     {"isa", h.isa}};
}

void from_json(const nlohmann::json& j, HardwareProfile& h) {
  h.cpu_model = j.value("cpu_model", "");
  h.vendor = j.value("vendor", "");
  h.logical_cpus = j.value("logical_cpus", 1);
  h.physical_cores = j.value("physical_cores", 1);
  h.sockets = j.value("sockets", 1);
  h.max_mhz = j.value("max_mhz", 0.0);
  h.l1d_kib = j.value("l1d_kib", 0);
  h.l2_kib = j.value("l2_kib", 0);
  h.l3_kib = j.value("l3_kib", 0);
  h.isa = j.value("isa", std::vector<std::string>{});
}

}  // namespace kselect
