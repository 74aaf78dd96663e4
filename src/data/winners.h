#pragma once
// Each problem's fastest kernel, for data that may lack TFLOPS (imported times alone): the
// definition the fitted feature state counts its winners with, and out-of-fold evaluation
// recounts them with.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "data/measurement.h"

namespace kselect::data {

// Throughput-like speed of a row, higher is faster: TFLOPS when known, else 1 / time; NaN
// without either.
double speed(const Measurement& m);

// The valid rows with a finite speed, by problem.
using RowsByProblem = std::map<std::string, std::vector<const Measurement*>>;
RowsByProblem valid_rows_by_problem(std::span<const Measurement* const> rows);

// The fastest of `rows` (not empty).
const Measurement* fastest(const std::vector<const Measurement*>& rows);

// Problem -> its fastest valid kernel, for every problem with a valid row.
std::map<std::string, std::string> problem_winners(std::span<const Measurement* const> rows);

}  // namespace kselect::data
