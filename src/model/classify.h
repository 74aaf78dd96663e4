#pragma once
// The kernel classifier (objective "classify", docs/model-format.md): for listed-only data such
// as MIOpen's find-db, which measures only each problem's fastest few kernels, it learns which
// kernel wins rather than how fast every kernel runs. Per context (the problem's dir, dtype and
// layout: FeatureEngine::context) one multi-class XGBoost model (multi:softprob)
// maps the problem's features to its fastest kernel; the classes are the kernels that won at
// least one training problem of the context, so a kernel that never wins is never picked.
//
// This is the one implementation behind `kselect train --objective classify`, select::Ranker
// on such a model, and `kselect eval --protocol strict --method classify`: fitting goes through
// XGBoost, scoring through model::Forest, so selection needs no XGBoost.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "features/engine.h"
#include "model/boosting_params.h"
#include "model/forest.h"

namespace kselect::model::xgb {
class Booster;  // fitting only (model/xgboost.h); selection never touches XGBoost
}

namespace kselect::model {

// One training problem of the classifier: its text and its fastest kernel.
struct ClassifyExample {
  std::string problem, winner;
};

// The problem-only columns of a feature engine, one row per problem: what the classifier reads.
class ProblemFeatures {
 public:
  // The engine's problem-only columns (FeatureEngine::problem_features). InputError for an
  // engine that does not keep them apart from the kernel's.
  static std::vector<std::string> names_of(const features::FeatureEngine& engine);
  // `names` must be features of `engine` (InputError listing the missing ones); `engine` must
  // outlive this object.
  ProblemFeatures(const features::FeatureEngine& engine, std::vector<std::string> names);

  const std::vector<std::string>& names() const { return names_; }
  std::size_t width() const { return names_.size(); }
  // Writes the width() features of `problem` to `out` (InputError for malformed problem text).
  void row(std::string_view problem, float* out) const;
  // The problem's selection context (FeatureEngine::context).
  std::string context(std::string_view problem) const { return engine_->context(problem); }

 private:
  const features::FeatureEngine* engine_;
  std::vector<std::string> names_;
  std::vector<int> columns_;
  // The engine extracts (problem, kernel) rows; the kernel's columns are never read, so any
  // name does.
  std::unique_ptr<features::KernelBlock> placeholder_;
};

struct ClassifierParams {
  // Every context model's boosting: its XGBoost settings (the loss is multi:softprob), threads
  // and rounds (`trees`); colsample must be resolved (>= 0).
  BoostingParams boosting;
  // Rounds of particular contexts, overriding boosting.trees (a final model boosting what
  // cross-validation chose per context).
  std::map<std::string, int> context_rounds;
  // With validation problems: a context stops boosting after this many rounds without a lower
  // multi-class log loss on its validation problems and keeps its best prefix. 0: never stops.
  int early_stopping = 0;
};

class KernelClassifier {
 public:
  // The score of a candidate that is not a class of the problem's context: below every
  // probability, so it ranks after all classes.
  static constexpr double kNotAClass = -1;

  struct Context {
    std::string name;                  // FeatureEngine::context, e.g. "dir=F,dtype=fp32"
    std::vector<std::string> classes;  // sorted; class i is the model's output i
    // Null with a single class, which then always wins.
    std::shared_ptr<const Forest> forest;
    // After fit: the XGBoost model (saving, importances); null once loaded.
    std::shared_ptr<const xgb::Booster> booster;
    int rounds = 0;            // boosting rounds kept (0 without a model)
    std::size_t problems = 0;  // training problems
  };

  // Share of the boosting work done (0..1) and the context being fitted.
  using Progress = std::function<void(double share, const std::string& context)>;

  // One model per context of `train` (in context order). `validation` problems drive early
  // stopping (params.early_stopping); those whose winner is not a class of their context
  // cannot be labelled and are left out. InputError when `train` is empty.
  static KernelClassifier fit(const std::vector<ClassifyExample>& train,
                              const ProblemFeatures& features, const ClassifierParams& params,
                              const std::vector<ClassifyExample>& validation = {},
                              const Progress& progress = {});

  // The classifier described by `classifier` (feature_spec.json's "classifier" object) with
  // its model files in `dir`, whose models read `width` problem features. StorageError naming
  // `source` and the field when malformed.
  static KernelClassifier load(const std::filesystem::path& dir, const nlohmann::json& classifier,
                               std::size_t width, const std::string& source);
  // Writes model_<target>.<n>.json (n: the context's position; .json.gz with `compress`) for
  // each context with a model and returns the "classifier" object that load() reads.
  nlohmann::json save(const std::filesystem::path& dir, const std::string& target,
                      bool compress) const;

  const std::vector<Context>& contexts() const { return contexts_; }
  // Null when `context` had no training problem.
  const Context* find(const std::string& context) const;

  // Each candidate's probability of being the problem's fastest kernel (softmax of its
  // context model's margins), kNotAClass for a candidate that is not a class of the context,
  // and for every candidate when the context was not seen in training.
  void score(const ProblemFeatures& features, std::string_view problem,
             std::span<const std::string> candidates, std::vector<double>& out) const;

 private:
  std::vector<Context> contexts_;  // sorted by name
};

}  // namespace kselect::model
