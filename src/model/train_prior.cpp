#include "model/train_prior.h"

#include <algorithm>
#include <cmath>

namespace kselect::model {

namespace {

// The median of label value over feature value (both > 0), so prior_margin() is the label of a
// typical row. 1 when no row has both.
double fit_prior_scale(const Dataset& d, const std::vector<std::size_t>& rows,
                       const std::vector<float>& labels, std::size_t column) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const float x = d.x[rows[i] * d.cols + column];
    const double value = std::expm1(double(labels[i]));
    if (x > 0 && value > 0) ratios.push_back(value / double(x));
  }
  if (ratios.empty()) return 1;
  auto mid = ratios.begin() + std::ptrdiff_t(ratios.size() / 2);
  std::nth_element(ratios.begin(), mid, ratios.end());
  return *mid;
}

}  // namespace

std::optional<std::size_t> prior_column(const TrainOptions& o,
                                        const features::FeatureEngine& engine,
                                        const features::Schema& schema, const FeatureSpec* previous,
                                        const std::string& target) {
  std::string feature;
  if (previous) {
    if (const Prior* kept = previous->prior(target)) feature = kept->feature;
  } else if (o.prior && o.objective == Objective::kRegression && target == "tflops") {
    feature = engine.throughput_prior();
  }
  const auto& names = schema.features;
  auto it = std::find(names.begin(), names.end(), feature);
  if (feature.empty() || it == names.end()) return std::nullopt;
  return std::size_t(it - names.begin());
}

std::optional<RowPrior> fitted_prior(const Dataset& d, const std::vector<std::size_t>& rows,
                                     const std::vector<float>& labels,
                                     std::optional<std::size_t> column) {
  if (!column) return std::nullopt;
  return RowPrior{*column, fit_prior_scale(d, rows, labels, *column)};
}

std::optional<RowPrior> final_prior(const Dataset& d, const std::vector<std::size_t>& rows,
                                    const std::vector<float>& labels,
                                    std::optional<std::size_t> column, const FeatureSpec* previous,
                                    const std::string& target) {
  if (column && previous) return RowPrior{*column, previous->prior(target)->scale};
  return fitted_prior(d, rows, labels, column);
}

}  // namespace kselect::model
