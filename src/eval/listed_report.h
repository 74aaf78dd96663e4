#pragma once
// The strict protocol's report (eval/listed_protocol.h): top1, unlisted picks and efficiency
// overall and per context, the baseline's alongside, the worst picks and every pick; as a text
// table, JSON and CSV.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/listed_selectors.h"

namespace kselect::eval {

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

// A pick judged against its problem's listed times.
struct ListedOutcome {
  std::string context;
  bool hit = false, tie = false, unlisted = false;
  double efficiency = 0, slowdown = 0;
  ListedPick pick;
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

// Fills `report`'s statistics, picks and worst picks from the selector's outcomes and the
// baseline's (one each per problem).
void summarize_outcomes(const std::vector<ListedOutcome>& outcomes,
                        const std::vector<ListedOutcome>& baseline, ListedReport& report);

std::string listed_report_text(const ListedReport& report);
// Every pick as CSV (problem, context, fold, picked, best, listed, unlisted, efficiency,
// baseline): the rows behind the report, for finding what the selector confuses.
std::string listed_picks_csv(const ListedReport& report);

}  // namespace kselect::eval
