#pragma once
// One measured (problem, kernel) pair as the learning stages see it, whatever its source
// (a kselect sweep or an imported file).
#include <optional>
#include <string>
#include <vector>

namespace kselect::data {

struct Measurement {
  std::string op;       // "gemm"
  std::string problem;  // canonical problem text, e.g. "m=128,n=256,k=64,layout=rcr,dtype=fp32"
  std::string kernel;   // kernel name
  bool valid = false;   // false: unsupported or failed; `reason` says why
  std::string reason;
  // median_ms is the row's time: the median of its repeats as stored, their minimum after
  // use_time_statistic(rows, TimeStatistic::kMin).
  double median_ms = 0, min_ms = 0, mean_ms = 0, stddev_ms = 0;
  double ci_low_ms = 0, ci_high_ms = 0;  // 95% interval of the median over the kept repeats
  double tflops = 0;                     // from the row's time
  double bandwidth_gb_s = 0;             // from the row's time
  long run_id = 0;
  // Sweep details, filled when read from a kselect store (empty for imported data).
  std::vector<double> repeats_ms;  // every timed repeat, in measurement order
  bool verified = false;           // the output was checked against a reference
  double load1 = 0;                // 1-minute load average when the problem was measured
  double other_cpu = 0;            // CPUs used by other processes meanwhile
};

// Which statistic of a kernel's timed repeats is its time for training and evaluation. The
// median is the sweep's; the minimum (the fastest repeat) suits a shared machine, where other
// work only ever slows a run, so the fastest repeat is the one least disturbed by it and the
// steadier estimate of what the kernel itself takes.
// A minimum falls with the number of repeats, so kernels measured more often
// (contender rounds) gain a little over the rest.
enum class TimeStatistic { kMedian, kMin };

// "median" or "min"; nullopt for any other name.
std::optional<TimeStatistic> find_time_statistic(const std::string& name);
// The same, with an InputError naming `field` for an unknown name.
TimeStatistic parse_time_statistic(const std::string& name, const std::string& field);
std::string to_string(TimeStatistic statistic);

// Makes the chosen statistic each valid row's time: with kMin a row with a minimum (min_ms > 0;
// imported rows have none and keep theirs) takes it as median_ms, its TFLOPS and bandwidth
// scaled to match. kMedian leaves the rows as stored.
void use_time_statistic(std::vector<Measurement>& rows, TimeStatistic statistic);

}  // namespace kselect::data
