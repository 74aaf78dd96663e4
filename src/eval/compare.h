#pragma once
// Model comparison with CK's acceptance rule (ck-heuristics.md section 7): a candidate is
// accepted when its mean and median efficiency are within 0.5 points of the baseline's, its
// P10 within 2 points, and no single problem drops by more than 10 points. Both runs are joined
// by problem text; statistics are recomputed over the problems they share.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/stats.h"

namespace kselect::eval {

// The per-problem part of a `kselect eval --json` report.
struct EvalRun {
  struct Problem {
    double efficiency = 0;
    std::string picked;
  };
  std::map<std::string, Problem> problems;
};

// Reads `per_problem` [{problem, efficiency, picked}, ...]; throws InputError naming `source`
// and the offending field (e.g. "per_problem[3].efficiency").
EvalRun run_from_json(const nlohmann::json& j, const std::string& source);
// Reads and parses the file at `path`; InputError when unreadable or malformed.
EvalRun load_run(const std::string& path);

// Limits in efficiency points (1 point = 0.01 of efficiency).
struct CompareOptions {
  double mean_points = 0.5;
  double median_points = 0.5;
  double p10_points = 2.0;
  double drop_points = 10.0;  // largest allowed drop of one problem
  double same_points = 0.5;   // |change| up to this counts as "same"
};

// One rule: passes when delta = candidate - baseline (points) >= limit (a negative number).
struct Criterion {
  std::string name;
  double baseline = 0, candidate = 0, delta = 0, limit = 0;
  bool pass = false;
};

struct CompareResult {
  long common = 0, only_baseline = 0, only_candidate = 0;
  Summary baseline, candidate;      // over the common problems
  std::vector<Criterion> criteria;  // mean, median, p10, max_problem_drop
  long improved = 0, same = 0, degraded = 0;
  double agreement = 0;  // share of common problems where both pick the same kernel
  struct Drop {
    std::string problem;
    double baseline = 0, candidate = 0;
  };
  std::vector<Drop> drops;  // problems dropping more than the limit, largest drop first
  bool accepted = false;
};

// Throws InputError when the runs share no problem.
CompareResult compare(const EvalRun& baseline, const EvalRun& candidate,
                      const CompareOptions& options = {});

void to_json(nlohmann::json& j, const CompareResult& r);
std::string format_comparison(const CompareResult& r);

}  // namespace kselect::eval
