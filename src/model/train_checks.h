#pragma once
// What train() refuses before it trains (private to model/): options that cannot make a model,
// and warm starts whose continued model the new trees could not add to.
#include <map>
#include <string>

#include "features/engine.h"
#include "model/feature_spec.h"
#include "model/train.h"

namespace kselect::model {

// InputError for the first option that cannot train a model: a blend objective, several
// targets for the efficiency or classify objective, a classify warm start, no output directory,
// values out of range, and the boosting parameters' own checks (check_boosting).
void check_options(const TrainOptions& o);

// A warm start continues the same op, objective, time statistic and feature list, computed by
// the same formulas (`revisions`, the engine's), or refuses with InputError.
void check_warm_start(const FeatureSpec& previous, const features::Schema& schema,
                      const std::map<std::string, int>& revisions, const TrainOptions& o);

// A warm start of a model of one dtype continues on data of that dtype (`dtype`, the dataset's).
void check_warm_start_dtype(const FeatureSpec& previous, const std::string& dtype);

}  // namespace kselect::model
