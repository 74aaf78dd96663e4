#pragma once
// One measured (problem, kernel) pair as the learning stages see it, whatever its source
// (a kselect sweep or an imported file).
#include <string>

namespace kselect::data {

struct Measurement {
  std::string op;       // "gemm"
  std::string problem;  // canonical problem text, e.g. "m=128,n=256,k=64,layout=rcr,dtype=fp32"
  std::string kernel;   // kernel name
  bool valid = false;   // false: unsupported or failed; `reason` says why
  std::string reason;
  double median_ms = 0, min_ms = 0, mean_ms = 0, stddev_ms = 0;
  double ci_low_ms = 0, ci_high_ms = 0;  // 95% interval of the median over the kept repeats
  double tflops = 0;          // from the median time
  double bandwidth_gb_s = 0;  // from the median time
  long run_id = 0;
};

}  // namespace kselect::data
