#include "model/train_classify.h"

#include <cmath>
#include <map>

#include "model/classify.h"
#include "model/file_io.h"
#include "model/train_cv.h"
#include "model/train_data.h"
#include "model/xgboost.h"

namespace kselect::model {

namespace {

// One training problem: its rows with a positive target (scored out of fold) and its winner.
struct Problem {
  std::string text, winner;
  std::vector<const data::Measurement*> rows;
  double best = 0;  // the winner's value
  int fold = 0;
};

// Problems with a usable row; folds of the usable rows as the other objectives split them
// (fold_of_rows), so their out-of-fold results compare problem for problem.
std::vector<Problem> collect_problems(const ClassifyData& data, const std::string& target,
                                      int folds) {
  std::vector<Problem> problems;
  std::vector<std::size_t> problem_of_row;
  const bool higher = higher_is_better(target);
  const std::vector<std::size_t> usable = target_rows(data.rows, target);
  for (std::size_t i : usable) {
    const data::Measurement& m = *data.rows[i];
    if (problems.empty() || problems.back().text != m.problem)
      problems.emplace_back().text = m.problem;
    Problem& p = problems.back();
    // The best row wins; equal values go to the kernel name first in order (deterministic).
    const double v = target_value(m, target);
    if (p.rows.empty() || (higher ? v > p.best : v < p.best) ||
        (v == p.best && m.kernel < p.winner))
      p.winner = m.kernel, p.best = v;
    p.rows.push_back(&m);
    problem_of_row.push_back(problems.size() - 1);
  }
  if (folds > 0) {
    const std::vector<int> fold_of_row = fold_of_rows(data.groups, usable, folds);
    for (std::size_t r = 0; r < fold_of_row.size(); ++r)
      problems[problem_of_row[r]].fold = fold_of_row[r];
  }
  return problems;
}

std::vector<ClassifyExample> examples(const std::vector<const Problem*>& problems) {
  std::vector<ClassifyExample> out;
  out.reserve(problems.size());
  for (const Problem* p : problems) out.push_back({p->text, p->winner});
  return out;
}

// Out-of-fold class probabilities of a problem's rows (KernelClassifier::kNotAClass for
// kernels that are not classes).
std::vector<double> score_rows(const KernelClassifier& c, const ProblemFeatures& features,
                               const Problem& p) {
  std::vector<std::string> kernels;
  for (const auto* m : p.rows) kernels.push_back(m->kernel);
  std::vector<double> scores;
  c.score(features, p.text, kernels, scores);
  return scores;
}

// Efficiency metrics of the picks (the highest score) of `problems`; fit metrics do not apply.
FoldResult pick_metrics(const std::vector<const Problem*>& problems,
                        const std::map<const Problem*, std::vector<double>>& scores,
                        const std::string& target) {
  std::vector<std::string> names;
  std::vector<double> score, measured;
  for (const Problem* p : problems) {
    const auto& s = scores.at(p);
    for (std::size_t i = 0; i < p->rows.size(); ++i) {
      names.push_back(p->text);
      score.push_back(s[i]);
      measured.push_back(target_value(*p->rows[i], target));
    }
  }
  return pick_result(names, score, measured, target);
}

// Boosting rounds kept per context model, weighted by the context's training problems: the
// fold's best_trees.
int mean_rounds(const KernelClassifier& c) {
  double rounds = 0, problems = 0;
  for (const auto& ctx : c.contexts())
    if (ctx.forest)
      rounds += double(ctx.rounds) * double(ctx.problems), problems += double(ctx.problems);
  return problems > 0 ? int(std::lround(rounds / problems)) : 0;
}

void write_oof(const std::vector<Problem>& problems,
               const std::map<const Problem*, std::vector<double>>& scores,
               const std::string& target, const TrainOptions& o) {
  OofCsv csv(target);
  for (const auto& p : problems) {
    const auto& s = scores.at(&p);
    for (std::size_t i = 0; i < p.rows.size(); ++i) csv.add(*p.rows[i], p.fold, s[i]);
  }
  csv.write(o.out_dir);
}

// Sums of every context model's split gains and counts per feature; gain = total / count.
void write_importances(const KernelClassifier& c, const std::string& target,
                       const TrainOptions& o) {
  std::map<std::string, std::pair<double, double>> sums;  // total_gain, weight
  for (const auto& ctx : c.contexts()) {
    if (!ctx.booster) continue;
    for (const auto& [name, v] : ctx.booster->importances("total_gain")) sums[name].first += v;
    for (const auto& [name, v] : ctx.booster->importances("weight")) sums[name].second += v;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, s] : sums)
    out[name] = {{"total_gain", s.first},
                 {"gain", s.second > 0 ? s.first / s.second : 0.0},
                 {"weight", s.second}};
  write_json(o.out_dir / ("feature_importances_" + target + ".json"), out);
}

class ClassifierTraining {
 public:
  ClassifierTraining(const ClassifyData& data, const features::FeatureEngine& engine,
                     const std::string& target, const TrainOptions& o, const RoundsDone& progress)
      : features_(engine, ProblemFeatures::names_of(engine)),
        target_(target),
        o_(o),
        progress_(progress),
        problems_(collect_problems(data, target, o.folds)) {
    params_.boosting = o.boosting;
  }

  TargetResult run(FeatureSpec& spec) {
    TargetResult result;
    result.target = target_;
    for (const auto& p : problems_) result.rows += p.rows.size();
    if (o_.folds > 0) cross_validate(result);
    KernelClassifier final_model =
        fit(all_problems(), {}, final_params(), o_.folds * o_.boosting.trees, "final model");
    result.trees = 0;
    for (const auto& ctx : final_model.contexts())
      if (ctx.forest) result.trees += int(ctx.forest->num_trees());
    spec.classifier = final_model.save(o_.out_dir, target_, o_.compress);
    write_importances(final_model, target_, o_);
    return result;
  }

 private:
  std::vector<const Problem*> all_problems() const {
    std::vector<const Problem*> out;
    for (const auto& p : problems_) out.push_back(&p);
    return out;
  }

  KernelClassifier fit(const std::vector<const Problem*>& train,
                       const std::vector<const Problem*>& valid, const ClassifierParams& params,
                       long base_rounds, const std::string& label) const {
    return KernelClassifier::fit(examples(train), features_, params, examples(valid),
                                 [&](double share, const std::string& context) {
                                   progress_(base_rounds + long(share * double(o_.boosting.trees)),
                                             target_ + " " + label + " " + context);
                                 });
  }

  // Early stopping per fold and context on the held-out problems; the rounds each context
  // kept are remembered for the final model.
  void cross_validate(TargetResult& result) {
    ClassifierParams params = params_;
    params.early_stopping = o_.early_stopping;
    std::map<const Problem*, std::vector<double>> scores;
    for (int f = 0; f < o_.folds; ++f) {
      std::vector<const Problem*> train, valid;
      for (const auto& p : problems_) (p.fold == f ? valid : train).push_back(&p);
      std::string label = "fold " + std::to_string(f + 1) + "/" + std::to_string(o_.folds);
      KernelClassifier c = fit(train, valid, params, long(f) * o_.boosting.trees, label);
      for (const Problem* p : valid) scores[p] = score_rows(c, features_, *p);
      for (const auto& ctx : c.contexts())
        if (ctx.forest) fold_rounds_[ctx.name].push_back(ctx.rounds);
      FoldResult fr = pick_metrics(valid, scores, target_);
      fr.fold = f;
      fr.train_rows = train.size();
      fr.best_trees = mean_rounds(c);
      result.folds.push_back(fr);
    }
    result.overall = pick_metrics(all_problems(), scores, target_);
    result.overall.fold = -1;
    write_oof(problems_, scores, target_, o_);
  }

  // Each context's final rounds from its best rounds over the folds, as the other objectives'
  // (model::final_rounds): --final-trees for every context when given; --trees for a context
  // no fold modelled.
  ClassifierParams final_params() const {
    ClassifierParams params = params_;
    params.boosting.trees = final_rounds(o_, {});
    for (const auto& [context, rounds] : fold_rounds_)
      params.context_rounds[context] = final_rounds(o_, rounds);
    return params;
  }

  ProblemFeatures features_;
  std::string target_;
  const TrainOptions& o_;
  const RoundsDone& progress_;
  std::vector<Problem> problems_;
  ClassifierParams params_;
  std::map<std::string, std::vector<int>> fold_rounds_;
};

}  // namespace

TargetResult train_classifier(const ClassifyData& data, const features::FeatureEngine& engine,
                              const std::string& target, const TrainOptions& o, FeatureSpec& spec,
                              const RoundsDone& progress) {
  return ClassifierTraining(data, engine, target, o, progress).run(spec);
}

}  // namespace kselect::model
