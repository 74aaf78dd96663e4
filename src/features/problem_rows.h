#pragma once
// Measurements grouped by problem: the unit a feature batch is extracted for. Training
// (model/train.cpp) and feature tables (features/table.cpp) both start here, so a table shows
// the rows, in the order, that a model trains on.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "data/measurement.h"
#include "features/engine.h"

namespace kselect::features {

struct ProblemRows {
  // Valid rows of the op and dtype, by problem (problem order; rows in input order).
  std::map<std::string, std::vector<const data::Measurement*>> by_problem;
  // Rows of the op per dtype, valid or not: what the data holds, for error messages.
  std::map<std::string, int> dtype_counts;
  // Rows of the op and dtype, valid or not.
  std::size_t rows = 0;

  // "bf16 (12), fp32 (40)": the dtypes of dtype_counts with their row counts.
  std::string dtypes_present() const;
};

// Groups the rows of operation `op` (and `dtype`; "" = every dtype) by problem.
ProblemRows group_by_problem(std::span<const data::Measurement> rows, const FeatureEngine& engine,
                             const std::string& op, const std::string& dtype);

// Writes the features `columns` of one problem's measured kernels to `out`
// (measured.size() rows of columns.size() floats), through FeatureEngine::extract_rows.
void extract_measured(const FeatureEngine& engine, const std::string& problem,
                      const std::vector<const data::Measurement*>& measured,
                      std::span<const int> columns, float* out);

}  // namespace kselect::features
