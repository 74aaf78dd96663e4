#include "features/problem_rows.h"

#include "core/text.h"

namespace kselect::features {

std::string ProblemRows::dtypes_present() const {
  return join(dtype_counts, [](const auto& held) {
    return held.first + " (" + std::to_string(held.second) + ")";
  });
}

ProblemRows group_by_problem(std::span<const data::Measurement> rows, const FeatureEngine& engine,
                             const std::string& op, const std::string& dtype) {
  ProblemRows grouped;
  for (const auto& m : rows) {
    if (m.op != op) continue;
    const std::string row_dtype = engine.dtype(m.problem);
    ++grouped.dtype_counts[row_dtype];
    if (!dtype.empty() && row_dtype != dtype) continue;
    ++grouped.rows;
    if (m.valid) grouped.by_problem[m.problem].push_back(&m);
  }
  return grouped;
}

void extract_measured(const FeatureEngine& engine, const std::string& problem,
                      const std::vector<const data::Measurement*>& measured,
                      std::span<const int> columns, float* out) {
  std::vector<std::string> kernels;
  kernels.reserve(measured.size());
  for (const auto* m : measured) kernels.push_back(m->kernel);
  engine.extract_rows(problem, *engine.prepare(kernels), columns, out);
}

}  // namespace kselect::features
