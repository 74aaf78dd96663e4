#include "eval/listed_selectors.h"

#include <algorithm>
#include <cmath>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/hardware.h"
#include "ops/operation.h"

namespace kselect::eval {

namespace {

constexpr EnumNames<ListedMethod, 4> kMethodNames(
    "method", {{
                  {ListedMethod::kSpeed, "speed"},
                  {ListedMethod::kApplicability, "applicability"},
                  {ListedMethod::kJoint, "joint"},
                  {ListedMethod::kClassify, "classify"},
              }});

std::vector<std::string> candidates_of(const features::FeatureEngine& engine,
                                       const std::string& problem) {
  try {
    return engine.candidates(problem);
  } catch (const InputError&) {
    return {};  // a context never seen in training: no candidate, the pick is a miss
  }
}

// Pairwise-ranking grade of a kernel: 0 unlisted, else 1 + 10 x its efficiency (1..11).
float grade(const ListedProblem& p, const std::string& kernel) {
  double ms = p.time_of(kernel);
  return std::isnan(ms) ? 0.0f : float(1 + std::round(10 * p.best_ms / ms));
}

}  // namespace

std::string to_string(ListedMethod method) {
  return kMethodNames.name(method);
}

ListedMethod parse_listed_method(std::string_view name, const std::string& field) {
  return kMethodNames.parse(name, field);
}

FoldSelector::FoldSelector(const std::vector<const ListedProblem*>& train,
                           const std::map<std::string, nlohmann::json>& configs,
                           ListedMethod method, const model::BoostingParams& boosting,
                           Progress& progress, long& done)
    : method_(method), boosting_(boosting) {
  std::vector<const data::Measurement*> rows;
  for (const ListedProblem* p : train) rows.insert(rows.end(), p->rows.begin(), p->rows.end());
  engine_ = imported_data_operation().fitted_feature_engine(host_hardware(), rows, configs);
  cols_ = model::RowBuilder(*engine_).cols();
  if (method_ == ListedMethod::kClassify) {
    fit_classifier(train, progress, done);
    return;
  }
  if (method_ != ListedMethod::kJoint) fit_speed(train, progress, done);
  if (method_ != ListedMethod::kSpeed) fit_listed(train, progress, done);
}

// The speed model: log time of each listed row.
void FoldSelector::fit_speed(const std::vector<const ListedProblem*>& train, Progress& progress,
                             long& done) {
  model::RowBuilder builder(*engine_);
  model::LabelledRows speed;
  for (const ListedProblem* p : train) {
    std::vector<std::string> kernels;
    for (const auto& l : p->listed) {
      kernels.push_back(l.kernel);
      speed.labels.push_back(float(std::log(l.ms)));
    }
    builder.append(p->text, kernels, speed.x);
  }
  speed_ = fit(speed, model::Loss::kSquaredError, progress, done);
}

// The model of every (problem, candidate) pair: whether it is listed (applicability), or its
// grade in the problem's ranking (joint).
void FoldSelector::fit_listed(const std::vector<const ListedProblem*>& train, Progress& progress,
                              long& done) {
  const bool joint = method_ == ListedMethod::kJoint;
  model::RowBuilder builder(*engine_);
  model::LabelledRows all;
  for (const ListedProblem* p : train) {
    auto kernels = candidates_of(*engine_, p->text);
    for (const auto& k : kernels)
      all.labels.push_back(joint ? grade(*p, k) : float(!std::isnan(p->time_of(k))));
    if (joint) all.groups.push_back(unsigned(kernels.size()));
    builder.append(p->text, kernels, all.x);
  }
  listed_ = fit(all, joint ? model::Loss::kPairwise : model::Loss::kLogistic, progress, done);
}

// Boosts boosting_.trees rounds of `loss`, one progress step each.
std::unique_ptr<model::xgb::Booster> FoldSelector::fit(const model::LabelledRows& rows,
                                                       model::Loss loss, Progress& progress,
                                                       long& done) const {
  const std::string label = model::xgboost_objective(loss);
  return model::fit_booster(rows, cols_, boosting_, loss, [&] { progress.update(++done, label); });
}

void FoldSelector::pick(const std::vector<const ListedProblem*>& test,
                        std::vector<std::string>& model_picks,
                        std::vector<std::string>& baseline_picks) const {
  std::vector<std::vector<std::string>> candidates;
  for (const ListedProblem* p : test) {
    candidates.push_back(candidates_of(*engine_, p->text));
    auto order = engine_->winner_order(p->text, candidates.back());
    baseline_picks.push_back(order.empty() ? "" : order.front());
  }
  if (method_ == ListedMethod::kClassify)
    pick_classes(test, candidates, model_picks);
  else
    pick_by_trees(test, candidates, model_picks);
}

// The best candidate of each problem by the speed and listed models' predictions (better()).
void FoldSelector::pick_by_trees(const std::vector<const ListedProblem*>& test,
                                 const std::vector<std::vector<std::string>>& candidates,
                                 std::vector<std::string>& model_picks) const {
  model::RowBuilder builder(*engine_);
  std::vector<float> x;
  for (std::size_t i = 0; i < test.size(); ++i) builder.append(test[i]->text, candidates[i], x);
  const int threads = boosting_.threads;
  std::vector<float> speed =
      speed_ ? model::predict_rows(*speed_, x, cols_, threads) : std::vector<float>{};
  std::vector<float> listed =
      listed_ ? model::predict_rows(*listed_, x, cols_, threads) : std::vector<float>{};
  std::size_t row = 0;
  for (const auto& kernels : candidates) {
    std::size_t best = kernels.size();
    for (std::size_t j = 0; j < kernels.size(); ++j)
      if (best == kernels.size() || better(speed, listed, row + j, row + best)) best = j;
    model_picks.push_back(best < kernels.size() ? kernels[best] : "");
    row += kernels.size();
  }
}

// Whether candidate row a is preferred to row b.
bool FoldSelector::better(const std::vector<float>& speed, const std::vector<float>& listed,
                          std::size_t a, std::size_t b) const {
  if (method_ == ListedMethod::kSpeed) return speed[a] < speed[b];
  if (method_ == ListedMethod::kJoint) return listed[a] > listed[b];
  bool la = listed[a] >= 0.5f, lb = listed[b] >= 0.5f;
  if (la != lb) return la;
  return la ? speed[a] < speed[b] : listed[a] > listed[b];
}

// model::KernelClassifier, the classifier `kselect train --objective classify` deploys: per
// context a multi-class model of the fastest listed kernel from the problem's features alone.
void FoldSelector::fit_classifier(const std::vector<const ListedProblem*>& train,
                                  Progress& progress, long& done) {
  problem_features_ = std::make_unique<model::ProblemFeatures>(
      *engine_, model::ProblemFeatures::names_of(*engine_));
  std::vector<model::ClassifyExample> examples;
  for (const ListedProblem* p : train) examples.push_back({p->text, p->listed.front().kernel});
  model::ClassifierParams classifier;
  classifier.boosting = boosting_;
  // Progress advances by each context's share of the rows (its cost), `trees` in all.
  const int trees = boosting_.trees;
  const long start = done;
  auto advance = [&](double share, const std::string& context) {
    done = start + long(double(trees) * share);
    progress.update(done, "classify " + context);
  };
  classifier_ = model::KernelClassifier::fit(examples, *problem_features_, classifier, {}, advance);
  done = start + trees;
  progress.update(done, "classify");
}

// The most probable class among the candidates; none in a context never seen in training.
void FoldSelector::pick_classes(const std::vector<const ListedProblem*>& test,
                                const std::vector<std::vector<std::string>>& candidates,
                                std::vector<std::string>& model_picks) const {
  std::vector<double> scores;
  for (std::size_t i = 0; i < test.size(); ++i) {
    classifier_.score(*problem_features_, test[i]->text, candidates[i], scores);
    auto best = std::max_element(scores.begin(), scores.end());
    bool none = best == scores.end() || *best == model::KernelClassifier::kNotAClass;
    model_picks.push_back(none ? "" : candidates[i][std::size_t(best - scores.begin())]);
  }
}

}  // namespace kselect::eval
