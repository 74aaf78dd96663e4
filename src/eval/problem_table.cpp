#include "eval/problem_table.h"

namespace kselect::eval {

ProblemTable index_measurements(const std::vector<data::Measurement>& measurements) {
  ProblemTable table;
  for (const auto& m : measurements) {
    auto& rows = table[m.problem];  // listed even when nothing is valid: counted as skipped
    if (rows.op.empty()) rows.op = m.op;
    if (!m.valid || !(m.median_ms > 0)) continue;
    auto [it, inserted] = rows.valid.emplace(m.kernel, &m);
    if (!inserted && m.run_id >= it->second->run_id) it->second = &m;
  }
  return table;
}

const data::Measurement* oracle_of(const KernelRows& rows) {
  const data::Measurement* best = nullptr;
  for (const auto& [kernel, m] : rows)
    if (!best || m->tflops > best->tflops ||
        (m->tflops == best->tflops && m->median_ms < best->median_ms))
      best = m;
  return best;
}

}  // namespace kselect::eval
