#pragma once
// How busy the machine is while we measure: other processes' CPU use skews timings.
#include <chrono>

namespace kselect::bench {

// /proc/loadavg's 1-minute value; 0 when unreadable.
double load_average_1min();

// CPU time used by other processes over an interval: (all CPUs' busy time - this process's
// CPU time) / wall time, in CPUs. Cheap (/proc/stat and getrusage).
class OtherCpuMeter {
 public:
  OtherCpuMeter();
  // Others' CPU use since construction or the last call, and restarts the interval.
  double lap();

 private:
  double system_busy_s_ = 0, self_s_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kselect::bench
