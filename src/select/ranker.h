#pragma once
// Selection API: ranks candidate kernels for a problem with a trained model directory, without
// XGBoost (forests are compiled into flat arrays at load time).
//
//   auto ranker = select::Ranker::load("models/gemm_fp32");
//   auto block = ranker.prepare(kernel_names);          // once per candidate set
//   auto ranked = ranker.rank("m=128,n=1536,k=7168,layout=rcr,dtype=fp32", *block);
//   ranked.front().kernel;                              // the pick
//
// How the model scores candidates depends on its objective (select/scorer.h): forests of its
// targets, the kernel classifier, or a blend, which ranks by the weighted sum of its members'
// log predicted speeds, each relative to that member's own pick. The Ranker adds what every
// model shares: the dtype check, the shortlist and the sorted ranking.
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/hardware.h"
#include "features/engine.h"
#include "model/classify.h"
#include "model/feature_spec.h"
#include "select/scorer.h"

namespace kselect::select {

// Thread-safe once loaded and configured (set_cascade): scoring keeps its scratch per thread.
class Ranker {
 public:
  // Loads feature_spec.json and model_<target>.json[.gz] from `dir` (a classify model: its
  // per-context models, model::KernelClassifier; a blend: its members' directories,
  // FeatureSpec::blend); hw_* features come from `hardware`.
  // StorageError for a missing or corrupt file, InputError for missing features.
  // `kernel_configs`: parameters of kernels the model may not have seen (a generic model
  // ranking held-out data; see Operation::extend_feature_state).
  static Ranker load(const std::filesystem::path& dir,
                     const HardwareProfile& hardware = host_hardware(),
                     const std::map<std::string, nlohmann::json>& kernel_configs = {});
  // Loads a model of other models (a blend or a route) just written to `dir`, which checks
  // that its members' files and features are there; on failure removes the spec written, so
  // no model that cannot load is left behind, and rethrows.
  static void check_written(const std::filesystem::path& dir);

  const model::FeatureSpec& spec() const { return scorer_->spec(); }
  // What the scores of `problem` mean: spec().objective, or that of the route's member that
  // scores it.
  model::Objective scoring_objective(std::string_view problem) const {
    return scorer_->scoring_objective(problem);
  }
  const features::FeatureEngine& engine() const { return scorer_->engine(); }
  // Model features whose formula changed since the model was trained (model::stale_features):
  // the CLI warns; retraining on the same data brings the model up to date.
  const std::vector<std::string>& stale_features() const { return scorer_->stale_features(); }
  bool has_target(const std::string& target) const;
  // InputError for a classify model: its small per-context forests have no ordering model to
  // cut short.
  void set_cascade(const Cascade& cascade) { scorer_->set_cascade(cascade); }
  // Trees of the model that orders the ranking (a classify model: of every context's model).
  std::size_t num_trees() const { return scorer_->num_trees(); }
  // The classifier of a classify model, else null.
  const model::KernelClassifier* classifier() const;

  // The candidates the model ranks (FeatureSpec::shortlist, docs/model-format.md): those in its
  // shortlist, and `keep` (the problem's default kernel, always a candidate), in input order.
  // Every candidate when the model has no shortlist or none of them is in it.
  std::vector<std::string> shortlisted(std::span<const std::string> kernels,
                                       std::string_view keep = {}) const;

  // Parses kernel names once (reuse the block across problems).
  std::unique_ptr<features::KernelBlock> prepare(std::span<const std::string> kernels) const {
    return scorer_->prepare(kernels);
  }
  // Every kernel of `kernels` scored and sorted best first (ties keep the input order).
  // Throws InputError when the problem's dtype differs from the model's. A classify model
  // scores each kernel's class probability in the problem's context (problem features computed
  // once); a kernel that is not a class, and every kernel of a context never seen in training,
  // scores KernelClassifier::kNotAClass and ranks last in input order.
  std::vector<Scored> rank(std::string_view problem, const features::KernelBlock& kernels,
                           std::span<const std::string> names) const;
  std::vector<Scored> rank(std::string_view problem, std::span<const std::string> kernels) const;
  // Scores only, in input order (the fast path: no strings, no sorting).
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const;

 private:
  explicit Ranker(std::unique_ptr<Scorer> scorer);
  void check_dtype(std::string_view problem) const;

  std::unique_ptr<Scorer> scorer_;
  std::unordered_set<std::string> shortlist_;  // FeatureSpec::shortlist
};

}  // namespace kselect::select
