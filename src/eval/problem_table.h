#pragma once
// The measured side of an evaluation (eval/evaluate.h): each problem's valid rows by kernel,
// and its oracle. Shared by the report and the noise ceilings (eval/noise_ceilings.h).
#include <map>
#include <string>
#include <vector>

#include "data/measurement.h"

namespace kselect::eval {

using KernelRows = std::map<std::string, const data::Measurement*>;  // valid rows by kernel name

struct ProblemRows {
  std::string op;
  KernelRows valid;
};

using ProblemTable = std::map<std::string, ProblemRows>;  // by problem text

// Every problem of `measurements` (listed even when nothing is valid: counted as skipped) with
// its valid rows of positive time; when a pair was measured more than once, the row with the
// highest run_id. The table points into `measurements`.
ProblemTable index_measurements(const std::vector<data::Measurement>& measurements);

// Highest TFLOPS; ties go to the faster median, then to the first kernel name. Null when
// `rows` is empty.
const data::Measurement* oracle_of(const KernelRows& rows);

}  // namespace kselect::eval
