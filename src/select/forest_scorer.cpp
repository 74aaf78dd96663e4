#include "select/forest_scorer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "core/error.h"

namespace kselect::select {

namespace {

// The feature rows a scorer's last score() extracted, per thread and per scorer: one scorer
// serves every thread of a dispatcher, and a blend reads its first member's rows after other
// members have scored. An entry whose scorer is gone is only scratch for a later one at the
// same address.
std::vector<float>& rows_of(const ForestScorer* scorer) {
  thread_local std::unordered_map<const ForestScorer*, std::vector<float>> rows;
  return rows[scorer];
}

}  // namespace

std::unique_ptr<ForestScorer> ForestScorer::load(const std::filesystem::path& dir,
                                                 model::FeatureSpec spec,
                                                 std::vector<std::string> stale_features,
                                                 std::unique_ptr<features::FeatureEngine> engine) {
  std::unique_ptr<ForestScorer> scorer(
      new ForestScorer(std::move(spec), std::move(stale_features), std::move(engine)));
  scorer->load_targets(dir);
  scorer->load_neighbours(dir);
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

void ForestScorer::load_neighbours(const std::filesystem::path& dir) {
  neighbours_ = model::NeighbourTable::load(dir);
  if (!neighbours_) return;
  const auto& all = engine_->all_features();
  for (const std::string& column : neighbours_->columns()) {
    auto it = std::find(all.begin(), all.end(), column);
    if (it == all.end())
      throw StorageError((dir / model::NeighbourTable::kFile).string() + ": column '" + column +
                         "' is not a feature of the " + std::string(engine_->op()) + " engine");
    neighbour_columns_.push_back(int(it - all.begin()));
  }
}

std::size_t ForestScorer::num_trees() const {
  return models_[primary_].forest.num_trees();
}

std::unique_ptr<features::KernelBlock> ForestScorer::prepare(
    std::span<const std::string> kernels) const {
  return engine_->prepare(kernels);
}

void ForestScorer::predict(const TargetModel& m, std::size_t rows, std::vector<double>& raw) const {
  raw.resize(rows);
  m.forest.predict_exact(rows_of(this).data(), rows, all_columns_.size(), 0, m.forest.num_trees(),
                         raw.data());
}

double ForestScorer::decoded(double margin) const {
  const TargetModel& m = models_[primary_];
  return spec().decode(m.target, model::score_sign(spec().objective, m.target) * margin);
}

double ForestScorer::speed(double decoded) const {
  return model::predicted_speed(spec().objective, models_[primary_].target, decoded);
}

namespace {
// Copies rows given by pointers into one contiguous block (what Forest::predict_exact reads).
const float* gathered(std::span<const float* const> rows, std::size_t width) {
  thread_local std::vector<float> block;
  block.resize(rows.size() * width);
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::copy(rows[i], rows[i] + width, block.begin() + long(i * width));
  return block.data();
}
}  // namespace

void ForestScorer::ordering_margins(const float* feature_rows, std::size_t n,
                                    std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec().objective, m.target);
  const std::size_t width = all_columns_.size(), trees = m.forest.num_trees();
  out.resize(n);
  if (!cascade_.enabled() || n <= cascade_.survivors || trees <= cascade_.prefix_trees) {
    m.forest.predict_exact(feature_rows, n, width, 0, trees, out.data());
    for (double& v : out) v *= sign;
    return;
  }
  // The prefix on every row, the rest on the survivors: each survivor's margin sums the same
  // leaves in the same order as the whole forest's, so it is the same double.
  thread_local std::vector<double> partial;
  partial.resize(n);
  m.forest.predict_exact(feature_rows, n, width, 0, cascade_.prefix_trees, partial.data());
  thread_local std::vector<std::size_t> order;
  order.resize(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::nth_element(
      order.begin(), order.begin() + long(cascade_.survivors), order.end(),
      [&](std::size_t a, std::size_t b) { return sign * partial[a] > sign * partial[b]; });
  order.resize(cascade_.survivors);
  std::sort(order.begin(), order.end());  // rows in input order, as the whole forest reads them
  thread_local std::vector<const float*> kept_rows;
  thread_local std::vector<double> kept;
  kept_rows.clear(), kept.clear();
  for (std::size_t i : order)
    kept_rows.push_back(feature_rows + i * width), kept.push_back(partial[i]);
  m.forest.predict_exact(gathered(kept_rows, width), kept.size(), width, cascade_.prefix_trees,
                         trees, kept.data());
  for (std::size_t i = 0; i < n; ++i) out[i] = sign * partial[i] - Cascade::kCutPenalty;
  for (std::size_t j = 0; j < order.size(); ++j) out[order[j]] = sign * kept[j];
}

void ForestScorer::full_margins(std::span<const float* const> rows,
                                std::vector<double>& out) const {
  const TargetModel& m = models_[primary_];
  const double sign = model::score_sign(spec().objective, m.target);
  const std::size_t width = all_columns_.size();
  out.resize(rows.size());
  m.forest.predict_exact(gathered(rows, width), rows.size(), width, 0, m.forest.num_trees(),
                         out.data());
  for (double& v : out) v *= sign;
}

const float* ForestScorer::extracted_rows() const {
  return rows_of(this).data();
}

void ForestScorer::margins(std::string_view problem, const features::KernelBlock& kernels,
                           std::vector<double>& out) const {
  const std::size_t n = kernels.size();
  rows_of(this).resize(n * all_columns_.size());
  engine_->extract_rows(problem, kernels, all_columns_, rows_of(this).data());
  ordering_margins(rows_of(this).data(), n, out);
}

double ForestScorer::blend_neighbours(const features::KernelBlock& kernels,
                                      std::vector<double>& scores,
                                      std::vector<double>* near) const {
  if (!neighbours_ || scores.empty()) return 1.0;
  if (kernels.names.size() != scores.size())
    throw std::logic_error("ForestScorer: a kernel block without its names");
  // Every row holds the problem's own columns; the first row's are the problem's.
  const float* row = rows_of(this).data();
  std::vector<double> values;
  for (int column : neighbour_columns_) values.push_back(double(row[column]));
  thread_local std::vector<double> own;
  std::vector<double>& measured = near ? *near : own;
  const double share = neighbours_->scores(neighbours_->position(values), kernels.names, measured);
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (!Cascade::is_cut(scores[i]))
      scores[i] = model::NeighbourTable::blend_speed(share, speed(decoded(scores[i])), measured[i]);
  return share;
}

void ForestScorer::score(std::string_view problem, const features::KernelBlock& kernels,
                         std::vector<double>& out) const {
  margins(problem, kernels, out);
  blend_neighbours(kernels, out);
}

std::vector<Scored> ForestScorer::scored(std::string_view problem,
                                         const features::KernelBlock& kernels,
                                         std::span<const std::string> names) const {
  std::vector<double> scores;
  margins(problem, kernels, scores);  // also fills rows_of(this), which the other targets read
  std::vector<Scored> out(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) out[i].kernel = names[i], out[i].score = scores[i];
  const model::FeatureSpec& s = spec();
  if (s.objective == model::Objective::kRanking) return out;  // ranking scores have no unit
  std::vector<double> raw;
  for (std::size_t k = 0; k < models_.size(); ++k) {
    const TargetModel& m = models_[k];
    // Without a cascade the scores are the ordering model's whole margins (signed): reuse them
    // instead of walking its forest a second time.
    const bool reuse = int(k) == primary_ && !cascade_.enabled();
    if (!reuse) predict(m, names.size(), raw);
    const double sign = model::score_sign(s.objective, m.target);
    for (std::size_t i = 0; i < names.size(); ++i) {
      double margin = reuse ? sign * scores[i] : raw[i];
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
  // With neighbours the ranking is the blend, and so is the speed that the default guard and
  // the dispatcher's confidence compare (exp of the score, as a blend's: a ratio scale).
  if (neighbours_) {
    std::vector<double> blended = scores, near;
    // Where the gate leaves the neighbours out, no candidate has a neighbour score.
    const bool gated = blend_neighbours(kernels, blended, &near) >= 1.0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      out[i].score = blended[i], out[i].neighbour = gated ? std::nan("") : near[i];
      out[i].speed = Cascade::is_cut(blended[i]) ? std::nan("") : std::exp(blended[i]);
    }
  }
  return out;
}

}  // namespace kselect::select
