#include "eval/imported_problems.h"

#include <cmath>

#include "ops/operation.h"

namespace kselect::eval {

std::map<std::string, ImportedProblem> collect_imported_problems(
    const std::vector<data::Measurement>& rows) {
  std::map<std::string, ImportedProblem> by_text;
  for (const auto& m : rows) {
    if (m.op != imported_data_operation().name()) continue;
    ImportedProblem& p = by_text[m.problem];
    p.text = m.problem;
    p.measured.insert(m.kernel);
    if (!(m.valid && m.median_ms > 0 && std::isfinite(m.median_ms))) continue;
    p.timed.push_back(&m);
    if (p.best_ms == 0 || m.median_ms < p.best_ms) p.best_ms = m.median_ms;
  }
  return by_text;
}

}  // namespace kselect::eval
