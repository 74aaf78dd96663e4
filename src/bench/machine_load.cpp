#include "bench/machine_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace kselect::bench {

namespace {

double system_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)) return 0;
  return double(user + nice + system + irq + softirq + steal) / double(sysconf(_SC_CLK_TCK));
}

double self_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

double load_average_1min() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return in ? load : 0.0;
}

OtherCpuMeter::OtherCpuMeter()
    : system_busy_s_(system_busy_seconds()),
      self_s_(self_cpu_seconds()),
      start_(std::chrono::steady_clock::now()) {}

double OtherCpuMeter::lap() {
  double busy = system_busy_seconds(), self = self_cpu_seconds();
  auto now = std::chrono::steady_clock::now();
  double wall = std::chrono::duration<double>(now - start_).count();
  double others = wall > 0 ? ((busy - system_busy_s_) - (self - self_s_)) / wall : 0.0;
  system_busy_s_ = busy, self_s_ = self, start_ = now;
  // /proc/stat counts in clock ticks, so a short lap can read a tick more or less than was
  // used: never more CPUs than the machine has online, nor fewer than none.
  const double cpus = double(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  return std::clamp(others, 0.0, cpus);
}

}  // namespace kselect::bench
