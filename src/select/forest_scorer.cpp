#include "select/forest_scorer.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace kselect::select {

std::unique_ptr<ForestScorer> ForestScorer::load(const std::filesystem::path& dir,
                                                 model::FeatureSpec spec,
                                                 std::vector<std::string> stale_features,
                                                 std::unique_ptr<features::FeatureEngine> engine) {
  std::unique_ptr<ForestScorer> scorer(
      new ForestScorer(std::move(spec), std::move(stale_features), std::move(engine)));
  scorer->load_targets(dir);
  return scorer;
}

ForestScorer::ForestScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
                           std::unique_ptr<features::FeatureEngine> engine)
    : Scorer(std::move(spec), std::move(stale_features)), engine_(std::move(engine)) {
  all_columns_.resize(engine_->all_features().size());
  std::iota(all_columns_.begin(), all_columns_.end(), 0);
}

void ForestScorer::load_targets(const std::filesystem::path& dir) {
  const model::FeatureSpec& s = spec();
  std::vector<int> mapping =
      engine_->columns_of(s.features, "model " + (dir / "feature_spec.json").string());
  for (const auto& target : s.targets) {
    auto file = model::model_file(dir, target);
    if (file.empty())
      throw StorageError((dir / ("model_" + target + ".json")).string() +
                         ": missing (listed in feature_spec.json targets)");
    TargetModel m{target, model::Forest::load(file)};
    // The model file and the spec must describe the same columns: a feature removed from or
    // added to feature_names would shift every later column.
    const int declared = m.forest.declared_features();
    if (declared > 0 && declared != int(mapping.size()))
      throw StorageError(file.string() + ": the model was trained on " + std::to_string(declared) +
                         " features but feature_spec.json lists " + std::to_string(mapping.size()) +
                         " (feature_names)");
    if (m.forest.num_features() > int(mapping.size()))
      throw StorageError(file.string() + ": reads feature " +
                         std::to_string(m.forest.num_features() - 1) +
                         " but feature_spec.json lists " + std::to_string(mapping.size()));
    if (const model::Prior* prior = s.prior(target)) {
      const auto& names = s.features;
      m.forest.set_prior(int(std::find(names.begin(), names.end(), prior->feature) - names.begin()),
                         prior->scale, file.string());
    }
    m.forest.remap_features(mapping);
    models_.push_back(std::move(m));
  }
  if (models_.empty()) throw StorageError(dir.string() + ": feature_spec.json lists no targets");
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (models_[i].target == "tflops") primary_ = int(i);
}

std::size_t ForestScorer::num_trees() const {
  return models_[primary_].forest.num_trees();
}

std::unique_ptr<features::KernelBlock> ForestScorer::prepare(
    std::span<const std::string> kernels) const {
  return engine_->prepare(kernels);
}

void ForestScorer::predict(const TargetModel& m, std::size_t rows, std::vector<float>& raw) const {
  raw.resize(rows);
  m.forest.predict(rows_.data(), rows, all_columns_.size(), raw.data());
}

double ForestScorer::decoded(double margin) const {
  const TargetModel& m = models_[primary_];
  return spec().decode(m.target, model::score_sign(spec().objective, m.target) * margin);
}

double ForestScorer::speed(double decoded) const {
  return model::predicted_speed(spec().objective, models_[primary_].target, decoded);
}

void ForestScorer::ordering_margins(const float* feature_rows, std::size_t n,
                                    std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec().objective, m.target);
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

void ForestScorer::full_margins(std::span<const float* const> rows,
                                std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec().objective, m.target);
  thread_local std::vector<float> raw;
  raw.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) raw[i] = m.forest.start_margin(rows[i]);
  m.forest.accumulate(rows.data(), rows.size(), 0, m.forest.num_trees(), raw.data());
  out.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = sign * double(raw[i]);
}

void ForestScorer::score(std::string_view problem, const features::KernelBlock& kernels,
                         std::vector<double>& out) const {
  const std::size_t n = kernels.size();
  rows_.resize(n * all_columns_.size());
  engine_->extract_rows(problem, kernels, all_columns_, rows_.data());
  ordering_margins(rows_.data(), n, out);
}

std::vector<Scored> ForestScorer::scored(std::string_view problem,
                                         const features::KernelBlock& kernels,
                                         std::span<const std::string> names) const {
  std::vector<double> scores;
  score(problem, kernels, scores);  // also fills rows_, which the other targets read
  std::vector<Scored> out(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) out[i].kernel = names[i], out[i].score = scores[i];
  const model::FeatureSpec& s = spec();
  if (s.objective == model::Objective::kRanking) return out;  // ranking scores have no unit
  std::vector<float> raw;
  for (std::size_t k = 0; k < models_.size(); ++k) {
    const TargetModel& m = models_[k];
    // Without a cascade the scores are the ordering model's whole margins (signed): reuse them
    // instead of walking its forest a second time.
    const bool reuse = int(k) == primary_ && !cascade_.enabled();
    if (!reuse) predict(m, names.size(), raw);
    const double sign = model::score_sign(s.objective, m.target);
    for (std::size_t i = 0; i < names.size(); ++i) {
      double margin = reuse ? sign * scores[i] : double(raw[i]);
      double value = s.decode(m.target, margin);
      if (int(k) == primary_) out[i].speed = model::predicted_speed(s.objective, m.target, value);
      if (s.objective == model::Objective::kEfficiency) {
        out[i].efficiency = value;
        continue;
      }
      if (m.target == "tflops") out[i].tflops = value;
      if (m.target == "latency") out[i].latency_ms = value;
      if (m.target == "bandwidth") out[i].bandwidth_gb_s = value;
    }
  }
  return out;
}

}  // namespace kselect::select
