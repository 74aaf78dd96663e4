#include "features/table.h"

#include <cstdio>
#include <map>
#include <vector>

#include "core/csv.h"
#include "core/error.h"

namespace kselect::features {

namespace {

// Valid rows of the op (and dtype) by problem; `dtypes` counts the op's rows per dtype.
std::map<std::string, std::vector<const data::Measurement*>> rows_by_problem(
    std::span<const data::Measurement> rows, const FeatureEngine& engine,
    const TableOptions& options, std::map<std::string, int>& dtypes) {
  std::map<std::string, std::vector<const data::Measurement*>> by_problem;
  for (const auto& m : rows) {
    if (m.op != options.op || !m.valid) continue;
    const std::string dtype = engine.dtype(m.problem);
    ++dtypes[dtype];
    if (options.dtype.empty() || dtype == options.dtype) by_problem[m.problem].push_back(&m);
  }
  return by_problem;
}

std::string no_rows_message(const TableOptions& options, const std::map<std::string, int>& dtypes) {
  if (dtypes.empty()) return "no valid measurements of operation '" + options.op + "'";
  std::string held;
  for (const auto& [dtype, count] : dtypes)
    held += (held.empty() ? "" : ", ") + dtype + " (" + std::to_string(count) + ")";
  return "no valid measurements with dtype '" + options.dtype + "' (the data has " + held + ")";
}

void write_number(std::ostream& out, double value) {
  char text[32];
  std::snprintf(text, sizeof text, ",%.9g", value);
  out << text;
}

}  // namespace

std::size_t write_feature_table(std::span<const data::Measurement> rows,
                                const FeatureEngine& engine, const TableOptions& options,
                                std::ostream& out) {
  const Schema& schema =
      engine.schema(options.schema.empty() ? engine.default_schema() : options.schema);
  const std::vector<int> columns = engine.columns_of(schema.features, "schema " + schema.name);
  std::map<std::string, int> dtypes;
  const auto by_problem = rows_by_problem(rows, engine, options, dtypes);
  if (by_problem.empty()) throw InputError("", 0, "dtype", no_rows_message(options, dtypes));

  out << "problem,kernel";
  for (const auto& name : schema.features) out << "," << name;
  out << ",latency_ms,tflops\n";
  std::size_t written = 0;
  std::vector<float> values;
  for (const auto& [problem, measured] : by_problem) {
    std::vector<std::string> kernels;
    for (const auto* m : measured) kernels.push_back(m->kernel);
    values.resize(kernels.size() * columns.size());
    engine.extract_rows(problem, *engine.prepare(kernels), columns, values.data());
    for (std::size_t r = 0; r < measured.size(); ++r, ++written) {
      out << csv_quote(problem) << "," << csv_quote(kernels[r]);
      for (std::size_t c = 0; c < columns.size(); ++c)
        write_number(out, values[r * columns.size() + c]);
      write_number(out, measured[r]->median_ms);
      write_number(out, measured[r]->tflops);
      out << "\n";
    }
  }
  return written;
}

}  // namespace kselect::features
