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
// The selectors ("methods") and their baseline: eval/listed_selectors.h; the report:
// eval/listed_report.h; the problems as judged: eval/listed_problem.h.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "eval/listed_report.h"
#include "eval/listed_selectors.h"
#include "model/boosting_params.h"

namespace kselect::eval {

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

// Measurements of the imported-data operation (imported_data_operation(): listed-only data),
// each problem's listed kernels; `kernel_configs` as stored (Store::kernel_configs). Throws
// InputError for unusable data (no imported rows, fewer geometries than folds).
ListedReport evaluate_listed(const std::vector<data::Measurement>& rows,
                             const std::map<std::string, nlohmann::json>& kernel_configs,
                             const ListedOptions& options);

}  // namespace kselect::eval
