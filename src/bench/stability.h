#pragma once
// Run-to-run stability: the same shapes measured in fresh processes should crown the same
// winner, up to ties.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "ops/operation.h"

namespace kselect::bench {

struct Winner {
  std::string kernel;             // the tie set's first kernel by name
  double median_ms = 0;           // of the fastest kernel
  std::vector<std::string> ties;  // kernels tied with the fastest, sorted by name
};

// The winner among the valid rows of one problem: every kernel within `tie_band` (relative)
// of the fastest median, or whose 95% interval overlaps the fastest's, ties with it; the tie
// is broken by kernel name so the choice does not depend on noise inside the band.
Winner pick_winner(const std::vector<data::Measurement>& rows, double tie_band);

struct ShapeStability {
  std::string problem;
  std::vector<Winner> winners;  // one per process
  int flips = 0;                // process pairs whose winners differ outside each other's ties
  int comparisons = 0;
};

struct StabilityReport {
  std::vector<ShapeStability> shapes;
  long flips = 0, comparisons = 0;
  double flip_rate = 0;  // flips / comparisons
  nlohmann::json to_json() const;
  void print_table(std::ostream& out) const;
};

// `per_process[p]` holds all rows measured by process p.
StabilityReport analyse_stability(const std::vector<std::vector<data::Measurement>>& per_process,
                                  double tie_band);

struct StabilityOptions {
  std::string exe = "/proc/self/exe";  // the kselect binary
  std::string op{default_operation().name()}, rules = "tiny", shapes_csv, work_dir;
  int processes = 3, warmup = 3, repeat = 10, threads = 1;
  double tie_band = 0.02;
};

// Runs `kselect bench` once per process, each into its own database under work_dir, then
// analyses the winners. Throws InputError if a child fails (its log is named).
StabilityReport run_stability(const StabilityOptions& options, std::ostream& log);

}  // namespace kselect::bench
