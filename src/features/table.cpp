#include "features/table.h"

#include <cstdio>
#include <vector>

#include "core/csv.h"
#include "core/error.h"
#include "features/problem_rows.h"

namespace kselect::features {

namespace {

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
  const ProblemRows grouped = group_by_problem(rows, engine, options.op, options.dtype);
  if (grouped.dtype_counts.empty())
    throw InputError("", 0, "op", "no measurements of operation '" + options.op + "'");
  if (grouped.by_problem.empty())
    throw InputError("", 0, "dtype",
                     "no valid measurements" +
                         (options.dtype.empty() ? "" : " with dtype '" + options.dtype + "'") +
                         " (the data has " + grouped.dtypes_present() + ")");

  out << "problem,kernel";
  for (const auto& name : schema.features) out << "," << name;
  out << ",latency_ms,tflops\n";
  std::size_t written = 0;
  std::vector<float> values;
  for (const auto& [problem, measured] : grouped.by_problem) {
    values.resize(measured.size() * columns.size());
    extract_measured(engine, problem, measured, columns, values.data());
    for (std::size_t r = 0; r < measured.size(); ++r, ++written) {
      out << csv_quote(problem) << "," << csv_quote(measured[r]->kernel);
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
