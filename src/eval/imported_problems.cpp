#include "eval/imported_problems.h"

#include <cmath>

#include "ops/operation.h"

namespace kselect::eval {

bool ImportedRows::operator()(const data::Measurement& m) {
  auto& of_op = imported_[m.op];
  auto it = of_op.find(m.kernel);
  if (it == of_op.end()) it = of_op.emplace(m.kernel, is_imported_kernel(m.op, m.kernel)).first;
  return it->second;
}

std::map<std::string, ImportedProblem> collect_imported_problems(
    const std::vector<data::Measurement>& rows) {
  std::map<std::string, ImportedProblem> by_text;
  ImportedRows is_imported;
  for (const auto& m : rows) {
    if (!is_imported(m)) continue;
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
