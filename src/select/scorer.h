#pragma once
// How a model scores candidate kernels for a problem: select::Ranker holds one Scorer, chosen
// by the model's objective when it loads (load_scorer):
//   - ForestScorer (select/forest_scorer.h): compiled regression, efficiency or ranking forests
//     over each candidate's feature row;
//   - ClassifierScorer (select/classifier_scorer.h): the kernel classifier's probabilities;
//   - BlendScorer (select/blend_scorer.h): the weighted relative log speeds of member forests.
// Like everything in select/, none of them reaches XGBoost.
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "features/engine.h"
#include "model/feature_spec.h"

namespace kselect::select {

struct Scored {
  std::string kernel;
  double score = 0;              // higher is better: what the ranking sorts by
  double tflops = std::nan("");  // predicted, when the model has a tflops regression
  double latency_ms = std::nan("");
  double bandwidth_gb_s = std::nan("");
  // Predicted fraction of the best candidate's speed (models of the efficiency objective).
  double efficiency = std::nan("");
  // Classify models: the probability that this kernel is the problem's fastest; NaN for a
  // kernel that is not a class of the problem's context (it ranks last, score
  // KernelClassifier::kNotAClass).
  double probability = std::nan("");
  // The ordering model's prediction as a speed (model::predicted_speed: TFLOPS, GB/s, 1/ms or
  // efficiency; larger is faster), for comparisons such as the default guard's; NaN for
  // ranking and classify models.
  double speed = std::nan("");
  // A model with nearest training problems (model/neighbours.h): the kernel's mean log
  // efficiency on them, which `score` blends with the forest's log predicted speed (`speed` is
  // then exp(score), the blend's); NaN for the other models.
  double neighbour = std::nan("");
};

// Two-stage scoring, for selection latency: every candidate runs the first `prefix_trees` trees
// of the ordering model, and only the best `survivors` by that partial margin run the rest.
// The survivors' scores equal the full model's bit for bit; the others rank after every survivor
// (their score is the prefix margin minus kCutPenalty), so only a survivor can be the pick;
// a candidate cut by the prefix is never finished.
struct Cascade {
  std::size_t prefix_trees = 0;  // 0: off
  std::size_t survivors = 0;
  static constexpr double kCutPenalty = 1e9;
  // Whether a score carries the cut penalty: ranked after the others on a partial score.
  static bool is_cut(double score) { return score < -kCutPenalty / 2; }
  bool enabled() const { return prefix_trees > 0 && survivors > 0; }
  // "P:S" (prefix trees, survivors) or "off"; InputError otherwise.
  static Cascade parse(const std::string& text);
};

// Scores a problem's candidate kernels with one loaded model. Thread-safe once configured
// (set_cascade): scoring keeps its scratch buffers per thread.
class Scorer {
 public:
  virtual ~Scorer() = default;

  // The model's feature_spec.json.
  const model::FeatureSpec& spec() const { return spec_; }
  // Model features whose formula changed since the model was trained (model::stale_features).
  const std::vector<std::string>& stale_features() const { return stale_features_; }

  // The engine whose features the model reads (a blend: its first member's).
  virtual const features::FeatureEngine& engine() const = 0;
  // What its scores for `problem` mean: the spec's objective, or that of the route's member
  // that scores the problem.
  virtual model::Objective scoring_objective(std::string_view /*problem*/) const {
    return spec_.objective;
  }
  // Trees of the model that orders the ranking.
  virtual std::size_t num_trees() const = 0;
  // InputError when the model has no ordering forest to cut short.
  virtual void set_cascade(const Cascade& cascade) = 0;
  // The candidates in the form score() reads: names parsed once, reused across problems.
  virtual std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const = 0;
  // Each candidate's score, higher is better, in input order.
  virtual void score(std::string_view problem, const features::KernelBlock& kernels,
                     std::vector<double>& out) const = 0;
  // Each candidate's score and what the model predicts for it, in input order; `names` are
  // the kernels `kernels` was prepared from.
  virtual std::vector<Scored> scored(std::string_view problem, const features::KernelBlock& kernels,
                                     std::span<const std::string> names) const = 0;

 protected:
  Scorer(model::FeatureSpec spec, std::vector<std::string> stale_features)
      : spec_(std::move(spec)), stale_features_(std::move(stale_features)) {}

 private:
  model::FeatureSpec spec_;
  std::vector<std::string> stale_features_;
};

// The scorer of the model directory `dir` (select::Ranker::load documents the arguments and
// errors): a BlendScorer for a blend, a ClassifierScorer for a classify model, else a
// ForestScorer.
std::unique_ptr<Scorer> load_scorer(const std::filesystem::path& dir,
                                    const HardwareProfile& hardware,
                                    const std::map<std::string, nlohmann::json>& kernel_configs);

}  // namespace kselect::select
