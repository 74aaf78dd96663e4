#pragma once
// One measured (problem, kernel) pair as the learning stages see it, whatever its source
// (a kselect sweep or an imported file).
#include <string>
#include <vector>

namespace kselect::data {

struct Measurement {
  std::string op;       // "gemm"
  std::string problem;  // canonical problem text, e.g. "m=128,n=256,k=64,layout=rcr,dtype=fp32"
  std::string kernel;   // kernel name
  bool valid = false;   // false: unsupported or failed; `reason` says why
  std::string reason;
  double median_ms = 0, min_ms = 0, mean_ms = 0, stddev_ms = 0;
  double ci_low_ms = 0, ci_high_ms = 0;  // 95% interval of the median over the kept repeats
  double tflops = 0;                     // from the median time
  double bandwidth_gb_s = 0;             // from the median time
  long run_id = 0;
  // Sweep details, filled when read from a kselect store (empty for imported data).
  std::vector<double> repeats_ms;  // every timed repeat, in measurement order
  bool verified = false;           // the output was checked against a reference
  double load1 = 0;                // 1-minute load average when the problem was measured
  double other_cpu = 0;            // CPUs used by other processes meanwhile
};

}  // namespace kselect::data
