#pragma once
// Feature tables: the rows a model trains on, as CSV, for inspecting features against measured
// times or for training with other tools (`kselect features`, docs/cli.md). The rows come from
// FeatureEngine::extract_rows, the path training and selection use, so a table shows exactly
// what a model sees.
#include <cstddef>
#include <ostream>
#include <span>
#include <string>

#include "data/measurement.h"
#include "features/engine.h"

namespace kselect::features {

struct TableOptions {
  std::string op;      // the measurements' op
  std::string dtype;   // only problems of this dtype; "" = all
  std::string schema;  // "" = the engine's default
};

// Writes the header `problem,kernel,<schema's features>,latency_ms,tflops` and one line per valid
// measurement of options.op (and dtype), grouped by problem in problem order, kernels in input
// order. Returns the number of rows written. Throws InputError for an unknown schema, or when no
// valid row matches (naming the dtypes the data holds).
std::size_t write_feature_table(std::span<const data::Measurement> rows,
                                const FeatureEngine& engine, const TableOptions& options,
                                std::ostream& out);

}  // namespace kselect::features
