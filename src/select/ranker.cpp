#include "select/ranker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/error.h"
#include "core/key_values.h"
#include "model/blend.h"
#include "ops/operation.h"

namespace kselect::select {

namespace {
// A classify model's candidates: it looks kernels up by name among its classes and never
// extracts kernel features.
struct NamedKernels : features::KernelBlock {
  std::vector<std::string> names;
  std::size_t size() const override { return names.size(); }
};
}  // namespace

Ranker Ranker::load(const std::filesystem::path& dir, const HardwareProfile& hardware,
                    const std::map<std::string, nlohmann::json>& kernel_configs) {
  Ranker r;
  r.spec_ = model::FeatureSpec::load(dir);
  if (r.spec_.objective == model::Objective::kBlend)
    return load_blend(std::move(r), dir, hardware, kernel_configs);
  const Operation& op = find_operation(r.spec_.op);
  r.engine_ = op.make_feature_engine(hardware,
                                     op.extend_feature_state(r.spec_.engine_state, kernel_configs));
  r.stale_features_ = model::stale_features(r.spec_, r.engine_->feature_revisions());
  r.shortlist_.insert(r.spec_.shortlist.begin(), r.spec_.shortlist.end());
  r.all_columns_.resize(r.engine_->all_features().size());
  std::iota(r.all_columns_.begin(), r.all_columns_.end(), 0);
  if (r.spec_.objective == model::Objective::kClassify) {
    // The classifier reads the problem columns the spec lists, in that order: no remapping.
    r.problem_features_ = std::make_unique<model::ProblemFeatures>(*r.engine_, r.spec_.features);
    r.classifier_ = std::make_unique<model::KernelClassifier>(model::KernelClassifier::load(
        dir, r.spec_.classifier, r.spec_.features.size(), (dir / "feature_spec.json").string()));
    return r;
  }
  std::vector<int> mapping =
      r.engine_->columns_of(r.spec_.features, "model " + (dir / "feature_spec.json").string());
  for (const auto& target : r.spec_.targets) {
    auto file = model::model_file(dir, target);
    if (file.empty())
      throw StorageError((dir / ("model_" + target + ".json")).string() +
                         ": missing (listed in feature_spec.json targets)");
    TargetModel m{target, model::Forest::load(file)};
    if (m.forest.num_features() > int(mapping.size()))
      throw StorageError(file.string() + ": reads feature " +
                         std::to_string(m.forest.num_features() - 1) +
                         " but feature_spec.json lists " + std::to_string(mapping.size()));
    if (const model::Prior* prior = r.spec_.prior(target)) {
      const auto& names = r.spec_.features;
      m.forest.set_prior(int(std::find(names.begin(), names.end(), prior->feature) - names.begin()),
                         prior->scale, file.string());
    }
    m.forest.remap_features(mapping);
    r.models_.push_back(std::move(m));
  }
  if (r.models_.empty()) throw StorageError(dir.string() + ": feature_spec.json lists no targets");
  for (std::size_t i = 0; i < r.models_.size(); ++i)
    if (r.models_[i].target == "tflops") r.primary_ = int(i);
  return r;
}

// Members must predict speeds of the blend's op and dtype (model::check_blend_member): their
// relative log speeds are what adds up.
Ranker Ranker::load_blend(Ranker r, const std::filesystem::path& dir,
                          const HardwareProfile& hardware,
                          const std::map<std::string, nlohmann::json>& kernel_configs) {
  std::set<std::string> stale;
  for (const auto& m : r.spec_.blend) {
    auto member = std::make_unique<Ranker>(load(dir / m.model, hardware, kernel_configs));
    model::check_blend_member(r.spec_, member->spec(), (dir / m.model).string());
    stale.insert(member->stale_features().begin(), member->stale_features().end());
    const bool shares_rows =
        !r.members_.empty() &&
        member->engine().all_features() == r.members_.front().ranker->engine().all_features();
    r.members_.push_back({std::move(member), m.weight, shares_rows});
  }
  r.stale_features_.assign(stale.begin(), stale.end());
  r.shortlist_.insert(r.spec_.shortlist.begin(), r.spec_.shortlist.end());
  return r;
}

bool Ranker::has_target(const std::string& target) const {
  return std::find(spec_.targets.begin(), spec_.targets.end(), target) != spec_.targets.end();
}

void Ranker::set_cascade(const Cascade& cascade) {
  if (classifier_ && cascade.enabled())
    throw InputError("", 0, "cascade",
                     "a classify model scores one small model per context and has no ordering "
                     "model to cut short: leave out --cascade");
  cascade_ = cascade;
  for (auto& m : members_) m.ranker->set_cascade(cascade);
}

std::size_t Ranker::num_trees() const {
  if (!members_.empty()) {
    std::size_t trees = 0;
    for (const auto& m : members_) trees += m.ranker->num_trees();
    return trees;
  }
  if (!classifier_) return models_[primary_].forest.num_trees();
  std::size_t trees = 0;
  for (const auto& c : classifier_->contexts())
    if (c.forest) trees += c.forest->num_trees();
  return trees;
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

std::unique_ptr<features::KernelBlock> Ranker::prepare(std::span<const std::string> kernels) const {
  if (!members_.empty()) return members_.front().ranker->prepare(kernels);  // same op, same block
  if (!classifier_) return engine_->prepare(kernels);
  auto block = std::make_unique<NamedKernels>();
  block->names.assign(kernels.begin(), kernels.end());
  return block;
}

void Ranker::check_dtype(std::string_view problem) const {
  if (spec_.dtype == "any" || spec_.dtype.empty()) return;  // empty: the data had no dtype
  std::string dtype = engine_->dtype(problem);
  if (dtype != spec_.dtype)
    throw InputError("", 0, "dtype",
                     "the model was trained on " + spec_.dtype + " data; the problem is " + dtype);
}

void Ranker::predict(const TargetModel& m, std::size_t rows, std::vector<float>& raw) const {
  raw.resize(rows);
  m.forest.predict(rows_.data(), rows, all_columns_.size(), raw.data());
}

Cascade Cascade::parse(const std::string& text) {
  if (text == "off" || text.empty()) return {};
  auto colon = text.find(':');
  std::optional<long> prefix, survivors;
  if (colon != std::string::npos) {
    prefix = parse_int(std::string_view(text).substr(0, colon));
    survivors = parse_int(std::string_view(text).substr(colon + 1));
  }
  if (!prefix || !survivors || *prefix < 1 || *survivors < 1)
    throw InputError(
        "", 0, "cascade",
        "expected P:S (prefix trees, survivors, both >= 1) or off, got '" + text + "'");
  return {std::size_t(*prefix), std::size_t(*survivors)};
}

void Ranker::primary_margins(const float* feature_rows, std::size_t n,
                             std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec_.objective, m.target);
  thread_local std::vector<float> raw;
  out.resize(n);
  const std::size_t trees = m.forest.num_trees();
  if (!cascade_.enabled() || n <= cascade_.survivors || trees <= cascade_.prefix_trees) {
    raw.resize(n);
    m.forest.predict(feature_rows, n, all_columns_.size(), raw.data());
    for (std::size_t i = 0; i < n; ++i) out[i] = sign * double(raw[i]);
    return;
  }
  thread_local std::vector<const float*> rows;
  rows.resize(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = feature_rows + i * all_columns_.size();
  raw.resize(n);
  for (std::size_t i = 0; i < n; ++i) raw[i] = m.forest.start_margin(rows[i]);
  m.forest.accumulate(rows.data(), n, 0, cascade_.prefix_trees, raw.data());
  thread_local std::vector<std::size_t> order;
  order.resize(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::nth_element(order.begin(), order.begin() + cascade_.survivors, order.end(),
                   [&](std::size_t a, std::size_t b) { return sign * raw[a] > sign * raw[b]; });
  for (std::size_t i = 0; i < n; ++i) out[i] = sign * double(raw[i]) - Cascade::kCutPenalty;
  thread_local std::vector<const float*> kept_rows;
  thread_local std::vector<float> kept_raw;
  kept_rows.clear(), kept_raw.clear();
  for (std::size_t j = 0; j < cascade_.survivors; ++j)
    kept_rows.push_back(rows[order[j]]), kept_raw.push_back(raw[order[j]]);
  m.forest.accumulate(kept_rows.data(), kept_rows.size(), cascade_.prefix_trees, trees,
                      kept_raw.data());
  for (std::size_t j = 0; j < cascade_.survivors; ++j) out[order[j]] = sign * double(kept_raw[j]);
}

void Ranker::score(std::string_view problem, const features::KernelBlock& kernels,
                   std::vector<double>& out) const {
  if (!members_.empty()) return blend_scores(problem, kernels, out, nullptr);
  check_dtype(problem);
  if (classifier_) {
    const auto* named = dynamic_cast<const NamedKernels*>(&kernels);
    if (!named) throw std::logic_error("Ranker::score: a block from another Ranker's prepare()");
    classifier_->score(*problem_features_, problem, named->names, out);
    return;
  }
  const std::size_t n = kernels.size();
  rows_.resize(n * all_columns_.size());
  engine_->extract_rows(problem, kernels, all_columns_, rows_.data());
  primary_margins(rows_.data(), n, out);
}

std::vector<Scored> Ranker::rank(std::string_view problem, const features::KernelBlock& kernels,
                                 std::span<const std::string> names) const {
  if (names.size() != kernels.size())
    throw InputError("kernel names and prepared block differ in size");
  if (!members_.empty()) return rank_blend(problem, kernels, names);
  std::vector<double> scores;
  score(problem, kernels, scores);  // with forest models also fills rows_ (read below)
  std::vector<Scored> out(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) out[i].kernel = names[i], out[i].score = scores[i];
  if (classifier_)
    for (auto& s : out)
      if (s.score != model::KernelClassifier::kNotAClass) s.probability = s.score;
  std::vector<float> raw;
  for (std::size_t k = 0; k < models_.size(); ++k) {
    const TargetModel& m = models_[k];
    if (spec_.objective == model::Objective::kRanking) break;  // ranking scores have no unit
    // Without a cascade the scores are the ordering model's whole margins (signed): reuse them
    // instead of walking its forest a second time.
    const bool reuse = int(k) == primary_ && !cascade_.enabled();
    if (!reuse) predict(m, names.size(), raw);
    const double sign = model::score_sign(spec_.objective, m.target);
    for (std::size_t i = 0; i < names.size(); ++i) {
      double margin = reuse ? sign * scores[i] : double(raw[i]);
      double value = spec_.decode(m.target, margin);
      if (int(k) == primary_)
        out[i].speed = model::predicted_speed(spec_.objective, m.target, value);
      if (spec_.objective == model::Objective::kEfficiency) {
        out[i].efficiency = value;
        continue;
      }
      if (m.target == "tflops") out[i].tflops = value;
      if (m.target == "latency") out[i].latency_ms = value;
      if (m.target == "bandwidth") out[i].bandwidth_gb_s = value;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.score > b.score; });
  return out;
}

void Ranker::row_margins(std::span<const float* const> rows, std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec_.objective, m.target);
  thread_local std::vector<float> raw;
  raw.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) raw[i] = m.forest.start_margin(rows[i]);
  m.forest.accumulate(rows.data(), rows.size(), 0, m.forest.num_trees(), raw.data());
  out.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = sign * double(raw[i]);
}

void Ranker::member_margins(std::size_t k, std::string_view problem,
                            const features::KernelBlock& kernels,
                            std::span<const std::size_t> scored, std::vector<double>& out) const {
  const Member& member = members_[k];
  if (k > 0 && member.shares_rows) {  // the first member's score() extracted every row
    const Ranker& first = *members_.front().ranker;
    if (scored.size() == kernels.size()) {  // all of them: through the member's own cascade
      member.ranker->primary_margins(first.rows_.data(), scored.size(), out);
      return;
    }
    thread_local std::vector<const float*> rows;
    rows.clear();
    for (std::size_t i : scored) rows.push_back(first.rows_.data() + i * first.all_columns_.size());
    member.ranker->row_margins(rows, out);
    return;
  }
  thread_local std::vector<double> all;
  member.ranker->score(problem, kernels, all);
  out.resize(scored.size());
  for (std::size_t j = 0; j < scored.size(); ++j) out[j] = all[scored[j]];
}

// Each member's relative log speed, log(speed) minus that of the member's own pick (0 for it),
// weighted and summed. A member's speeds come from its ordering model's margins (the fast path:
// no names, no sorting); a kernel its cascade cut keeps the cut penalty. The later members
// score only the first member's best FeatureSpec::blend_survivors candidates (the rest rank
// after them, in the first member's order), from the first member's feature rows when their
// engines' columns agree. `detail`, when given, receives each kernel's decoded TFLOPS, latency,
// bandwidth or efficiency from the first member that predicts it.
void Ranker::blend_scores(std::string_view problem, const features::KernelBlock& kernels,
                          std::vector<double>& out, std::vector<Scored>* detail) const {
  const std::size_t n = kernels.size();
  out.assign(n, 0.0);
  std::vector<std::size_t> scored(n);
  std::iota(scored.begin(), scored.end(), std::size_t(0));
  std::vector<double> margins, logs;
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const std::size_t survivors = spec_.blend_survivors;
    if (k == 1 && survivors > 0 && survivors < n) {  // out holds the first member's scores
      std::nth_element(scored.begin(), scored.begin() + std::ptrdiff_t(survivors), scored.end(),
                       [&](std::size_t a, std::size_t b) { return out[a] > out[b]; });
      scored.resize(survivors);
      std::sort(scored.begin(), scored.end());
      std::vector<bool> kept(n, false);
      for (std::size_t i : scored) kept[i] = true;
      for (std::size_t i = 0; i < n; ++i)
        if (!kept[i]) out[i] -= Cascade::kCutPenalty;
    }
    member_margins(k, problem, kernels, scored, margins);
    const Ranker& r = *members_[k].ranker;
    const TargetModel& m = r.models_[r.primary_];
    const double sign = model::score_sign(r.spec_.objective, m.target);
    double top = -std::numeric_limits<double>::infinity();
    logs.assign(scored.size(), std::nan(""));
    for (std::size_t j = 0; j < scored.size(); ++j) {
      if (Cascade::is_cut(margins[j])) continue;
      const double value = r.spec_.decode(m.target, sign * margins[j]);
      logs[j] =
          std::log(std::max(model::predicted_speed(r.spec_.objective, m.target, value), 1e-300));
      top = std::max(top, logs[j]);
      if (!detail) continue;
      Scored& d = (*detail)[scored[j]];
      double& field = r.spec_.objective == model::Objective::kEfficiency ? d.efficiency
                      : m.target == "tflops"                             ? d.tflops
                      : m.target == "latency"                            ? d.latency_ms
                                                                         : d.bandwidth_gb_s;
      if (std::isnan(field)) field = value;
    }
    for (std::size_t j = 0; j < scored.size(); ++j)
      out[scored[j]] +=
          std::isnan(logs[j]) ? -Cascade::kCutPenalty : members_[k].weight * (logs[j] - top);
  }
}

std::vector<Scored> Ranker::rank_blend(std::string_view problem,
                                       const features::KernelBlock& kernels,
                                       std::span<const std::string> names) const {
  std::vector<Scored> out(names.size());
  std::vector<double> scores;
  blend_scores(problem, kernels, scores, &out);
  for (std::size_t i = 0; i < names.size(); ++i) {
    out[i].kernel = names[i];
    out[i].score = scores[i];
    // A kernel beyond the survivors (or cut by a cascade) has no whole score: no speed, so the
    // default guard never compares against it (DefaultGuard::keeps_default).
    out[i].speed = Cascade::is_cut(scores[i]) ? std::nan("") : std::exp(scores[i]);
  }
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.score > b.score; });
  return out;
}

std::vector<Scored> Ranker::rank(std::string_view problem,
                                 std::span<const std::string> kernels) const {
  return rank(problem, *prepare(kernels), kernels);
}

}  // namespace kselect::select
