#include "data/winners.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kselect::data {

double speed(const Measurement& m) {
  if (m.tflops > 0) return m.tflops;
  return m.median_ms > 0 ? 1.0 / m.median_ms : std::numeric_limits<double>::quiet_NaN();
}

RowsByProblem valid_rows_by_problem(std::span<const Measurement* const> rows) {
  RowsByProblem problems;
  for (const auto* m : rows)
    if (m->valid && std::isfinite(speed(*m))) problems[m->problem].push_back(m);
  return problems;
}

const Measurement* fastest(const std::vector<const Measurement*>& rows) {
  return *std::max_element(rows.begin(), rows.end(),
                           [](auto* a, auto* b) { return speed(*a) < speed(*b); });
}

std::map<std::string, std::string> problem_winners(std::span<const Measurement* const> rows) {
  std::map<std::string, std::string> out;
  for (const auto& [problem, ms] : valid_rows_by_problem(rows)) out[problem] = fastest(ms)->kernel;
  return out;
}

}  // namespace kselect::data
