#pragma once
// A problem of listed-only data as the strict protocol (eval/listed_protocol.h) judges it: the
// kernels the data lists for it, fastest first. A kernel it does not list has no known time.
#include <string>
#include <vector>

#include "data/measurement.h"

namespace kselect::eval {

struct ListedKernel {
  std::string kernel;
  double ms = 0;
};

struct ListedProblem {
  std::string text;
  // The report's context: dir, dtype, and the layout of a 3-D problem.
  std::string context;
  std::vector<const data::Measurement*> rows;  // the listed rows, input order
  std::vector<ListedKernel> listed;            // fastest first
  double best_ms = 0, slowest_ms = 0;
  // The listed time of `kernel`; NaN when the data does not list it.
  double time_of(const std::string& kernel) const;
};

// The imported problems of `rows` with a valid listed time, in problem-text order; `skipped`
// counts the others. Points into `rows`. InputError when no problem has a listed time.
std::vector<ListedProblem> collect_listed_problems(const std::vector<data::Measurement>& rows,
                                                   long& skipped);

}  // namespace kselect::eval
