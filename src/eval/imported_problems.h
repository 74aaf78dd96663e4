#pragma once
// Imported data (rows whose kernels their op does not own, is_imported_kernel in
// ops/operation.h; the registry's imported-data operation learns from them) as the protocols
// that train their own models per split read it: each problem's rows with a usable time, the
// kernels measured for it and its best time. Shared by the strict protocol (eval/listed_problem.h)
// and transfer (eval/transfer.h).
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/measurement.h"

namespace kselect::eval {

// Whether a measurement was imported (is_imported_kernel), asked once per (op, kernel): a
// find-db has a few dozen solvers over hundreds of thousands of rows.
class ImportedRows {
 public:
  bool operator()(const data::Measurement& m);

 private:
  std::map<std::string, std::map<std::string, bool, std::less<>>, std::less<>> imported_;
};

struct ImportedProblem {
  std::string text;
  std::vector<const data::Measurement*> timed;  // valid rows of a finite time > 0, input order
  std::set<std::string> measured;               // kernels of every row, valid or failed
  double best_ms = 0;                           // the fastest timed row's; 0 without one
};

// Every imported problem of `rows` by problem text, those without a timed row included (the
// caller decides whether they count as skipped). Points into `rows`.
std::map<std::string, ImportedProblem> collect_imported_problems(
    const std::vector<data::Measurement>& rows);

}  // namespace kselect::eval
