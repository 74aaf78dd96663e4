#pragma once
// The shortlist of a model (TrainOptions::shortlist, FeatureSpec::shortlist; private to
// model/): the kernels selection ranks, those that came near the best of a training problem.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "model/feature_spec.h"
#include "model/train.h"
#include "model/train_data.h"

namespace kselect::model {

// The target whose model orders selection (select::Ranker): tflops when trained, else the first.
std::string ordering_target(const std::vector<std::string>& targets);

// Whether a model of these options carries a shortlist: every objective that orders a rule
// set's candidates (classify and generic models rank the kernels the model knows already).
bool uses_shortlist(const TrainOptions& o);

// The kernels within `tolerance` of the best measured speed of at least one problem of `rows`
// (TrainOptions::shortlist), sorted.
std::set<std::string> shortlist_of(const Dataset& d, const std::vector<std::size_t>& rows,
                                   const std::string& target, double tolerance);

// Sets spec.shortlist from `rows` when these options use one and `target` orders selection
// (tflops when trained, else the first target). A warm start keeps its continued model's
// (`continued`) kernels and tolerance too.
void set_final_shortlist(FeatureSpec& spec, const Dataset& d, const std::vector<std::size_t>& rows,
                         const std::string& target, const TrainOptions& o,
                         const FeatureSpec* continued);

}  // namespace kselect::model
