#pragma once
// Scores candidates with the kernel classifier of a classify model (model::KernelClassifier):
// each candidate's probability of being the problem's fastest in its context, from the
// problem's features alone (computed once per problem). A candidate that is not a class of the
// context, and every candidate of a context never seen in training, scores
// KernelClassifier::kNotAClass and ranks last.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/classify.h"
#include "select/scorer.h"

namespace kselect::select {

class ClassifierScorer final : public Scorer {
 public:
  // The classifier `spec` describes, its per-context models in `dir`, reading `engine`'s
  // problem columns that the spec lists (in that order: no remapping). StorageError for a
  // missing or corrupt file, InputError for missing features.
  static std::unique_ptr<ClassifierScorer> load(const std::filesystem::path& dir,
                                                model::FeatureSpec spec,
                                                std::vector<std::string> stale_features,
                                                std::unique_ptr<features::FeatureEngine> engine);

  const model::KernelClassifier& classifier() const { return *classifier_; }

  const features::FeatureEngine& engine() const override { return *engine_; }
  // Every context's trees.
  std::size_t num_trees() const override;
  // InputError for an enabled cascade: the small per-context forests have no ordering model
  // to cut short.
  void set_cascade(const Cascade& cascade) override;
  // The names alone: the classifier looks candidates up among its classes and never extracts
  // kernel features.
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const override;
  // The scores, and as `probability` those of the classes.
  std::vector<Scored> scored(std::string_view problem, const features::KernelBlock& kernels,
                             std::span<const std::string> names) const override;

 private:
  ClassifierScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
                   std::unique_ptr<features::FeatureEngine> engine);

  std::unique_ptr<features::FeatureEngine> engine_;
  // After engine_, which it reads: members are destroyed in reverse order.
  std::unique_ptr<const model::ProblemFeatures> problem_features_;
  std::unique_ptr<const model::KernelClassifier> classifier_;
};

}  // namespace kselect::select
