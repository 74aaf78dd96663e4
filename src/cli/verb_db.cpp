// kselect db: inspect, merge and split measurement databases (docs/cli.md, docs/database.md).
#include <iostream>

#include "cli/verb.h"
#include "core/error.h"
#include "data/split.h"
#include "data/store.h"
#include "data/summary.h"

namespace kselect::cli {
namespace {

struct Args {
  std::string db, out, dtype, op;
  std::vector<std::string> inputs;
  bool json = false;
  long run = 0;
  int part = 0, parts = 5;
};

nlohmann::json info_json(const data::StoreInfo& info) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : info.runs)
    runs.push_back({{"id", r.id},
                    {"uuid", r.uuid},
                    {"op", r.op},
                    {"started_at", r.started_at},
                    {"finished_at", r.finished_at},
                    {"status", r.status},
                    {"kselect_version", r.kselect_version},
                    {"hardware", r.hardware},
                    {"settings", r.settings},
                    {"settings_key", r.settings_key},
                    {"load_start", r.load_start},
                    {"load_end", r.load_end},
                    {"busy", r.busy},
                    {"measurements", r.measurements}});
  return {{"path", info.path},
          {"schema_version", info.schema_version},
          {"problems", info.problems},
          {"kernels", info.kernels},
          {"measurements", info.measurements},
          {"valid", info.valid},
          {"invalid", info.invalid},
          {"runs", runs}};
}

void print_info(const data::StoreInfo& info) {
  std::cout << info.path << ": schema v" << info.schema_version << ", " << info.problems
            << " problems, " << info.kernels << " kernels, " << info.measurements
            << " measurements (" << info.valid << " valid, " << info.invalid << " invalid), "
            << info.runs.size() << " runs\n";
  for (const auto& r : info.runs)
    std::cout << "  run " << r.id << " " << r.op << " " << r.started_at << " " << r.status
              << (r.busy ? " BUSY" : "") << ": " << r.measurements << " measurements, rules "
              << r.settings.value("rules", "?") << ", threads " << r.settings.value("threads", 0)
              << ", repeat " << r.settings.value("repeat", 0) << ", measured code "
              << r.settings.value("measured_code", "unrecorded") << ", on "
              << r.hardware.value("cpu_model", "?") << "\n";
}

int run_info(const Args& a) {
  data::Store store(a.db, data::StoreOptions{.read_only = true});
  auto info = store.info();
  if (a.json)
    std::cout << info_json(info).dump(2) << "\n";
  else
    print_info(info);
  return kExitOk;
}

int run_merge(const Args& a) {
  data::Store out(a.out);
  auto counts = out.merge_from(a.inputs);
  if (a.json) {
    std::cout << nlohmann::json{{"inputs", counts.inputs},
                                {"runs_added", counts.runs_added},
                                {"measurements_read", counts.measurements_read},
                                {"measurements_added", counts.measurements_added},
                                {"duplicates", counts.duplicates}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "kselect db merge: " << counts.inputs << " inputs, " << counts.measurements_read
              << " measurements read, " << counts.measurements_added << " added, "
              << counts.duplicates << " duplicates skipped, " << counts.runs_added
              << " runs added -> " << a.out << "\n";
  }
  return kExitOk;
}

int run_best(const Args& a) {
  data::Store store(a.db, data::StoreOptions{.read_only = true});
  data::MeasurementFilter filter;
  filter.op = a.op, filter.dtype = a.dtype, filter.run_id = a.run;
  auto best = data::best_per_problem(store.read_measurements(filter));
  if (a.json)
    std::cout << data::to_json(best).dump(2) << "\n";
  else
    std::cout << data::format_table(best);
  return kExitOk;
}

nlohmann::json side_json(const data::SplitSide& side) {
  return {{"path", side.path}, {"problems", side.problems}, {"measurements", side.measurements}};
}

int run_split(const Args& a) {
  if (a.part >= a.parts) {
    std::cerr << "kselect db split: --part must be in 0..PARTS-1 (--part " << a.part << ", --parts "
              << a.parts << ")\n";
    return kExitUsage;
  }
  auto split = data::split_store(a.db, a.out, a.part, a.parts);
  if (a.json) {
    std::cout << nlohmann::json{{"part", a.part},
                                {"parts", a.parts},
                                {"train", side_json(split.train)},
                                {"held", side_json(split.held)}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto* side : {&split.train, &split.held})
      std::cout << side->path << ": " << side->problems << " problems, " << side->measurements
                << " measurements\n";
  }
  return kExitOk;
}

RegisterVerb reg("db", [](CLI::App& app) -> std::function<int()> {
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("db", "Inspect, merge and split measurement databases");
  cmd->require_subcommand(1);
  auto* info = cmd->add_subcommand("info", "Counts, runs and hardware of a database");
  info->add_option("db", a->db, "Database file")->required();
  info->add_flag("--json", a->json, "JSON on stdout");
  auto* merge = cmd->add_subcommand("merge", "Combine databases (shards); duplicates are skipped");
  merge->add_option("out", a->out, "Output database (created if missing)")->required();
  merge->add_option("inputs", a->inputs, "Input databases")->required();
  merge->add_flag("--json", a->json, "JSON on stdout");
  auto* best = cmd->add_subcommand("best", "The fastest measured kernel of each problem");
  best->add_option("db", a->db, "Database file")->required();
  best->add_option("--op", a->op, "Only this operation");
  best->add_option("--dtype", a->dtype, "Only problems of this dtype");
  best->add_option("--run", a->run, "Only this run id");
  best->add_flag("--json", a->json, "JSON on stdout");
  auto* split = cmd->add_subcommand(
      "split", "Split by problem id into train<PART>.sqlite and held<PART>.sqlite");
  split->add_option("db", a->db, "Database file")->required();
  split->add_option("out", a->out, "Output directory (created if missing)")->required();
  split->add_option("--part", a->part, "Problems with id % PARTS == PART are held out")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  split->add_option("--parts", a->parts, "How many parts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  split->add_flag("--json", a->json, "JSON on stdout");
  return [a, info, merge, split] {
    if (info->parsed()) return run_info(*a);
    if (merge->parsed()) return run_merge(*a);
    if (split->parsed()) return run_split(*a);
    return run_best(*a);
  };
});

}  // namespace
}  // namespace kselect::cli
