// kselect features: the feature rows of a measurement database as CSV (docs/cli.md), the rows
// `kselect train` would fit with the same --op, --dtype, --schema and --time-statistic.
#include <fstream>
#include <iostream>

#include "cli/store_ops.h"
#include "cli/verb.h"
#include "core/error.h"
#include "data/store.h"
#include "features/table.h"
#include "model/train.h"
#include "ops/operation.h"

namespace kselect::cli {
namespace {

struct Args {
  std::string db, out, schema, time_statistic = "median";
  model::TrainOptions options;
};

int run(Args& a) {
  auto& o = a.options;
  data::Store store(a.db, {.read_only = true});
  choose_ops(store, o.op, o.data_op);
  data::MeasurementFilter filter;
  filter.op = o.data_op;
  filter.latest_per_pair = true;
  filter.where = o.where;
  auto measurements = store.read_measurements(filter);
  data::use_time_statistic(measurements,
                           data::parse_time_statistic(a.time_statistic, "time-statistic"));
  if (find_operation(o.op).capabilities().fits_feature_state)
    o.kernel_configs = store.kernel_configs(o.data_op);
  o.hardware = run_hardware(store, o.data_op);
  const auto engine = model::training_engine(measurements, o);
  const features::TableOptions table{.op = o.data_op, .dtype = o.dtype, .schema = a.schema};
  std::size_t rows = 0;
  if (a.out.empty() || a.out == "-") {
    rows = features::write_feature_table(measurements, *engine, table, std::cout);
  } else {
    std::ofstream file(a.out);
    if (!file) throw StorageError(a.out + ": cannot write the feature table");
    rows = features::write_feature_table(measurements, *engine, table, file);
    if (!file.flush()) throw StorageError(a.out + ": cannot write the feature table");
  }
  std::cerr << "kselect features: " << rows << " rows of " << engine->op() << " features"
            << (a.out.empty() || a.out == "-" ? "" : " to " + a.out) << "\n";
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<Args>();
  auto& o = args->options;
  o.op.clear();
  auto* cmd = app.add_subcommand(
      "features", "Write the feature rows of a database's measurements as CSV (what train fits)");
  cmd->add_option("--db", args->db, "Measurement database (SQLite)")->required();
  cmd->add_option("--op", o.op,
                  "Operation (default: the database's; generic forces the generic features)");
  cmd->add_option("--dtype", o.dtype, "Only problems of this dtype (default: all)");
  cmd->add_option(
      "--where", o.where,
      "Only problems with these fields, e.g. dir=fwd,layout=nhwgc (key!=value excludes)");
  cmd->add_option("--schema", args->schema, "Feature schema (default: the op's default)");
  cmd->add_option("--time-statistic", args->time_statistic,
                  "latency_ms and tflops from the median of the repeats or the fastest (min)")
      ->check(CLI::IsMember({"median", "min"}))
      ->capture_default_str();
  cmd->add_option("--encoding", o.encoding,
                  "Generic op: category codes ordered by target (default) or alphabetical")
      ->check(CLI::IsMember({"target", "alphabetical"}));
  cmd->add_option("-o,--out", args->out, "CSV file to write (default: stdout)");
  return [args] { return run(*args); };
}

RegisterVerb reg("features", setup);

}  // namespace
}  // namespace kselect::cli
