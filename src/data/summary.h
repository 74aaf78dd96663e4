#pragma once
// Quick views of stored measurements for people: the fastest kernel of each problem.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"

namespace kselect::data {

struct ProblemBest {
  std::string op, problem;
  std::string kernel;  // empty when no kernel ran the problem
  double median_ms = 0, tflops = 0, bandwidth_gb_s = 0;
  int valid = 0, invalid = 0;             // kernels measured / recorded unsupported or failed
  double speedup_over_median_kernel = 0;  // median of the valid kernels' times / best time
};

// One row per (op, problem), in first-seen order.
std::vector<ProblemBest> best_per_problem(const std::vector<Measurement>& rows);
nlohmann::json to_json(const std::vector<ProblemBest>& best);
std::string format_table(const std::vector<ProblemBest>& best);

}  // namespace kselect::data
