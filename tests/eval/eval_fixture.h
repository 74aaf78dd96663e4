#pragma once
// Hand-built measurements and predictions with known answers for the evaluation tests.
#include <string>
#include <vector>

#include "data/measurement.h"
#include "eval/evaluate.h"

namespace kselect::eval::fixture {

// A row whose TFLOPS follow from its time (TFLOPS = 10 / ms), so faster means
// more TFLOPS, as in real data. The CI is +-1% of the median unless given.
inline data::Measurement row(const std::string& problem, const std::string& kernel, double ms,
                             bool valid = true, double ci_half = 0.01) {
  data::Measurement m;
  m.op = "gemm";
  m.problem = problem;
  m.kernel = kernel;
  m.valid = valid;
  m.median_ms = ms;
  m.ci_low_ms = ms * (1 - ci_half);
  m.ci_high_ms = ms * (1 + ci_half);
  m.tflops = valid ? 10.0 / ms : 0.0;
  m.bandwidth_gb_s = valid ? 100.0 / ms : 0.0;
  m.run_id = 1;
  return m;
}

// Predictions that rank `kernels` in the given order (first = highest predicted TFLOPS).
inline std::vector<Prediction> ranking(const std::string& problem,
                                       const std::vector<std::string>& kernels) {
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    out.push_back({problem, kernels[i], 100.0 - double(i), 100.0 - double(i)});
  return out;
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

inline EvalOptions options_with_cores(int cores) {
  EvalOptions o;
  o.cores = cores;
  return o;
}

// A problem with kernels A (1 ms, the oracle) and B (1 + regret ms); the model ranks B first
// when `pick_slow`.
struct Data {
  std::vector<data::Measurement> rows;
  std::vector<Prediction> predictions;
  void add_pair(const std::string& problem, double regret, bool pick_slow = true) {
    rows.push_back(row(problem, "A", 1.0));
    rows.push_back(row(problem, "B", 1.0 + regret));
    append(predictions, ranking(problem, pick_slow ? std::vector<std::string>{"B", "A"}
                                                   : std::vector<std::string>{"A", "B"}));
  }
  EvalReport run(EvalOptions options = options_with_cores(2)) const {
    return evaluate(rows, predictions, options);
  }
};

}  // namespace kselect::eval::fixture
