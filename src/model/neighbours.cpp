#include "model/neighbours.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/file_io.h"

namespace kselect::model {

namespace {

// A column spanning more than this ratio is compared in log2: sizes, not their differences,
// make problems alike.
constexpr double kLogSpan = 16;

// Which columns are the problem's own: equal over each problem's rows, not over all problems.
std::vector<std::size_t> problem_columns(std::span<const float> features, std::size_t cols,
                                         const std::vector<NeighbourRow>& rows,
                                         std::size_t problems) {
  std::vector<std::size_t> first(problems, rows.size());
  std::vector<bool> constant(cols, true), varies(cols, false);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::size_t& f = first[rows[r].problem];
    if (f == rows.size()) f = r;
    for (std::size_t c = 0; c < cols; ++c) {
      const float v = features[r * cols + c], own = features[f * cols + c], any = features[c];
      if (v != own) constant[c] = false;
      if (v != any) varies[c] = true;
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < cols; ++c)
    if (constant[c] && varies[c]) out.push_back(c);
  return out;
}

double squared_distance(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

}  // namespace

NeighbourTable NeighbourTable::build(const std::vector<std::string>& feature_names,
                                     std::span<const float> features,
                                     const std::vector<NeighbourRow>& rows,
                                     const std::vector<std::string>& problems,
                                     const std::vector<int>& folds, int count, double weight,
                                     double gate, double power) {
  if (count < 1) throw InputError("", 0, "neighbours", "expected at least 1 neighbour");
  if (!(weight >= 0 && weight < 1))
    throw InputError("", 0, "neighbour-weight", "expected a weight in [0, 1)");
  if (!(gate >= 0 && gate <= 1))
    throw InputError("", 0, "neighbour-gate", "expected a quantile in (0, 1], or 0: no gate");
  if (!(power >= 0 && power <= 8))
    throw InputError("", 0, "neighbour-power", "expected a power in [0, 8] (0: equal weights)");
  const std::size_t cols = feature_names.size();
  if (rows.empty() || features.size() != rows.size() * cols || folds.size() != problems.size())
    throw std::logic_error("NeighbourTable::build: inconsistent rows");
  const std::vector<std::size_t> used = problem_columns(features, cols, rows, problems.size());
  if (used.empty())
    throw InputError("", 0, "neighbours",
                     "the training problems share every feature: nothing tells them apart");
  NeighbourTable t;
  t.count_ = count, t.weight_ = weight, t.power_ = power;
  std::vector<std::vector<double>> raw(problems.size(), std::vector<double>(used.size()));
  for (const NeighbourRow& r : rows) {
    const std::size_t i = std::size_t(&r - rows.data());
    for (std::size_t j = 0; j < used.size(); ++j)
      raw[r.problem][j] = double(features[i * cols + used[j]]);
  }
  for (std::size_t j = 0; j < used.size(); ++j) {
    double lo = raw[0][j], hi = raw[0][j];
    for (const auto& v : raw) lo = std::min(lo, v[j]), hi = std::max(hi, v[j]);
    t.columns_.push_back(feature_names[used[j]]);
    t.logged_.push_back(lo > 0 && hi / lo > kLogSpan);
    double sum = 0, squares = 0;
    for (auto& v : raw) {
      if (t.logged_[j]) v[j] = std::log2(v[j]);
      sum += v[j], squares += v[j] * v[j];
    }
    const double n = double(raw.size()), mean = sum / n;
    t.mean_.push_back(mean);
    t.sd_.push_back(std::sqrt(std::max(squares / n - mean * mean, 0.0)));
  }
  std::map<std::string, std::size_t> kernels;
  for (const NeighbourRow& r : rows) kernels.emplace(r.kernel, 0);
  for (auto& [name, index] : kernels) index = t.kernels_.size(), t.kernels_.push_back(name);
  t.problems_.resize(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    Problem& dst = t.problems_[p];
    dst.text = problems[p], dst.fold = folds[p];
    for (std::size_t j = 0; j < used.size(); ++j)
      dst.position.push_back(t.sd_[j] > 0 ? (raw[p][j] - t.mean_[j]) / t.sd_[j] : 0.0);
  }
  for (const NeighbourRow& r : rows)
    t.problems_[r.problem].kernels.push_back(
        {kernels[r.kernel], std::log(std::clamp(r.efficiency, 1e-9, 1.0))});
  for (Problem& p : t.problems_) std::sort(p.kernels.begin(), p.kernels.end());
  t.index();
  t.set_gate(gate);
  return t;
}

double NeighbourTable::neighbour_weight(double squared) const {
  return power_ > 0 ? 1.0 / (std::pow(squared, power_ / 2) + kDistanceFloor) : 1.0;
}

void NeighbourTable::by_distance(std::span<const double> position, int skip_fold,
                                 std::string_view skip_problem, std::size_t sorted,
                                 std::vector<std::pair<double, std::size_t>>& order) const {
  order.clear();
  for (std::size_t p = 0; p < problems_.size(); ++p) {
    const Problem& q = problems_[p];
    if ((skip_fold >= 0 && q.fold == skip_fold) || q.text == skip_problem) continue;
    order.push_back({squared_distance(position, q.position), p});
  }
  std::partial_sort(order.begin(), order.begin() + long(std::min(sorted, order.size())),
                    order.end());
}

double NeighbourTable::spread(const std::vector<std::pair<double, std::size_t>>& order) const {
  const std::size_t n = std::min(order.size(), std::size_t(count_));
  double sum = 0;
  for (std::size_t o = 0; o < n; ++o) sum += std::sqrt(order[o].first);
  return n > 0 ? sum / double(n) : 0.0;
}

// Each training problem's spread against all the others; the gate is their `gate` quantile
// (nearest rank).
void NeighbourTable::set_gate(double gate) {
  gate_ = gate, gate_distance_ = 0;
  if (gate <= 0 || problems_.size() < 2) return;
  std::vector<double> spreads;
  std::vector<std::pair<double, std::size_t>> order;
  for (const Problem& p : problems_) {
    // Only the count_ nearest matter: quadratic in the problems, not worse.
    by_distance(p.position, -1, p.text, std::size_t(count_), order);
    spreads.push_back(spread(order));
  }
  std::sort(spreads.begin(), spreads.end());
  gate_distance_ =
      spreads[std::min(spreads.size() - 1, std::size_t(gate * double(spreads.size())))];
}

void NeighbourTable::index() {
  kernel_index_.clear(), problem_index_.clear();
  for (std::size_t k = 0; k < kernels_.size(); ++k) kernel_index_.emplace(kernels_[k], k);
  for (std::size_t p = 0; p < problems_.size(); ++p) problem_index_.emplace(problems_[p].text, p);
}

std::vector<double> NeighbourTable::position(std::span<const double> values) const {
  std::vector<double> out(columns_.size());
  for (std::size_t j = 0; j < out.size(); ++j) {
    double v = logged_[j] ? std::log2(std::max(values[j], 1e-300)) : values[j];
    out[j] = sd_[j] > 0 ? (v - mean_[j]) / sd_[j] : 0.0;
  }
  return out;
}

const std::vector<double>* NeighbourTable::position_of(std::string_view problem) const {
  auto it = problem_index_.find(std::string(problem));
  return it == problem_index_.end() ? nullptr : &problems_[it->second].position;
}

int NeighbourTable::fold_of(std::string_view problem) const {
  auto it = problem_index_.find(std::string(problem));
  return it == problem_index_.end() ? -1 : problems_[it->second].fold;
}

double NeighbourTable::scores(std::span<const double> position,
                              std::span<const std::string> kernels, std::vector<double>& out,
                              int skip_fold, std::string_view skip_problem) const {
  // Training problems nearest first; each kernel then takes the first `count` that measured it.
  thread_local std::vector<std::pair<double, std::size_t>> order;
  by_distance(position, skip_fold, skip_problem, problems_.size(), order);
  out.assign(kernels.size(), kMissing);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto it = kernel_index_.find(kernels[i]);
    if (it == kernel_index_.end()) continue;
    const std::size_t k = it->second;
    double sum = 0, weights = 0;
    int found = 0;
    for (std::size_t o = 0; o < order.size() && found < count_; ++o) {
      const auto& measured = problems_[order[o].second].kernels;
      auto m = std::lower_bound(measured.begin(), measured.end(), std::pair{k, -1e300});
      if (m == measured.end() || m->first != k) continue;
      const double w = neighbour_weight(order[o].first);
      sum += w * m->second, weights += w, ++found;
    }
    if (found > 0) out[i] = sum / weights;
  }
  return gate_ > 0 && spread(order) > gate_distance_ ? 1.0 : weight_;
}

void NeighbourTable::save(const std::filesystem::path& dir) const {
  nlohmann::json j;
  j["format"] = 1;
  j["count"] = count_, j["weight"] = weight_;
  if (gate_ > 0) j["gate"] = gate_, j["gate_distance"] = gate_distance_;
  if (power_ > 0) j["power"] = power_;
  j["columns"] = columns_, j["logged"] = logged_, j["mean"] = mean_, j["sd"] = sd_;
  j["kernels"] = kernels_;
  nlohmann::json& problems = j["problems"] = nlohmann::json::array();
  for (const Problem& p : problems_) {
    std::vector<std::size_t> ids;
    std::vector<double> logs;
    for (const auto& [k, v] : p.kernels) ids.push_back(k), logs.push_back(v);
    problems.push_back({{"problem", p.text},
                        {"fold", p.fold},
                        {"position", p.position},
                        {"kernels", ids},
                        {"log_efficiency", logs}});
  }
  write_json(dir / kFile, j);
}

std::optional<NeighbourTable> NeighbourTable::load(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kFile;
  if (!std::filesystem::exists(path)) return std::nullopt;
  const std::string file = path.string();
  const nlohmann::json j = read_json(path);
  NeighbourTable t;
  std::string field;
  try {
    field = "count", t.count_ = j.at(field).get<int>();
    field = "weight", t.weight_ = j.at(field).get<double>();
    field = "gate", t.gate_ = j.value(field, 0.0);
    field = "gate_distance", t.gate_distance_ = j.value(field, 0.0);
    field = "power", t.power_ = j.value(field, 0.0);
    field = "columns", t.columns_ = j.at(field).get<std::vector<std::string>>();
    field = "logged", t.logged_ = j.at(field).get<std::vector<bool>>();
    field = "mean", t.mean_ = j.at(field).get<std::vector<double>>();
    field = "sd", t.sd_ = j.at(field).get<std::vector<double>>();
    field = "kernels", t.kernels_ = j.at(field).get<std::vector<std::string>>();
    field = "problems";
    for (const auto& p : j.at(field)) {
      Problem q;
      q.text = p.at("problem").get<std::string>();
      q.fold = p.at("fold").get<int>();
      q.position = p.at("position").get<std::vector<double>>();
      auto ids = p.at("kernels").get<std::vector<std::size_t>>();
      auto logs = p.at("log_efficiency").get<std::vector<double>>();
      if (ids.size() != logs.size() || q.position.size() != t.columns_.size())
        throw StorageError(file + ": problems: '" + q.text + "' has mismatched lengths");
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= t.kernels_.size())
          throw StorageError(file + ": problems: '" + q.text + "' names kernel " +
                             std::to_string(ids[i]) + " of " + std::to_string(t.kernels_.size()));
        q.kernels.push_back({ids[i], logs[i]});
      }
      std::sort(q.kernels.begin(), q.kernels.end());
      t.problems_.push_back(std::move(q));
    }
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(file + ": field '" + field + "': " + e.what());
  }
  const std::size_t n = t.columns_.size();
  if (t.count_ < 1 || !(t.weight_ >= 0 && t.weight_ < 1) || !(t.gate_ >= 0 && t.gate_ <= 1) ||
      !(t.gate_distance_ >= 0) || !(t.power_ >= 0 && t.power_ <= 8) || t.logged_.size() != n ||
      t.mean_.size() != n || t.sd_.size() != n || t.problems_.empty())
    throw StorageError(file + ": count, weight or the column lists are inconsistent");
  t.index();
  return t;
}

}  // namespace kselect::model
