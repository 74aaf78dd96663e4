#include "select/ranker.h"

#include <algorithm>

#include "core/error.h"
#include "select/classifier_scorer.h"

namespace kselect::select {

Ranker Ranker::load(const std::filesystem::path& dir, const HardwareProfile& hardware,
                    const std::map<std::string, nlohmann::json>& kernel_configs) {
  return Ranker(load_scorer(dir, hardware, kernel_configs));
}

void Ranker::check_written(const std::filesystem::path& dir) {
  try {
    load(dir);
  } catch (...) {
    std::filesystem::remove(dir / "feature_spec.json");
    throw;
  }
}

Ranker::Ranker(std::unique_ptr<Scorer> scorer) : scorer_(std::move(scorer)) {
  shortlist_.insert(spec().shortlist.begin(), spec().shortlist.end());
}

bool Ranker::has_target(const std::string& target) const {
  const auto& targets = spec().targets;
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

const model::KernelClassifier* Ranker::classifier() const {
  const auto* classify = dynamic_cast<const ClassifierScorer*>(scorer_.get());
  return classify ? &classify->classifier() : nullptr;
}

std::vector<std::string> Ranker::shortlisted(std::span<const std::string> kernels,
                                             std::string_view keep) const {
  std::vector<std::string> kept;
  bool any_listed = false;
  for (const auto& kernel : kernels) {
    const bool listed = shortlist_.count(kernel) > 0;
    any_listed = any_listed || listed;
    if (listed || (!keep.empty() && kernel == keep)) kept.push_back(kernel);
  }
  if (shortlist_.empty() || !any_listed) return {kernels.begin(), kernels.end()};
  return kept;
}

void Ranker::check_dtype(std::string_view problem) const {
  const std::string& model_dtype = spec().dtype;
  if (model_dtype == "any" || model_dtype.empty()) return;  // empty: the data had no dtype
  std::string dtype = engine().dtype(problem);
  if (dtype != model_dtype)
    throw InputError("", 0, "dtype",
                     "the model was trained on " + model_dtype + " data; the problem is " + dtype);
}

void Ranker::score(std::string_view problem, const features::KernelBlock& kernels,
                   std::vector<double>& out) const {
  check_dtype(problem);
  scorer_->score(problem, kernels, out);
}

std::vector<Scored> Ranker::rank(std::string_view problem, const features::KernelBlock& kernels,
                                 std::span<const std::string> names) const {
  if (names.size() != kernels.size())
    throw InputError("kernel names and prepared block differ in size");
  check_dtype(problem);
  std::vector<Scored> out = scorer_->scored(problem, kernels, names);
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.score > b.score; });
  return out;
}

std::vector<Scored> Ranker::rank(std::string_view problem,
                                 std::span<const std::string> kernels) const {
  return rank(problem, *prepare(kernels), kernels);
}

}  // namespace kselect::select
