#include "select/model_selector.h"

#include <algorithm>
#include <unordered_set>

#include "core/error.h"

namespace kselect::select {

namespace {

bool from_rule_sets(const Operation& op) {
  return op.capabilities().kernels_from_rule_sets;
}

// The catalogue's kernels: the rule set's, then the `default` set's it lacks; for ops without
// rule sets every kernel the model saw in training.
std::vector<std::string> catalogue_kernels(const Operation& op, const Ranker& ranker,
                                           const SelectionOptions& o, std::size_t& rule_set_size) {
  if (!from_rule_sets(op)) {
    auto known = ranker.engine().known_kernels();
    rule_set_size = known.size();
    return known;
  }
  return rule_set_catalogue(op, o.rules, rule_set_size);
}

}  // namespace

std::vector<std::string> rule_set_catalogue(const Operation& op, const std::string& rules,
                                            std::size_t& rule_set_size) {
  std::vector<std::string> names = op.kernel_names(rules, KeyValues{});
  rule_set_size = names.size();
  std::unordered_set<std::string> have(names.begin(), names.end());
  for (auto& k : op.kernel_names("default", KeyValues{}))
    if (have.insert(k).second) names.push_back(std::move(k));
  return names;
}

ModelSelector::ModelSelector(std::unique_ptr<Ranker> ranker, const Operation& op,
                             SelectionOptions options)
    : ranker_(std::move(ranker)),
      op_(&op),
      options_(std::move(options)),
      guard_(options_.default_margin) {
  ranker_->set_cascade(Cascade::parse(options_.cascade));
  if (!from_rule_sets(op) && options_.rules_given)
    throw InputError("", 0, "rules",
                     "a " + std::string(op.name()) +
                         " model has no rule sets: it ranks the kernels it saw in training "
                         "(leave out --rules)");
  if (!from_rule_sets(op) && guard_.enabled())
    throw InputError("", 0, "default_margin",
                     "the " + std::string(op.name()) +
                         " op has no default rule set to guard (leave out --default-margin)");
  catalogue_ = op.catalogue(catalogue_kernels(op, *ranker_, options_, rule_set_size_));
  block_ = ranker_->prepare(catalogue_->names());
  if (from_rule_sets(op))
    for (const auto& k : op.kernel_names("default", KeyValues{}))
      default_set_.push_back(std::uint32_t(catalogue_->find(k)));
  shortlisted_.assign(catalogue_->size(), 0);
  for (const auto& k : ranker_->spec().shortlist)
    if (auto i = catalogue_->find(k); i != KernelCatalogue::npos) shortlisted_[i] = 1;
}

ModelSelector ModelSelector::load(const std::filesystem::path& dir, std::string_view op_name,
                                  const SelectionOptions& options) {
  auto ranker = std::make_unique<Ranker>(Ranker::load(dir));
  const std::string& model_op = ranker->spec().op;
  if (!op_name.empty() && op_name != model_op)
    throw InputError("", 0, "op",
                     "the model is for '" + model_op + "', not '" + std::string(op_name) + "'");
  ModelSelector selector(std::move(ranker), find_operation(model_op), options);
  const model::FeatureSpec& spec = selector.ranker().spec();
  selector.training_ranges_ = spec.training_ranges;
  // A blend predicts inside what all its members saw: their ranges together.
  if (selector.training_ranges_.empty())
    for (const auto& member : spec.blend)
      model::widen_ranges(selector.training_ranges_,
                          model::FeatureSpec::load(dir / member.model).training_ranges);
  return selector;
}

std::vector<std::uint32_t> ModelSelector::candidates(std::string_view problem) const {
  if (!from_rule_sets(*op_)) {
    std::vector<std::uint32_t> out;
    for (const auto& k : ranker_->engine().candidates(problem))
      if (auto i = catalogue_->find(k); i != KernelCatalogue::npos) out.push_back(std::uint32_t(i));
    return out;
  }
  std::vector<std::uint32_t> out = catalogue_->supported(problem);
  out.erase(std::find_if(out.begin(), out.end(), [&](auto i) { return i >= rule_set_size_; }),
            out.end());
  return out;
}

std::string ModelSelector::no_model_pick(std::string_view problem) const {
  if (default_set_.empty()) return {};
  std::vector<std::string> supported;
  for (std::uint32_t i : default_set_)
    if (catalogue_->unsupported_reason(i, problem).empty())
      supported.push_back(catalogue_->name(i));
  auto order = op_->heuristic_order(problem, std::move(supported));
  return order.empty() ? std::string() : order.front();
}

// A classify model ranks a context without classes in input order, which means nothing:
// refused. A context never seen in training is refused before, by candidates() (a classify
// model is generic), with the contexts the model knows; one seen in training has no classes
// when none of its problems had a valid `target` > 0 (a tflops model on a context measured in
// times only), refused here with the contexts that have.
void ModelSelector::check_classified_context(std::string_view problem) const {
  const model::KernelClassifier* classifier = ranker_->classifier();
  if (!classifier) return;
  const std::string context = ranker_->engine().context(problem);
  if (classifier->find(context)) return;
  const auto& targets = ranker_->spec().targets;
  const std::string target = targets.empty() ? "target" : targets.front();
  std::string known;
  for (const auto& c : classifier->contexts()) known += (known.empty() ? "" : "; ") + c.name;
  throw InputError("", 0, "problem",
                   "the classifier has no class for " + (context.empty() ? "no context" : context) +
                       " (no training problem of it had a valid " + target +
                       " > 0; it has classes for: " + known + ")");
}

Prediction ModelSelector::rank(std::string_view problem,
                               std::span<const std::uint32_t> candidates) const {
  Prediction p;
  p.problem = std::string(problem);
  if (candidates.empty()) {
    p.unsupported = true;
    return p;
  }
  check_classified_context(problem);
  std::vector<std::uint32_t> rows(candidates.begin(), candidates.end());
  // The no-model pick is always a candidate: guarded, and kept by the shortlist.
  const std::string pick = no_model_pick(problem);
  const std::size_t pick_index = pick.empty() ? KernelCatalogue::npos : catalogue_->find(pick);
  if (guard_.enabled()) {
    if (pick.empty())
      throw InputError("", 0, "default_margin",
                       "no kernel of the default rule set supports " + std::string(problem));
    p.guard.default_kernel = pick;
    if (std::find(rows.begin(), rows.end(), pick_index) == rows.end())
      rows.push_back(std::uint32_t(pick_index));
  }
  p.supported = rows.size();
  if (!options_.all_candidates) {
    // The model's shortlist and the no-model pick; every candidate when none is listed.
    std::vector<std::uint32_t> kept;
    bool any_listed = false;
    for (std::uint32_t i : rows) {
      any_listed = any_listed || shortlisted_[i];
      if (shortlisted_[i] || i == pick_index) kept.push_back(i);
    }
    if (any_listed) rows = std::move(kept);
  }
  p.shortlisted = rows.size();
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (std::uint32_t i : rows) names.push_back(catalogue_->name(i));
  p.ranked = ranker_->rank(problem, *block_->subset(rows), names);
  if (guard_.enabled()) p.guard.kept = guard_.apply(p.ranked, p.guard.default_kernel);
  return p;
}

Prediction ModelSelector::predict(std::string_view problem) const {
  return rank(problem, candidates(problem));
}

}  // namespace kselect::select
