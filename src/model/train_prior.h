#pragma once
// The throughput prior of a regression (TrainOptions::prior; private to model/): which feature
// column a target starts from, and the scale that turns that feature into a label.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/train.h"
#include "model/train_data.h"

namespace kselect::model {

// The schema column a regression on `target` starts from: the engine's throughput estimate for
// a fresh tflops regression, the continued model's prior for a warm start (`previous`; the
// feature lists are equal, check_warm_start); none otherwise, or when the schema lacks the
// feature (ck55, ck72).
std::optional<std::size_t> prior_column(const TrainOptions& o,
                                        const features::FeatureEngine& engine,
                                        const features::Schema& schema, const FeatureSpec* previous,
                                        const std::string& target);

// The prior of `column` (none without one) with its scale fitted on `rows` and their `labels`,
// as every model fits what it learns on its own training rows.
std::optional<RowPrior> fitted_prior(const Dataset& d, const std::vector<std::size_t>& rows,
                                     const std::vector<float>& labels,
                                     std::optional<std::size_t> column);

// The final model's prior: fitted on its training rows, or for a warm start the continued
// model's scale, which its trees' margins were fitted against.
std::optional<RowPrior> final_prior(const Dataset& d, const std::vector<std::size_t>& rows,
                                    const std::vector<float>& labels,
                                    std::optional<std::size_t> column, const FeatureSpec* previous,
                                    const std::string& target);

}  // namespace kselect::model
