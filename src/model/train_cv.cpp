#include "model/train_cv.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

#include "core/csv.h"
#include "core/stats.h"
#include "model/file_io.h"
#include "model/folds.h"
#include "model/train_prior.h"
#include "model/train_shortlist.h"

namespace kselect::model {

OofCsv::OofCsv(std::string target, bool shortlist)
    : target_(std::move(target)),
      csv_(shortlist ? "problem,kernel,fold,predicted,measured,shortlisted\n"
                     : "problem,kernel,fold,predicted,measured\n"),
      shortlist_(shortlist) {}

void OofCsv::add(const data::Measurement& row, int fold, double predicted, bool shortlisted) {
  char number[64];
  std::snprintf(number, sizeof number, ",%d,%.9g,%.9g", fold, predicted,
                target_value(row, target_));
  csv_ += csv_quote(row.problem) + "," + csv_quote(row.kernel) + number;
  csv_ += shortlist_ ? (shortlisted ? ",1\n" : ",0\n") : "\n";
}

void OofCsv::write(const std::filesystem::path& dir) const {
  write_file(dir / ("oof_" + target_ + ".csv"), csv_);
}

void FoldResult::set_picks(const std::vector<double>& efficiencies) {
  valid_shapes = efficiencies.size();
  const PickStats stats = pick_stats(efficiencies);
  mean_efficiency = stats.mean;
  p10_efficiency = stats.p10;
  top1 = stats.top1;
}

std::vector<int> fold_of_rows(std::span<const std::string> groups,
                              const std::vector<std::size_t>& rows, int folds) {
  std::vector<std::string> row_groups;
  row_groups.reserve(rows.size());
  for (auto r : rows) row_groups.push_back(groups[r]);
  return group_k_fold(row_groups, folds);
}

FoldResult pick_result(const std::vector<std::string>& problems, const std::vector<double>& score,
                       const std::vector<double>& measured, const std::string& target) {
  FoldResult r;
  r.rmse = r.r2 = std::nan("");
  r.valid_rows = measured.size();
  r.set_picks(pick_efficiencies(problems, score, measured, higher_is_better(target)));
  return r;
}

namespace {

// `listed`: per row, whether the shortlist holds its kernel (null: no shortlist). Selection
// ranks only those, unless none of the problem's kernels is listed (select::Ranker::shortlisted).
FoldResult score_rows(const Dataset& d, const std::vector<std::size_t>& rows,
                      const std::vector<double>& predicted, const std::string& target,
                      const TrainOptions& o, const std::vector<bool>* listed = nullptr) {
  std::vector<double> measured;
  std::vector<std::string> problems;
  for (auto i : rows) {
    measured.push_back(target_value(*d.rows[i], target));
    problems.push_back(d.rows[i]->problem);
  }
  // Higher score = pick; a regression on latency picks the lowest prediction.
  std::vector<double> score = predicted;
  for (double& s : score) s *= score_sign(o.objective, target);
  if (listed) {
    std::set<std::string> with_listed;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if ((*listed)[i]) with_listed.insert(problems[i]);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (!(*listed)[i] && with_listed.count(problems[i]))
        score[i] = -std::numeric_limits<double>::infinity();
  }
  FoldResult r = pick_result(problems, score, measured, target);
  // Fit quality in the target's own scale: the value for regression, the efficiency within the
  // problem for the efficiency objective; ranking scores have no scale.
  if (o.objective != Objective::kRanking) {
    Fit fit = fit_quality(predicted, o.objective == Objective::kEfficiency
                                         ? within_problem_efficiency(d, rows, target)
                                         : measured);
    r.rmse = fit.rmse;
    r.r2 = fit.r2;
  }
  return r;
}

}  // namespace

void cross_validate(const Dataset& d, const std::vector<std::size_t>& rows,
                    const std::vector<float>& labels, const std::vector<bool>& trains,
                    const std::string& target, const FeatureSpec& spec, const TrainOptions& o,
                    std::optional<std::size_t> prior_column, RoundProgress& progress,
                    TargetResult& result) {
  const std::vector<std::string>& names = spec.features;
  std::vector<int> fold_of = fold_of_rows(d.groups, rows, o.folds);
  std::vector<double> oof(rows.size());
  std::vector<std::set<std::string>> fold_shortlists(std::size_t(o.folds));
  // Whether fold f's shortlist (of its training rows) holds dataset row r's kernel.
  auto listed_in = [&](int f, std::size_t r) {
    return !uses_shortlist(o) || fold_shortlists[std::size_t(f)].count(d.rows[r]->kernel) > 0;
  };
  for (int f = 0; f < o.folds; ++f) {
    std::vector<std::size_t> train_rows, valid_rows, valid_pos;
    std::vector<float> train_labels, valid_labels;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      bool held_out = fold_of[i] == f;
      if (!held_out && !trains[i]) continue;
      (held_out ? valid_rows : train_rows).push_back(rows[i]);
      (held_out ? valid_labels : train_labels).push_back(labels[i]);
      if (held_out) valid_pos.push_back(i);
    }
    const std::optional<RowPrior> prior = fitted_prior(d, train_rows, train_labels, prior_column);
    if (uses_shortlist(o))
      fold_shortlists[std::size_t(f)] = shortlist_of(d, train_rows, target, o.shortlist);
    auto train_m = make_matrix(d, train_rows, train_labels, target, names, o, prior);
    auto valid_m = make_matrix(d, valid_rows, valid_labels, target, names, o, prior);
    std::string label = target + " fold " + std::to_string(f + 1) + "/" + std::to_string(o.folds);
    FoldFit fit = fit_fold(*train_m, *valid_m, o, progress, label);
    std::vector<double> predicted;
    for (std::size_t i = 0; i < valid_rows.size(); ++i) {
      predicted.push_back(spec.decode(target, fit.predictions[i]));
      oof[valid_pos[i]] = predicted.back();
    }
    std::vector<bool> valid_listed;
    for (auto r : valid_rows) valid_listed.push_back(listed_in(f, r));
    FoldResult fr = score_rows(d, valid_rows, predicted, target, o,
                               uses_shortlist(o) ? &valid_listed : nullptr);
    fr.fold = f;
    fr.train_rows = train_rows.size();
    fr.best_trees = fit.best_trees;
    result.folds.push_back(fr);
  }
  std::vector<bool> listed;
  for (std::size_t i = 0; i < rows.size(); ++i) listed.push_back(listed_in(fold_of[i], rows[i]));
  result.overall = score_rows(d, rows, oof, target, o, uses_shortlist(o) ? &listed : nullptr);
  result.overall.fold = -1;
  OofCsv csv(target, uses_shortlist(o));
  for (std::size_t i = 0; i < rows.size(); ++i)
    csv.add(*d.rows[rows[i]], fold_of[i], oof[i], listed[i]);
  csv.write(o.out_dir);
}

}  // namespace kselect::model
