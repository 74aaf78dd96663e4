#include "eval/listed_problem.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/key_values.h"
#include "eval/imported_problems.h"

namespace kselect::eval {

namespace {

// The problem's (dir, dtype) for the report: layout is context for candidates but would split
// the table too finely, except a 3-D layout (NCDHW, NDHWC: its depth letter D): 3-D problems
// have their own solvers and get their own rows.
std::string report_context(const std::string& problem) {
  KeyValues kv = KeyValues::parse(problem), out;
  for (const char* key : {"dir", "dtype"})
    if (auto v = kv.get(key)) out.set(key, *v);
  if (auto layout = kv.get("layout"); layout && layout->find('D') != std::string::npos)
    out.set("layout", *layout);
  return out.to_string();
}

ListedProblem listed_problem(const ImportedProblem& imported) {
  ListedProblem p;
  p.text = imported.text;
  p.context = report_context(imported.text);
  p.rows = imported.timed;
  for (const data::Measurement* m : imported.timed) p.listed.push_back({m->kernel, m->median_ms});
  std::stable_sort(p.listed.begin(), p.listed.end(),
                   [](const ListedKernel& a, const ListedKernel& b) { return a.ms < b.ms; });
  p.best_ms = p.listed.front().ms;
  p.slowest_ms = p.listed.back().ms;
  return p;
}

}  // namespace

double ListedProblem::time_of(const std::string& kernel) const {
  for (const auto& l : listed)
    if (l.kernel == kernel) return l.ms;
  return std::nan("");
}

std::vector<ListedProblem> collect_listed_problems(const std::vector<data::Measurement>& rows,
                                                   long& skipped) {
  std::vector<ListedProblem> out;
  skipped = 0;
  for (const auto& [text, imported] : collect_imported_problems(rows)) {
    if (imported.timed.empty())
      ++skipped;
    else
      out.push_back(listed_problem(imported));
  }
  if (out.empty())
    throw InputError("", 0, "op",
                     "no imported problem (kernels measured elsewhere) with a valid listed "
                     "time: import a find-db first (kselect import miopen-fdb)");
  return out;
}

}  // namespace kselect::eval
