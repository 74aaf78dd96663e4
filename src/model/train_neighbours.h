#pragma once
// The nearest-problems table of a training (TrainOptions::neighbours, model/neighbours.h;
// private to model/).
#include <cstddef>
#include <string>
#include <vector>

#include "model/train.h"
#include "model/train_data.h"

namespace kselect::model {

// Writes <out>/neighbours.json from the rows of `target` (the one that orders selection), each
// problem with the fold cross-validation gave it (-1 without cross-validation) when the options
// ask for neighbours; a warm start copies its continued model's table; otherwise removes a
// table left in the directory by an earlier training.
void write_neighbours(const Dataset& d, const std::string& target,
                      const std::vector<std::string>& feature_names, const TrainOptions& o,
                      bool cv);

}  // namespace kselect::model
