#include "model/classify.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "model/file_io.h"

namespace kselect::model {

std::vector<std::string> ProblemFeatures::names_of(const features::FeatureEngine& engine) {
  auto names = engine.problem_features();
  if (names.empty())
    throw InputError("", 0, "objective",
                     "classify learns from the problem's features alone, which the '" +
                         std::string(engine.op()) +
                         "' op does not keep apart from the kernel's: train with an op whose "
                         "features are fitted from data, such as --op generic");
  return names;
}

ProblemFeatures::ProblemFeatures(const features::FeatureEngine& engine,
                                 std::vector<std::string> names)
    : engine_(&engine),
      names_(std::move(names)),
      columns_(engine.columns_of(names_, "the classifier")),
      placeholder_(engine.prepare(std::vector<std::string>{""})) {}

void ProblemFeatures::row(std::string_view problem, float* out) const {
  engine_->extract_rows(problem, *placeholder_, columns_, out);
}

namespace {

// Softmax of one row of margins, in double (the pick is the largest either way).
std::vector<double> softmax(const float* margins, std::size_t n) {
  std::vector<double> p(n);
  const double top = *std::max_element(margins, margins + n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += p[i] = std::exp(double(margins[i]) - top);
  for (double& v : p) v /= sum;
  return p;
}

}  // namespace

const KernelClassifier::Context* KernelClassifier::find(const std::string& context) const {
  auto it =
      std::lower_bound(contexts_.begin(), contexts_.end(), context,
                       [](const Context& c, const std::string& name) { return c.name < name; });
  return it != contexts_.end() && it->name == context ? &*it : nullptr;
}

void KernelClassifier::score(const ProblemFeatures& features, std::string_view problem,
                             std::span<const std::string> candidates,
                             std::vector<double>& out) const {
  out.assign(candidates.size(), kNotAClass);
  const Context* c = find(features.context(problem));
  if (!c) return;
  std::vector<double> probability(1, 1.0);  // a single class always wins
  if (c->forest) {
    std::vector<float> row(features.width()), margins(c->classes.size());
    features.row(problem, row.data());
    c->forest->predict_margins(row.data(), 1, row.size(), margins.data());
    probability = softmax(margins.data(), margins.size());
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto it = std::lower_bound(c->classes.begin(), c->classes.end(), candidates[i]);
    if (it != c->classes.end() && *it == candidates[i])
      out[i] = probability[std::size_t(it - c->classes.begin())];
  }
}

KernelClassifier KernelClassifier::load(const std::filesystem::path& dir,
                                        const nlohmann::json& classifier, std::size_t width,
                                        const std::string& source) {
  auto fail = [&](std::size_t n, const std::string& what) {
    return StorageError(source + ": classifier.contexts[" + std::to_string(n) + "]: " + what);
  };
  if (!classifier.is_object() || !classifier.contains("contexts") ||
      !classifier["contexts"].is_array())
    throw StorageError(source + ": a classify model needs \"classifier\": {\"contexts\": [...]}");
  KernelClassifier out;
  const auto& list = classifier["contexts"];
  for (std::size_t n = 0; n < list.size(); ++n) {
    const auto& j = list[n];
    Context c;
    try {
      c.name = j.at("context").get<std::string>();
      c.classes = j.at("classes").get<std::vector<std::string>>();
      c.rounds = j.value("rounds", 0);
      c.problems = j.value("problems", std::size_t(0));
    } catch (const nlohmann::json::exception& e) {
      throw fail(n, e.what());
    }
    if (c.classes.empty() || !std::is_sorted(c.classes.begin(), c.classes.end()) ||
        std::adjacent_find(c.classes.begin(), c.classes.end()) != c.classes.end())
      throw fail(n, "classes must be a sorted list of distinct kernel names");
    if (!out.contexts_.empty() && !(out.contexts_.back().name < c.name))
      throw fail(n, "contexts must be sorted by name, each once");
    const auto& model = j.contains("model") ? j["model"] : nlohmann::json();
    if (c.classes.size() > 1) {
      if (!model.is_string()) throw fail(n, "a context with several classes needs a model file");
      auto forest = Forest::load(dir / model.get<std::string>());
      if (forest.num_outputs() != c.classes.size())
        throw fail(n, model.get<std::string>() + " has " + std::to_string(forest.num_outputs()) +
                          " outputs for " + std::to_string(c.classes.size()) + " classes");
      if (forest.num_features() > int(width))
        throw fail(n, model.get<std::string>() + " reads feature " +
                          std::to_string(forest.num_features() - 1) + " of " +
                          std::to_string(width) + " problem features");
      c.forest = std::make_shared<const Forest>(std::move(forest));
    }
    out.contexts_.push_back(std::move(c));
  }
  return out;
}

}  // namespace kselect::model