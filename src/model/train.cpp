#include "model/train.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/csv.h"
#include "core/error.h"
#include "core/key_values.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/text.h"
#include "features/engine.h"
#include "features/problem_rows.h"
#include "model/booster_fit.h"
#include "model/classify.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "model/folds.h"
#include "model/forest.h"
#include "model/train_classify.h"
#include "model/xgboost.h"
#include "ops/operation.h"

namespace kselect::model {

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names = {"tflops", "latency", "bandwidth"};
  return names;
}

double target_value(const data::Measurement& m, const std::string& target) {
  if (target == "tflops") return m.tflops;
  if (target == "latency") return m.median_ms;
  if (target == "bandwidth") return m.bandwidth_gb_s;
  throw InputError("", 0, "target",
                   "unknown target '" + target + "' (expected tflops, latency or bandwidth)");
}

Loss training_loss(Objective objective) {
  switch (objective) {
    case Objective::kRanking:
      return Loss::kPairwise;
    case Objective::kClassify:
      return Loss::kSoftprob;
    case Objective::kRegression:
    case Objective::kEfficiency:
      return Loss::kSquaredError;
    case Objective::kBlend:
      break;
  }
  throw std::logic_error("model::training_loss: a blend is not trained");
}

double default_scale(const std::string& target) {
  return target == "bandwidth" ? 1.0 : 1e3;  // TFLOPS as GFLOPS, milliseconds as microseconds
}

bool has_usable_target(const data::Measurement& m, const std::string& target) {
  const double v = target_value(m, target);
  return std::isfinite(v) && v > 0;
}

int final_rounds(const TrainOptions& o, std::span<const int> fold_rounds) {
  if (o.final_trees > 0) return o.final_trees;
  if (fold_rounds.empty()) return o.boosting.trees;
  double mean_best = 0;
  for (int rounds : fold_rounds) mean_best += rounds;
  mean_best /= double(fold_rounds.size());
  const double scale = o.folds > 1 ? double(o.folds) / double(o.folds - 1) : 1.0;
  return std::clamp(int(std::lround(mean_best * scale)), 1, o.boosting.trees);
}

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

namespace {

// Valid rows of one op (and dtype), grouped by problem, with their feature rows (unless built
// without them).
struct Dataset {
  std::size_t cols = 0;
  std::vector<float> x;  // rows.size() x cols, row-major; empty when built without features
  std::vector<const data::Measurement*> rows;
  std::vector<std::string> groups;  // CV group key per row
  std::size_t data_rows = 0, unique_shapes = 0;
  std::string dtype;
};

// `with_features` false leaves d.x empty: the classify objective reads the rows and groups only
// (its classifier extracts problem features itself), which saves the memory and time of every
// row's features on a large import.
Dataset build_dataset(const std::vector<data::Measurement>& all, const TrainOptions& options,
                      const features::FeatureEngine& engine, const features::Schema& schema,
                      bool with_features) {
  Dataset d;
  const std::string& data_op = options.data_op.empty() ? options.op : options.data_op;
  const features::ProblemRows grouped =
      features::group_by_problem(all, engine, data_op, options.dtype);
  if (grouped.dtype_counts.empty())
    throw InputError("", 0, "op", "no measurements for operation '" + data_op + "'");
  if (grouped.rows == 0)
    throw InputError("", 0, "dtype",
                     "no measurements with dtype '" + options.dtype + "' (the data has " +
                         grouped.dtypes_present() + ")");
  d.data_rows = grouped.rows;
  d.dtype = !options.dtype.empty()             ? options.dtype
            : grouped.dtype_counts.size() == 1 ? grouped.dtype_counts.begin()->first
                                               : "any";
  std::vector<int> columns = engine.columns_of(schema.features, "schema " + schema.name);
  d.cols = columns.size();
  std::map<std::string, int> shapes;
  for (const auto& [problem, rows] : grouped.by_problem) {
    if (with_features) {
      std::size_t offset = d.x.size();
      d.x.resize(offset + rows.size() * d.cols);
      features::extract_measured(engine, problem, rows, columns, d.x.data() + offset);
    }
    std::string group = engine.group_key(problem);
    shapes[group] = 1;
    d.rows.insert(d.rows.end(), rows.begin(), rows.end());
    d.groups.insert(d.groups.end(), rows.size(), group);
  }
  d.unique_shapes = shapes.size();
  return d;
}

// Counts boosting rounds for the progress line (rate and ETA on stderr).
class RoundProgress {
 public:
  RoundProgress(const TrainOptions& options, long total)
      : line_("train", total, std::cerr, options.progress) {}
  void step(const std::string& what) { line_.update(++done_, what); }
  // Rounds that early stopping made unnecessary count as done.
  void skip(long rounds) { done_ += rounds; }
  long done() const { return done_; }
  void reach(long done, const std::string& what) {
    line_.update(done_ = std::max(done_, done), what);
  }
  void finish() { line_.finish(); }

 private:
  kselect::Progress line_;
  long done_ = 0;
};

// Each row's efficiency within its problem: value / best (best / value for times). `rows`
// hold whole problems (folds never split one), so the best is the problem's best.
std::vector<double> within_problem_efficiency(const Dataset& d,
                                              const std::vector<std::size_t>& rows,
                                              const std::string& target) {
  std::map<std::string, double> best;
  const bool higher = higher_is_better(target);
  for (auto r : rows) {
    double v = target_value(*d.rows[r], target);
    auto [it, fresh] = best.emplace(d.rows[r]->problem, v);
    if (!fresh) it->second = higher ? std::max(it->second, v) : std::min(it->second, v);
  }
  std::vector<double> efficiency;
  efficiency.reserve(rows.size());
  for (auto r : rows) {
    double v = target_value(*d.rows[r], target), b = best[d.rows[r]->problem];
    efficiency.push_back(higher ? v / b : b / v);
  }
  return efficiency;
}

// Labels of `rows` for one target: log1p(value) for regression; log(efficiency within the
// problem) for the efficiency objective; for ranking, relevance grades 0..30 from that
// efficiency (XGBoost's NDCG wants small integers).
std::vector<float> make_labels(const Dataset& d, const std::vector<std::size_t>& rows,
                               const std::string& target, const FeatureSpec& spec) {
  std::vector<float> labels;
  labels.reserve(rows.size());
  if (spec.objective == Objective::kRegression) {
    for (auto r : rows)
      labels.push_back(float(spec.encode(target, target_value(*d.rows[r], target))));
    return labels;
  }
  const bool grades = spec.objective == Objective::kRanking;
  for (double e : within_problem_efficiency(d, rows, target))
    labels.push_back(grades ? float(std::round(30.0 * e)) : float(std::log(e)));
  return labels;
}

// Regression row weights efficiency^near_best_weight, scaled to a mean of 1: the pick only
// depends on the order of the fast kernels, so errors on kernels far from a problem's best
// matter less.
std::vector<float> near_best_weights(const Dataset& d, const std::vector<std::size_t>& rows,
                                     const std::string& target, double exponent) {
  std::vector<double> raw;
  raw.reserve(rows.size());
  double sum = 0;
  for (double e : within_problem_efficiency(d, rows, target))
    sum += raw.emplace_back(std::pow(std::max(e, 0.01), exponent));
  // Scaled to a mean of 1, so min_child_weight keeps its meaning (a count of average rows).
  std::vector<float> weights;
  weights.reserve(raw.size());
  for (double w : raw) weights.push_back(float(w * double(raw.size()) / sum));
  return weights;
}

// The kernels within `tolerance` of the best measured speed of at least one problem of `rows`
// (TrainOptions::shortlist), sorted.
std::set<std::string> shortlist_of(const Dataset& d, const std::vector<std::size_t>& rows,
                                   const std::string& target, double tolerance) {
  std::set<std::string> kept;
  const std::vector<double> efficiency = within_problem_efficiency(d, rows, target);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (efficiency[i] >= 1.0 - tolerance) kept.insert(d.rows[rows[i]]->kernel);
  return kept;
}

// Per row of `rows`, whether it trains (TrainOptions::min_efficiency): its kernel reaches that
// fraction of its problem's best. `rows` hold whole problems, as within_problem_efficiency needs.
std::vector<bool> training_mask(const Dataset& d, const std::vector<std::size_t>& rows,
                                const std::string& target, const TrainOptions& o) {
  if (o.min_efficiency <= 0) return std::vector<bool>(rows.size(), true);
  std::vector<bool> trains;
  trains.reserve(rows.size());
  for (double e : within_problem_efficiency(d, rows, target))
    trains.push_back(e >= o.min_efficiency);
  return trains;
}

// Whether a model of these options carries a shortlist: every objective that orders a rule
// set's candidates (classify and generic models rank the kernels the model knows already).
bool uses_shortlist(const TrainOptions& o) {
  return o.shortlist >= 0 && o.objective != Objective::kClassify &&
         find_operation(o.op).capabilities().kernels_from_rule_sets;
}

// The target whose model orders selection (select::Ranker): tflops when trained, else the first.
std::string ordering_target(const std::vector<std::string>& targets) {
  for (const auto& t : targets)
    if (t == "tflops") return t;
  return targets.front();
}

// The final model's shortlist: its training rows' (TrainOptions::shortlist), and a warm
// start's continued model's too (the continued trees learned from those problems).
// A continued model without one (trained with --shortlist off, or before shortlists) keeps
// ranking every candidate: its trees learned from problems whose winners are unknown here.
void set_shortlist(FeatureSpec& spec, std::set<std::string> kernels, const TrainOptions& o,
                   const FeatureSpec* continued) {
  if (continued && continued->shortlist.empty()) return;
  double tolerance = o.shortlist;
  if (continued) {
    kernels.insert(continued->shortlist.begin(), continued->shortlist.end());
    tolerance = std::max(tolerance, continued->shortlist_tolerance);
  }
  spec.shortlist.assign(kernels.begin(), kernels.end());
  spec.shortlist_tolerance = tolerance;
}

// A target's prior on the dataset's rows: the column of its feature and the scale in use.
struct RowPrior {
  std::size_t column = 0;
  double scale = 1;
};

// The prior's scale that fits `rows`: the median of label value over feature value (both > 0),
// so prior_margin() is the label of a typical row. 1 when no row has both.
double fit_prior_scale(const Dataset& d, const std::vector<std::size_t>& rows,
                       const std::vector<float>& labels, std::size_t column) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const float x = d.x[rows[i] * d.cols + column];
    const double value = std::expm1(double(labels[i]));
    if (x > 0 && value > 0) ratios.push_back(value / double(x));
  }
  if (ratios.empty()) return 1;
  auto mid = ratios.begin() + std::ptrdiff_t(ratios.size() / 2);
  std::nth_element(ratios.begin(), mid, ratios.end());
  return *mid;
}

std::unique_ptr<xgb::Matrix> make_matrix(const Dataset& d, const std::vector<std::size_t>& rows,
                                         const std::vector<float>& labels,
                                         const std::string& target,
                                         const std::vector<std::string>& names,
                                         const TrainOptions& options,
                                         const std::optional<RowPrior>& prior) {
  std::vector<float> x(rows.size() * d.cols);
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::copy_n(d.x.data() + rows[i] * d.cols, d.cols, x.data() + i * d.cols);
  auto m = std::make_unique<xgb::Matrix>(x.data(), rows.size(), d.cols, options.boosting.threads);
  m->set_labels(labels);
  m->set_feature_names(names);
  if (prior) {
    std::vector<float> margins(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      margins[i] = prior_margin(prior->scale, x[i * d.cols + prior->column]);
    m->set_base_margin(margins);
  }
  if (options.objective == Objective::kRanking) {  // rows are grouped by problem: run lengths
    std::vector<unsigned> sizes;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i == 0 || d.rows[rows[i]]->problem != d.rows[rows[i - 1]]->problem) sizes.push_back(0);
      ++sizes.back();
    }
    m->set_groups(sizes);
  } else if (options.near_best_weight > 0) {
    m->set_weights(near_best_weights(d, rows, target, options.near_best_weight));
  }
  return m;
}

void set_params(xgb::Booster& b, const TrainOptions& o) {
  b.set_param("eval_metric", o.objective == Objective::kRanking ? "ndcg@3" : "rmse");
  set_boosting_params(b, o.boosting, training_loss(o.objective));
}

nlohmann::json params_json(const TrainOptions& o) {
  const BoostingParams& b = o.boosting;
  return {{"objective", xgboost_objective(training_loss(o.objective))},
          {"tree_method", "hist"},
          {"grow_policy", "lossguide"},
          {"max_leaves", b.max_leaves},
          {"max_depth", b.max_depth},
          {"eta", b.eta},
          {"subsample", b.subsample},
          {"colsample_bytree", b.colsample},
          {"lambda", b.lambda},
          {"alpha", b.alpha},
          {"min_child_weight", b.min_child_weight},
          {"trees", b.trees},
          {"final_trees", o.final_trees},
          {"near_best_weight", o.near_best_weight},
          {"min_efficiency", o.min_efficiency},
          {"parallel_trees", b.parallel_trees},
          {"prior", o.prior},
          {"shortlist", o.shortlist},
          {"early_stopping", o.early_stopping},
          {"folds", o.folds},
          {"seed", b.seed}};
}

// `listed`: per row, whether the shortlist holds its kernel (null: no shortlist). Selection
// ranks only those, unless none of the problem's kernels is listed (select::Ranker::shortlisted).
FoldResult score_rows(const Dataset& d, const std::vector<std::size_t>& rows,
                      const std::vector<double>& predicted, const std::string& target,
                      const TrainOptions& o, const std::vector<bool>* listed = nullptr) {
  FoldResult r;
  std::vector<double> measured;
  std::vector<std::string> problems;
  for (auto i : rows) {
    measured.push_back(target_value(*d.rows[i], target));
    problems.push_back(d.rows[i]->problem);
  }
  // Fit quality in the target's own scale: the value for regression, the efficiency within the
  // problem for the efficiency objective; ranking scores have no scale.
  if (o.objective == Objective::kRanking) {
    r.rmse = r.r2 = std::nan("");
  } else {
    Fit fit = fit_quality(predicted, o.objective == Objective::kEfficiency
                                         ? within_problem_efficiency(d, rows, target)
                                         : measured);
    r.rmse = fit.rmse;
    r.r2 = fit.r2;
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
  auto eff = pick_efficiencies(problems, score, measured, higher_is_better(target));
  r.valid_rows = rows.size();
  r.set_picks(eff);
  return r;
}

}  // namespace

void FoldResult::set_picks(const std::vector<double>& efficiencies) {
  valid_shapes = efficiencies.size();
  const PickStats stats = pick_stats(efficiencies);
  mean_efficiency = stats.mean;
  p10_efficiency = stats.p10;
  top1 = stats.top1;
}

namespace {

struct FoldFit {
  std::vector<float> predictions;
  int best_trees = 0;
};

// Boosts on `train` with early stopping on `valid`; predicts `valid` with the best prefix.
FoldFit fit_fold(const xgb::Matrix& train, const xgb::Matrix& valid, const TrainOptions& o,
                 RoundProgress& progress, const std::string& label) {
  xgb::Booster booster({&train, &valid});
  set_params(booster, o);
  bool maximize = o.objective == Objective::kRanking;
  double best = 0;
  int best_round = -1;
  const int trees = o.boosting.trees;
  for (int round = 0; round < trees; ++round) {
    booster.update(round, train);
    double value = booster.evaluate(round, valid, "valid");
    if (best_round < 0 || (maximize ? value > best : value < best))
      best = value, best_round = round;
    progress.step(label + " round " + std::to_string(round + 1) + "/" + std::to_string(trees));
    if (round - best_round >= o.early_stopping) {
      progress.skip(trees - round - 1);
      break;
    }
  }
  return {booster.predict(valid, best_round + 1), best_round + 1};
}

nlohmann::json fold_json(const FoldResult& f) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"fold", f.fold},
          {"train_rows", f.train_rows},
          {"valid_rows", f.valid_rows},
          {"valid_shapes", f.valid_shapes},
          {"best_trees", f.best_trees},
          {"rmse", num(f.rmse)},
          {"r2", num(f.r2)},
          {"mean_efficiency", num(f.mean_efficiency)},
          {"p10_efficiency", num(f.p10_efficiency)},
          {"top1", num(f.top1)}};
}

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// Rows of the dataset with a usable value of `target`.
std::vector<std::size_t> target_rows(const Dataset& d, const std::string& target) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < d.rows.size(); ++i)
    if (has_usable_target(*d.rows[i], target)) rows.push_back(i);
  if (rows.empty())
    throw InputError("", 0, "target", "target '" + target + "' has no valid rows (valid and > 0)");
  return rows;
}

// Each fold's prior scale is fitted on its training rows alone, like everything else it learns.
void cross_validate(const Dataset& d, const std::vector<std::size_t>& rows,
                    const std::vector<float>& labels, const std::vector<bool>& trains,
                    const std::string& target, const FeatureSpec& spec, const TrainOptions& o,
                    std::optional<std::size_t> prior_column, RoundProgress& progress,
                    TargetResult& result) {
  const std::vector<std::string>& names = spec.features;
  std::vector<std::string> groups;
  for (auto r : rows) groups.push_back(d.groups[r]);
  std::vector<int> fold_of = group_k_fold(groups, o.folds);
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
    std::optional<RowPrior> prior;
    if (prior_column)
      prior = RowPrior{*prior_column, fit_prior_scale(d, train_rows, train_labels, *prior_column)};
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

// XGBoost names features f0, f1, ... when the booster carries no names.
std::string feature_name(const std::string& xgb_name, const std::vector<std::string>& names) {
  if (xgb_name.size() > 1 && xgb_name[0] == 'f')
    if (auto index = parse_int(std::string_view(xgb_name).substr(1));
        index && *index >= 0 && std::size_t(*index) < names.size())
      return names[std::size_t(*index)];
  return xgb_name;
}

void save_booster(const xgb::Booster& booster, const std::string& target,
                  const std::vector<std::string>& names, const TrainOptions& o) {
  std::string json = booster.save_json();
  auto base = o.out_dir / ("model_" + target + ".json");
  std::filesystem::remove(base);
  std::filesystem::remove(base.string() + ".gz");
  if (o.compress)
    write_gzip(base.string() + ".gz", json);
  else
    write_file(base, json);
  nlohmann::json importances = nlohmann::json::object();
  for (const char* type : {"total_gain", "gain", "weight"})
    for (const auto& [name, score] : booster.importances(type))
      importances[feature_name(name, names)][type] = score;
  write_json(o.out_dir / ("feature_importances_" + target + ".json"), importances);
}

// Continues boosting a warm-start model, or fits a fresh final model on every row.
void fit_final(const Dataset& d, const std::vector<std::size_t>& rows,
               const std::vector<float>& labels, const std::string& target,
               const std::vector<std::string>& names, const TrainOptions& o,
               const std::optional<RowPrior>& prior, RoundProgress& progress,
               TargetResult& result) {
  auto all = make_matrix(d, rows, labels, target, names, o, prior);
  xgb::Booster booster({all.get()});
  std::vector<int> fold_rounds;
  for (const FoldResult& f : result.folds) fold_rounds.push_back(f.best_trees);
  int rounds = final_rounds(o, fold_rounds);
  if (!o.warm_start.empty()) {
    auto file = model_file(o.warm_start, target);
    if (file.empty())
      throw StorageError((o.warm_start / ("model_" + target + ".json")).string() + ": missing");
    booster.load(read_file(file));
    result.previous_trees = booster.boosted_rounds();
    rounds = o.add_trees;
  } else {
    progress.skip(
        std::max(o.boosting.trees - rounds, 0));  // the total counted `trees` final rounds
  }
  set_params(booster, o);
  for (int i = 0; i < rounds; ++i) {
    booster.update(result.previous_trees + i, *all);
    progress.step(target + " final model round " + std::to_string(i + 1) + "/" +
                  std::to_string(rounds));
  }
  result.trees = booster.boosted_rounds();
  save_booster(booster, target, names, o);
}

// The schema column a regression on `target` starts from (TrainOptions::prior): the engine's
// throughput estimate for a fresh tflops regression, the continued model's prior for a warm
// start (check_warm_start has made the feature lists equal); none otherwise, or when the
// schema lacks the feature (ck55, ck72).
std::optional<std::size_t> prior_column(const TrainOptions& o,
                                        const features::FeatureEngine& engine,
                                        const features::Schema& schema, const FeatureSpec* previous,
                                        const std::string& target) {
  std::string feature;
  if (previous) {
    if (const Prior* kept = previous->prior(target)) feature = kept->feature;
  } else if (o.prior && o.objective == Objective::kRegression && target == "tflops") {
    feature = engine.throughput_prior();
  }
  const auto& names = schema.features;
  auto it = std::find(names.begin(), names.end(), feature);
  if (feature.empty() || it == names.end()) return std::nullopt;
  return std::size_t(it - names.begin());
}

// What --objective classify cannot do.
void check_classify_options(const TrainOptions& o) {
  if (o.targets.size() > 1)
    throw InputError("", 0, "target",
                     "the classify objective learns which kernel is fastest by one target: give "
                     "one target");
  if (!o.warm_start.empty())
    throw InputError("", 0, "warm-start",
                     "a classify model cannot be continued (its classes would change with the "
                     "new data's winners): train it again on all the data");
}

// A warm start continues the same feature list and objective, or refuses.
void check_warm_start(const FeatureSpec& previous, const features::Schema& schema,
                      const std::map<std::string, int>& revisions, const TrainOptions& o) {
  std::string where = (o.warm_start / "feature_spec.json").string();
  if (previous.op != o.op)
    throw InputError(where, 0, "op", "model is for '" + previous.op + "', not '" + o.op + "'");
  if (previous.objective != o.objective)
    throw InputError(where, 0, "objective",
                     "model was trained with '" + to_string(previous.objective) + "', not '" +
                         to_string(o.objective) + "'");
  if (previous.time_statistic != data::to_string(o.time_statistic))
    throw InputError(where, 0, "time_statistic",
                     "model was trained on each kernel's " + previous.time_statistic +
                         " time, not its " + data::to_string(o.time_statistic) +
                         " (--time-statistic " + previous.time_statistic + ")");
  if (previous.features != schema.features) {
    std::string only_model, only_engine;
    for (const auto& f : previous.features)
      if (std::find(schema.features.begin(), schema.features.end(), f) == schema.features.end())
        only_model += " " + f;
    for (const auto& f : schema.features)
      if (std::find(previous.features.begin(), previous.features.end(), f) ==
          previous.features.end())
        only_engine += " " + f;
    throw InputError(where, 0, "feature_names",
                     "warm start needs the same feature list as the model (schema '" +
                         previous.schema + "' vs '" + schema.name +
                         "'; only in the model:" + (only_model.empty() ? " -" : only_model) +
                         "; only in the new data:" + (only_engine.empty() ? " -" : only_engine) +
                         (only_model.empty() && only_engine.empty() ? "; order differs" : "") +
                         ")");
  }
  // Trees added on new formulas would sum with trees fitted on the old ones.
  const std::vector<std::string> stale = stale_features(previous, revisions);
  if (!stale.empty())
    throw InputError(where, 0, "feature_revisions",
                     "the model was trained on older formulas of " + join(stale) +
                         ": train a fresh model instead of continuing it");
}

void write_manifest(const TrainResult& r, const TrainOptions& o, const Dataset& d,
                    const FeatureSpec& spec) {
  nlohmann::json trees = nlohmann::json::object();
  for (const auto& t : r.targets)
    trees[t.target] = {
        {"previous", t.previous_trees}, {"new", t.trees - t.previous_trees}, {"total", t.trees}};
  nlohmann::json manifest = {
      {"format_version", required_format_version(spec)},
      {"kselect_version", KSELECT_VERSION},
      {"warm_start_from",
       o.warm_start.empty() ? nlohmann::json() : nlohmann::json(o.warm_start.string())},
      {"trees", trees},
      {"data_rows", d.data_rows},
      {"valid_rows", d.rows.size()},
      {"unique_shapes", d.unique_shapes},
      {"timestamp", timestamp()},
      {"data_source", o.data_source},
      {"threads", o.boosting.threads}};
  write_json(o.out_dir / "train_manifest.json", manifest);
}

// Valid rows of the data op (and dtype) for an engine that fits its features from the data.
std::vector<const data::Measurement*> fit_rows(const std::vector<data::Measurement>& all,
                                               const TrainOptions& o) {
  std::vector<const data::Measurement*> rows;
  for (const auto& m : all) {
    if (m.op != o.data_op || !m.valid) continue;
    if (!o.dtype.empty() && KeyValues::parse(m.problem).get("dtype").value_or("") != o.dtype)
      continue;
    rows.push_back(&m);
  }
  if (rows.empty())
    throw InputError("", 0, o.dtype.empty() ? "op" : "dtype",
                     "no valid measurements for operation '" + o.data_op + "'" +
                         (o.dtype.empty() ? "" : " with dtype '" + o.dtype + "'"));
  return rows;
}

// tflops unless the op's data may lack FLOPs and no row has TFLOPS (only times were imported).
std::string default_target(const std::vector<data::Measurement>& all, const TrainOptions& o,
                           std::string& note) {
  if (find_operation(o.op).capabilities().always_has_flops) return "tflops";
  for (const auto& m : all)
    if (m.op == o.data_op && m.valid && m.tflops > 0) {
      note = "tflops (the data has TFLOPS)";
      return "tflops";
    }
  note = "latency (no row has TFLOPS > 0)";
  return "latency";
}

// The engine for `o.op`: fitted on the training rows when the op learns its features, or, for
// a warm start of such a model, the previous model's state (so its category codes are kept)
// extended with the configurations of kernels new in this data.
std::unique_ptr<features::FeatureEngine> make_train_engine(
    const std::vector<data::Measurement>& all, const TrainOptions& o, const FeatureSpec* previous,
    nlohmann::json& state) {
  const Operation& op = find_operation(o.op);
  state = op.capabilities().fits_feature_state
              ? op.fit_feature_state(fit_rows(all, o), o.kernel_configs, o.encoding)
              : nlohmann::json();
  auto engine = op.make_feature_engine(o.hardware, state);
  if (!previous || state.is_null()) return engine;
  check_warm_start(*previous, engine->schema(engine->default_schema()), engine->feature_revisions(),
                   o);
  state = op.extend_feature_state(previous->engine_state, o.kernel_configs);
  return op.make_feature_engine(o.hardware, state);
}

}  // namespace

std::unique_ptr<features::FeatureEngine> training_engine(
    const std::vector<data::Measurement>& measurements, const TrainOptions& options) {
  nlohmann::json state;
  return make_train_engine(measurements, options, nullptr, state);
}

nlohmann::json TrainResult::to_json() const {
  nlohmann::json j = {{"dir", dir.string()},
                      {"data_rows", data_rows},
                      {"valid_rows", valid_rows},
                      {"unique_shapes", unique_shapes},
                      {"targets", nlohmann::json::array()}};
  if (!target_note.empty()) j["target_note"] = target_note;
  for (const auto& t : targets) {
    nlohmann::json folds = nlohmann::json::array();
    for (const auto& f : t.folds) folds.push_back(fold_json(f));
    j["targets"].push_back(
        {{"target", t.target},
         {"rows", t.rows},
         {"trees", t.trees},
         {"previous_trees", t.previous_trees},
         {"folds", folds},
         {"overall", t.folds.empty() ? nlohmann::json() : fold_json(t.overall)}});
  }
  return j;
}

namespace {
TrainResult train_on_times(const std::vector<data::Measurement>& measurements,
                           const TrainOptions& options);
}  // namespace

double default_colsample(const std::string& op) {
  return find_operation(op).capabilities().default_colsample;
}

TrainResult train(const std::vector<data::Measurement>& measurements, const TrainOptions& given) {
  TrainOptions options = given;
  if (options.boosting.colsample < 0) options.boosting.colsample = default_colsample(options.op);
  if (options.time_statistic == data::TimeStatistic::kMedian)
    return train_on_times(measurements, options);
  std::vector<data::Measurement> rows = measurements;
  data::use_time_statistic(rows, options.time_statistic);
  return train_on_times(rows, options);
}

namespace {
// train() once each row's time is the chosen statistic.
TrainResult train_on_times(const std::vector<data::Measurement>& measurements,
                           const TrainOptions& options) {
  TrainOptions o = options;
  if (o.objective == Objective::kBlend)
    throw InputError("", 0, "objective",
                     "a blend is made of trained models (kselect blend, or kselect train "
                     "--blend-near): train regression, ranking, efficiency or classify");
  if (o.objective == Objective::kEfficiency && o.targets.size() > 1)
    throw InputError("", 0, "target",
                     "the efficiency objective learns a kernel's fraction of its problem's best, "
                     "which is the same for tflops, latency and bandwidth: give one target");
  if (o.objective == Objective::kClassify) check_classify_options(o);
  if (o.out_dir.empty()) throw InputError("", 0, "out", "no output model directory given");
  if (!(o.near_best_weight >= 0 && o.near_best_weight <= 16))
    throw InputError("", 0, "near-best-weight", "must be in 0..16");
  if (!(o.min_efficiency >= 0 && o.min_efficiency < 1))
    throw InputError("", 0, "min-efficiency",
                     "must be a fraction of the problem's best in [0, 1) (0: every row trains)");
  if (o.min_efficiency > 0 && o.objective == Objective::kClassify)
    throw InputError("", 0, "min-efficiency",
                     "the classify objective learns each problem's winner from all its rows");
  if (!(o.shortlist < 1))  // also NaN; negative values mean off
    throw InputError("", 0, "shortlist", "must be a fraction below 1 (0.01: within 1%) or off");
  check_boosting(o.boosting);
  if (o.final_trees < 0 || o.folds == 1 || o.folds < 0)
    throw InputError("", 0, "", "--final-trees must be >= 0, --folds 0 (no CV) or >= 2");
  if (o.data_op.empty()) o.data_op = o.op;
  FeatureSpec previous;
  if (!o.warm_start.empty()) {
    previous = FeatureSpec::load(o.warm_start);
    if (o.schema.empty()) o.schema = previous.schema;
    if (o.dtype.empty() && previous.dtype != "any") o.dtype = previous.dtype;
    o.targets = previous.targets;
    if (o.add_trees < 1)
      throw InputError("", 0, "add-trees", "a warm start needs --add-trees >= 1");
  }
  std::string target_note;
  if (o.targets.empty()) o.targets = {default_target(measurements, o, target_note)};
  nlohmann::json engine_state;
  auto engine =
      make_train_engine(measurements, o, o.warm_start.empty() ? nullptr : &previous, engine_state);
  if (o.schema.empty()) o.schema = engine->default_schema();
  const features::Schema& schema = engine->schema(o.schema);
  if (!o.warm_start.empty()) check_warm_start(previous, schema, engine->feature_revisions(), o);
  for (const auto& t : o.targets) target_value({}, t);  // validates the names
  // The classifier reads the problem's features alone; refused before the rows are built when
  // the engine has no such columns.
  const bool classify = o.objective == Objective::kClassify;
  const std::vector<std::string> features =
      classify ? ProblemFeatures::names_of(*engine) : schema.features;

  Dataset d = build_dataset(measurements, o, *engine, schema, !classify);
  if (!o.warm_start.empty() && previous.dtype != "any" && d.dtype != previous.dtype)
    throw InputError("", 0, "dtype",
                     "warm start model is for " + previous.dtype + ", data is " + d.dtype);
  std::filesystem::create_directories(o.out_dir);

  FeatureSpec spec;
  spec.op = o.op;
  spec.dtype = d.dtype;
  spec.hardware = o.hardware;
  spec.schema = schema.name;
  spec.features = features;
  spec.feature_revisions = revisions_of(features, engine->feature_revisions());
  for (const auto& name : schema.categorical)
    if (std::find(features.begin(), features.end(), name) != features.end())
      spec.categorical.push_back(name);
  spec.targets = o.targets;
  if (!o.warm_start.empty()) {  // labels must be encoded as the continued model's were
    spec.log_targets = previous.log_targets;
    spec.target_scales = previous.target_scales;
  } else if (o.objective == Objective::kRegression) {
    spec.log_targets = o.targets;
    for (const auto& t : o.targets) spec.target_scales[t] = default_scale(t);
  }
  spec.objective = o.objective;
  spec.params = params_json(o);
  spec.engine_state = engine_state;
  if (o.data_op != o.op) spec.data_op = o.data_op;
  spec.time_statistic = data::to_string(o.time_statistic);
  bool cv = o.warm_start.empty() && o.folds > 0;
  if (!cv)  // an earlier training's files there would pass for this model's out-of-fold results
    for (const auto& target : o.targets) {
      std::filesystem::remove(o.out_dir / ("oof_" + target + ".csv"));
      std::filesystem::remove(o.out_dir / ("cv_metrics_" + target + ".json"));
    }
  const long trees = o.boosting.trees;
  long per_target = cv ? long(o.folds + 1) * trees : o.warm_start.empty() ? trees : o.add_trees;
  RoundProgress progress(o, per_target * long(o.targets.size()));
  TrainResult result;
  result.dir = o.out_dir;
  result.target_note = target_note;
  result.data_rows = d.data_rows;
  result.valid_rows = d.rows.size();
  result.unique_shapes = d.unique_shapes;
  for (const auto& target : o.targets) {
    TargetResult tr;
    tr.target = target;
    if (classify) {
      const long start = progress.done();
      tr = train_classifier(
          {d.rows, d.groups}, *engine, target, o, spec,
          [&](long rounds, const std::string& what) { progress.reach(start + rounds, what); });
    } else {
      auto rows = target_rows(d, target);
      tr.rows = rows.size();
      auto labels = make_labels(d, rows, target, spec);
      const std::vector<bool> trains = training_mask(d, rows, target, o);
      const FeatureSpec* continued = o.warm_start.empty() ? nullptr : &previous;
      const auto column = prior_column(o, *engine, schema, continued, target);
      if (cv) cross_validate(d, rows, labels, trains, target, spec, o, column, progress, tr);
      std::vector<std::size_t> final_rows;
      std::vector<float> final_labels;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (trains[i]) final_rows.push_back(rows[i]), final_labels.push_back(labels[i]);
      std::optional<RowPrior> prior;
      if (column) {
        const double scale = continued ? continued->prior(target)->scale
                                       : fit_prior_scale(d, final_rows, final_labels, *column);
        prior = RowPrior{*column, scale};
        spec.priors[target] = {schema.features[*column], scale};
      }
      if (uses_shortlist(o) && target == ordering_target(o.targets))
        set_shortlist(spec, shortlist_of(d, rows, target, o.shortlist), o,
                      o.warm_start.empty() ? nullptr : &previous);
      fit_final(d, final_rows, final_labels, target, schema.features, o, prior, progress, tr);
    }
    nlohmann::json folds = nlohmann::json::array();
    for (const auto& f : tr.folds) folds.push_back(fold_json(f));
    if (cv)
      write_json(o.out_dir / ("cv_metrics_" + target + ".json"),
                 {{"target", target},
                  {"objective", to_string(o.objective)},
                  {"folds", folds},
                  {"overall", fold_json(tr.overall)}});
    result.targets.push_back(std::move(tr));
  }
  spec.save(o.out_dir);
  write_manifest(result, o, d, spec);
  progress.finish();
  return result;
}
}  // namespace

}  // namespace kselect::model
