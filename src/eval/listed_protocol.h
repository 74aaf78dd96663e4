#pragma once
// The strict protocol for data that lists only the fastest few kernels per problem (MIOpen's
// find-db; docs/evaluation.md, "Listed-only data"). A kernel that is not listed for a problem
// has an unknown time, so a selector is judged by cross-validation that ranks EVERY kernel seen
// in training for the problem's context (direction, dtype, layout), not just the listed ones:
//   - a pick that is not listed is a miss (counted in `unlisted`); its efficiency is taken as
//     best / slowest listed time, an upper bound;
//   - top1: the pick is the fastest listed kernel (or ties its time);
//   - slowdown: time(pick) / best - 1 (a lower bound for unlisted picks).
// Folds are grouped on the problem geometry (the generic engine's group key), so the same
// convolution never appears in training and test with another direction or dtype.
//
// Selectors ("methods"), all gradient-boosted trees on the generic op's features:
//   speed          regression of log time on the listed rows; every seen kernel is ranked by its
//                  predicted time (applicability is not learned);
//   applicability  the speed model plus a classifier of "is this kernel listed for this
//                  problem" trained on every (problem, seen kernel) pair: the pick is the
//                  fastest predicted kernel among those predicted listed (p >= 0.5);
//   joint          one pairwise ranking model over every (problem, seen kernel) pair: the
//                  listed kernels graded by their speed, unlisted ones lowest;
//   classify       a multi-class classifier of the fastest kernel from the problem's features
//                  alone (one row per problem), its most probable candidate is the pick.
// The baseline is the most frequent winner of the problem's context in the training folds.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "model/boosting_params.h"

namespace kselect::eval {

// The selectors above.
enum class ListedMethod { kSpeed, kApplicability, kJoint, kClassify };

// "speed", "applicability", "joint", "classify".
std::string to_string(ListedMethod method);
// The method named `name`; InputError naming `field` and listing the names otherwise.
ListedMethod parse_listed_method(std::string_view name, const std::string& field = "method");

struct ListedOptions {
  int folds = 5;
  ListedMethod method = ListedMethod::kClassify;
  // Every model's boosting (both of the applicability method's), `trees` rounds each.
  model::BoostingParams boosting = model::BoostingParams::strict_protocol();
  bool progress = false;  // progress line with ETA on stderr
  // top1_tie_band counts a listed pick within this relative time of the best as a hit (as
  // kselect eval's top1 does for measured data); top1 is exact.
  double tie_band = 0.02;
};

struct ListedStats {
  std::string context;  // "dir=F,dtype=fp32" ("" for the overall row)
  long problems = 0;
  double top1 = 0, unlisted = 0;  // fractions of problems
  double top1_tie_band = 0;       // listed picks within the tie band of the best
  double mean_slowdown = 0;       // mean of time(pick) / best - 1
  double mean_efficiency = 0, p10_efficiency = 0;
};

// One problem's pick under the strict protocol.
struct ListedPick {
  std::string problem, picked, best;  // picked "" when the context had no candidate
  bool unlisted = false;
  double efficiency = 0;   // best / time(pick); the slowest listed time when unlisted
  std::string context;     // the report context: dir, dtype (and a 3-D layout)
  int fold = 0;            // the cross-validation fold that held the problem out
  std::size_t listed = 0;  // kernels the data lists for the problem
  std::string baseline;    // the baseline's pick (most frequent winner of the context)
};

struct ListedReport {
  ListedMethod method = ListedMethod::kClassify;
  int folds = 0;
  double tie_band = 0;
  long problems = 0, rows = 0, kernels = 0;
  long skipped_no_time = 0;  // problems without a valid listed time
  ListedStats overall, baseline;
  std::vector<ListedStats> by_context, baseline_by_context;
  std::vector<ListedPick> worst;  // the 10 lowest-efficiency picks (unlisted first)
  std::vector<ListedPick> picks;  // every problem's pick, in problem order
  double train_seconds = 0;
  nlohmann::json to_json() const;
};

// Measurements of op "generic" (imported listed-only data), each problem's listed kernels;
// `kernel_configs` as stored (Store::kernel_configs). Throws InputError for unusable data
// (no generic rows, fewer geometries than folds).
ListedReport evaluate_listed(const std::vector<data::Measurement>& rows,
                             const std::map<std::string, nlohmann::json>& kernel_configs,
                             const ListedOptions& options);

std::string listed_report_text(const ListedReport& report);
// Every pick as CSV (problem, context, fold, picked, best, listed, unlisted, efficiency,
// baseline): the rows behind the report, for finding what the selector confuses.
std::string listed_picks_csv(const ListedReport& report);

}  // namespace kselect::eval
