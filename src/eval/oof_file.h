#pragma once
// Out-of-fold predictions written by training: <model dir>/oof_<target>.csv with the header
// problem,kernel,fold,predicted,measured (any column order; predicted and measured in the
// target's own scale), and an optional shortlisted column (0/1: whether the fold's shortlist
// held the kernel, model::TrainOptions::shortlist). Problem text contains commas, so it is normally
// quoted (RFC 4180); an unquoted problem is recovered too, since it is the only column that may
// contain commas.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "data/measurement.h"
#include "eval/evaluate.h"
#include "model/neighbours.h"
#include "model/objective.h"

namespace kselect::eval {

struct OofRow {
  std::string problem, kernel;
  int fold = 0;
  double predicted = 0, measured = 0;
  bool shortlisted = true;  // 1 when the file has no shortlisted column
};

// Maps problem text to its canonical form (e.g. Operation::canonical_problem); may throw
// InputError naming `source`.
using Canonicalizer = std::function<std::string(std::string_view text, const std::string& source)>;

// Throws InputError naming file:line:field for a missing column, a malformed number or a row
// with too few cells.
std::vector<OofRow> parse_oof_csv(const std::string& text, const std::string& source,
                                  const Canonicalizer& canonical = nullptr);
std::vector<OofRow> read_oof_csv(const std::string& path, const Canonicalizer& canonical = nullptr);

// Scores for ranking: `predicted` times model::score_sign (negated only for a regression on
// latency, where lower is better).
// A regression model's `predicted` is in the target's scale and also feeds R2/RMSE; a ranking
// model's is a relevance score and an efficiency model's a predicted efficiency, larger is
// better for both whatever the target (`objective` as in FeatureSpec).
std::vector<Prediction> to_predictions(const std::vector<OofRow>& rows, const std::string& target,
                                       model::Objective objective = model::Objective::kRegression);

// The out-of-fold predictions of a model with nearest training problems (model/neighbours.h):
// each score (of `predictions`, made from `rows` by to_predictions, in that order) becomes the
// blend of its log predicted speed and its kernel's neighbour score at the problem's stored
// position, from the training problems of the other folds (those the fold's model learned
// from), as selection scores them. A problem the table does not hold keeps its log speed.
void blend_neighbours(std::vector<Prediction>& predictions, const std::vector<OofRow>& rows,
                      const model::NeighbourTable& table);

// A blend's out-of-fold predictions (docs/model-format.md, "Blends") from its members' (each
// as to_predictions made them, members[i] weighing weights[i]): the (problem, kernel) pairs
// every member predicted, scored as select::Ranker scores a blend, the weighted sum of each
// member's log predicted speed minus that of its fastest-predicted kernel, with the later
// members scoring only the first member's best `survivors` (FeatureSpec::blend_survivors; 0:
// all). As in selection, a problem's shortlisted kernels and the rest are scored apart. A kernel
// is shortlisted when any member's fold listed it (a blend's shortlist is its members' union);
// `predicted` is the first member's (NaN unless a regression's), `speed` exp(score) (NaN beyond
// the survivors, as in selection).
std::vector<Prediction> blend_predictions(const std::vector<std::vector<Prediction>>& members,
                                          const std::vector<double>& weights,
                                          std::size_t survivors = 0);

// How well the file matches a database: rows whose (problem, kernel) is a valid measurement,
// and among those, rows whose `measured` differs by more than 0.1% from every valid
// measurement of the pair in the database.
struct OofMatch {
  long rows = 0, joined = 0, mismatched = 0;
};
OofMatch match_database(const std::vector<OofRow>& rows,
                        const std::vector<data::Measurement>& measurements,
                        const std::string& target);

}  // namespace kselect::eval
