#include "select/classifier_scorer.h"

#include <stdexcept>

#include "core/error.h"

namespace kselect::select {

namespace {
// The candidates as a classify model reads them: by name among its classes.
struct NamedKernels : features::KernelBlock {
  std::size_t size() const override { return names.size(); }
  std::unique_ptr<features::KernelBlock> subset(
      std::span<const std::uint32_t> rows) const override {
    auto out = std::make_unique<NamedKernels>();
    copy_names(rows, *out);
    return out;
  }
};
}  // namespace

std::unique_ptr<ClassifierScorer> ClassifierScorer::load(
    const std::filesystem::path& dir, model::FeatureSpec spec,
    std::vector<std::string> stale_features, std::unique_ptr<features::FeatureEngine> engine) {
  std::unique_ptr<ClassifierScorer> scorer(
      new ClassifierScorer(std::move(spec), std::move(stale_features), std::move(engine)));
  const model::FeatureSpec& s = scorer->spec();
  scorer->classifier_ = std::make_unique<model::KernelClassifier>(model::KernelClassifier::load(
      dir, s.classifier, s.features.size(), (dir / "feature_spec.json").string()));
  return scorer;
}

ClassifierScorer::ClassifierScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
                                   std::unique_ptr<features::FeatureEngine> engine)
    : Scorer(std::move(spec), std::move(stale_features)),
      engine_(std::move(engine)),
      problem_features_(std::make_unique<model::ProblemFeatures>(*engine_, this->spec().features)) {
}

std::size_t ClassifierScorer::num_trees() const {
  std::size_t trees = 0;
  for (const auto& c : classifier_->contexts())
    if (c.forest) trees += c.forest->num_trees();
  return trees;
}

void ClassifierScorer::set_cascade(const Cascade& cascade) {
  if (cascade.enabled())
    throw InputError("", 0, "cascade",
                     "a classify model scores one small model per context and has no ordering "
                     "model to cut short: leave out --cascade");
}

std::unique_ptr<features::KernelBlock> ClassifierScorer::prepare(
    std::span<const std::string> kernels) const {
  auto block = std::make_unique<NamedKernels>();
  block->names.assign(kernels.begin(), kernels.end());
  return block;
}

void ClassifierScorer::score(std::string_view problem, const features::KernelBlock& kernels,
                             std::vector<double>& out) const {
  const auto* named = dynamic_cast<const NamedKernels*>(&kernels);
  if (!named) throw std::logic_error("Ranker::score: a block from another Ranker's prepare()");
  classifier_->score(*problem_features_, problem, named->names, out);
}

std::vector<Scored> ClassifierScorer::scored(std::string_view problem,
                                             const features::KernelBlock& kernels,
                                             std::span<const std::string> names) const {
  std::vector<double> scores;
  score(problem, kernels, scores);
  std::vector<Scored> out(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    out[i].kernel = names[i], out[i].score = scores[i];
    if (scores[i] != model::KernelClassifier::kNotAClass) out[i].probability = scores[i];
  }
  return out;
}

}  // namespace kselect::select
