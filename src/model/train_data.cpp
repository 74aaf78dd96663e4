#include "model/train_data.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/key_values.h"
#include "features/problem_rows.h"
#include "model/forest.h"
#include "model/train_checks.h"
#include "ops/operation.h"

namespace kselect::model {

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names = {"tflops", "latency", "bandwidth"};
  return names;
}

double target_value(const data::Measurement& m, const std::string& target) {
  if (target == "tflops") return m.tflops;
  if (target == "latency") return m.median_ms;
  if (target == "bandwidth") return m.bandwidth_gb_s;
  throw InputError("", 0, "target",
                   "unknown target '" + target + "' (expected tflops, latency or bandwidth)");
}

double default_scale(const std::string& target) {
  return target == "bandwidth" ? 1.0 : 1e3;  // TFLOPS as GFLOPS, milliseconds as microseconds
}

bool has_usable_target(const data::Measurement& m, const std::string& target) {
  const double v = target_value(m, target);
  return std::isfinite(v) && v > 0;
}

namespace {

// Valid rows of the data op (and dtype) for an engine that fits its features from the data.
std::vector<const data::Measurement*> fit_rows(const std::vector<data::Measurement>& all,
                                               const TrainOptions& o) {
  std::vector<const data::Measurement*> rows;
  for (const auto& m : all) {
    if (m.op != o.data_op || !m.valid) continue;
    if (!o.dtype.empty() && KeyValues::parse(m.problem).get("dtype").value_or("") != o.dtype)
      continue;
    rows.push_back(&m);
  }
  if (rows.empty())
    throw InputError("", 0, o.dtype.empty() ? "op" : "dtype",
                     "no valid measurements for operation '" + o.data_op + "'" +
                         (o.dtype.empty() ? "" : " with dtype '" + o.dtype + "'"));
  return rows;
}

}  // namespace

std::unique_ptr<features::FeatureEngine> make_train_engine(
    const std::vector<data::Measurement>& all, const TrainOptions& o, const FeatureSpec* previous,
    nlohmann::json& state) {
  const Operation& op = find_operation(o.op);
  state = op.capabilities().fits_feature_state
              ? op.fit_feature_state(fit_rows(all, o), o.kernel_configs, o.encoding)
              : nlohmann::json();
  auto engine = op.make_feature_engine(o.hardware, state);
  if (!previous || state.is_null()) return engine;
  check_warm_start(*previous, engine->schema(engine->default_schema()), engine->feature_revisions(),
                   o);
  state = op.extend_feature_state(previous->engine_state, o.kernel_configs);
  return op.make_feature_engine(o.hardware, state);
}

std::string default_target(const std::vector<data::Measurement>& all, const TrainOptions& o,
                           std::string& note) {
  if (find_operation(o.op).capabilities().always_has_flops) return "tflops";
  for (const auto& m : all)
    if (m.op == o.data_op && m.valid && m.tflops > 0) {
      note = "tflops (the data has TFLOPS)";
      return "tflops";
    }
  note = "latency (no row has TFLOPS > 0)";
  return "latency";
}

Dataset build_dataset(const std::vector<data::Measurement>& all, const TrainOptions& options,
                      const features::FeatureEngine& engine, const features::Schema& schema,
                      bool with_features) {
  Dataset d;
  const std::string& data_op = options.data_op.empty() ? options.op : options.data_op;
  const features::ProblemRows grouped =
      features::group_by_problem(all, engine, data_op, options.dtype);
  if (grouped.dtype_counts.empty())
    throw InputError("", 0, "op", "no measurements for operation '" + data_op + "'");
  if (grouped.rows == 0)
    throw InputError("", 0, "dtype",
                     "no measurements with dtype '" + options.dtype + "' (the data has " +
                         grouped.dtypes_present() + ")");
  d.data_rows = grouped.rows;
  d.dtype = !options.dtype.empty()             ? options.dtype
            : grouped.dtype_counts.size() == 1 ? grouped.dtype_counts.begin()->first
                                               : "any";
  std::vector<int> columns = engine.columns_of(schema.features, "schema " + schema.name);
  d.cols = columns.size();
  std::map<std::string, int> shapes;
  for (const auto& [problem, rows] : grouped.by_problem) {
    if (with_features) {
      std::size_t offset = d.x.size();
      d.x.resize(offset + rows.size() * d.cols);
      features::extract_measured(engine, problem, rows, columns, d.x.data() + offset);
    }
    std::string group = engine.group_key(problem);
    shapes[group] = 1;
    d.rows.insert(d.rows.end(), rows.begin(), rows.end());
    d.groups.insert(d.groups.end(), rows.size(), group);
  }
  d.unique_shapes = shapes.size();
  return d;
}

std::vector<std::size_t> target_rows(std::span<const data::Measurement* const> rows,
                                     const std::string& target) {
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (has_usable_target(*rows[i], target)) usable.push_back(i);
  if (usable.empty())
    throw InputError("", 0, "target", "target '" + target + "' has no valid rows (valid and > 0)");
  return usable;
}

std::vector<double> within_problem_efficiency(const Dataset& d,
                                              const std::vector<std::size_t>& rows,
                                              const std::string& target) {
  std::map<std::string, double> best;
  const bool higher = higher_is_better(target);
  for (auto r : rows) {
    double v = target_value(*d.rows[r], target);
    auto [it, fresh] = best.emplace(d.rows[r]->problem, v);
    if (!fresh) it->second = higher ? std::max(it->second, v) : std::min(it->second, v);
  }
  std::vector<double> efficiency;
  efficiency.reserve(rows.size());
  for (auto r : rows) {
    double v = target_value(*d.rows[r], target), b = best[d.rows[r]->problem];
    efficiency.push_back(higher ? v / b : b / v);
  }
  return efficiency;
}

std::vector<float> make_labels(const Dataset& d, const std::vector<std::size_t>& rows,
                               const std::string& target, const FeatureSpec& spec) {
  std::vector<float> labels;
  labels.reserve(rows.size());
  if (spec.objective == Objective::kRegression) {
    for (auto r : rows)
      labels.push_back(float(spec.encode(target, target_value(*d.rows[r], target))));
    return labels;
  }
  const bool grades = spec.objective == Objective::kRanking;
  for (double e : within_problem_efficiency(d, rows, target))
    labels.push_back(grades ? float(std::round(30.0 * e)) : float(std::log(e)));
  return labels;
}

std::vector<bool> training_mask(const Dataset& d, const std::vector<std::size_t>& rows,
                                const std::string& target, const TrainOptions& o) {
  if (o.min_efficiency <= 0) return std::vector<bool>(rows.size(), true);
  std::vector<bool> trains;
  trains.reserve(rows.size());
  for (double e : within_problem_efficiency(d, rows, target))
    trains.push_back(e >= o.min_efficiency);
  return trains;
}

namespace {

// Regression row weights efficiency^near_best_weight, scaled to a mean of 1: the pick only
// depends on the order of the fast kernels, so errors on kernels far from a problem's best
// matter less.
std::vector<float> near_best_weights(const Dataset& d, const std::vector<std::size_t>& rows,
                                     const std::string& target, double exponent) {
  std::vector<double> raw;
  raw.reserve(rows.size());
  double sum = 0;
  for (double e : within_problem_efficiency(d, rows, target))
    sum += raw.emplace_back(std::pow(std::max(e, 0.01), exponent));
  // Scaled to a mean of 1, so min_child_weight keeps its meaning (a count of average rows).
  std::vector<float> weights;
  weights.reserve(raw.size());
  for (double w : raw) weights.push_back(float(w * double(raw.size()) / sum));
  return weights;
}

}  // namespace

std::unique_ptr<xgb::Matrix> make_matrix(const Dataset& d, const std::vector<std::size_t>& rows,
                                         const std::vector<float>& labels,
                                         const std::string& target,
                                         const std::vector<std::string>& names,
                                         const TrainOptions& options,
                                         const std::optional<RowPrior>& prior) {
  std::vector<float> x(rows.size() * d.cols);
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::copy_n(d.x.data() + rows[i] * d.cols, d.cols, x.data() + i * d.cols);
  auto m = std::make_unique<xgb::Matrix>(x.data(), rows.size(), d.cols, options.boosting.threads);
  m->set_labels(labels);
  m->set_feature_names(names);
  if (prior) {
    std::vector<float> margins(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      margins[i] = prior_margin(prior->scale, x[i * d.cols + prior->column]);
    m->set_base_margin(margins);
  }
  if (options.objective == Objective::kRanking) {  // rows are grouped by problem: run lengths
    std::vector<unsigned> sizes;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i == 0 || d.rows[rows[i]]->problem != d.rows[rows[i - 1]]->problem) sizes.push_back(0);
      ++sizes.back();
    }
    m->set_groups(sizes);
  } else if (options.near_best_weight > 0) {
    m->set_weights(near_best_weights(d, rows, target, options.near_best_weight));
  }
  return m;
}

}  // namespace kselect::model
