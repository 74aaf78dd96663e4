#pragma once
// The measurement database: one SQLite file holding sweep runs, problems, kernels and
// measurements (schema in docs/database.md). Safe for several processes at once (WAL mode,
// busy timeout); every problem's results are written in one transaction, so a killed sweep
// loses at most the problem it was measuring.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"

namespace kselect::data {

class Database;

struct StoreOptions {
  bool read_only = false;      // never creates or writes; the file must exist
  int busy_timeout_ms = 5000;  // how long one read or write waits for another writer's lock
  // How long a write (a sweep's problem, an import, a merge) waits in all for another writer,
  // retrying with a message, before failing; what it was about to write is kept meanwhile.
  int lock_wait_ms = 300000;
};

struct RunInfo {
  long id = 0;
  std::string uuid, op, started_at, finished_at, kselect_version, status;
  nlohmann::json hardware, settings;
  std::string settings_key;
  double load_start = 0, load_end = 0;
  bool busy = false;
  long measurements = 0;
};

struct StoreInfo {
  std::string path;
  int schema_version = 0;
  long problems = 0, kernels = 0, measurements = 0, valid = 0, invalid = 0;
  std::vector<RunInfo> runs;
};

struct MeasurementFilter {
  std::string op;       // "" = any
  std::string dtype;    // "" = any; matches the problem's "dtype" field
  std::string where{};  // "" = any; problems whose fields match (data/where.h)
  long run_id = 0;      // 0 = any
  bool valid_only = false;
  bool with_repeats = false;  // fill Measurement::repeats_ms
  // Only the newest measurement of each (problem, kernel) pair: a pair measured again under
  // other settings (a resumed sweep after an upgrade, more repeats) counts once, not twice.
  bool latest_per_pair = false;
};

struct MergeCounts {
  long inputs = 0, runs_added = 0, measurements_read = 0, measurements_added = 0, duplicates = 0;
};

// Returns a kernel's configuration JSON; called once per kernel new to the store.
using KernelConfigFn = std::function<nlohmann::json(const std::string& kernel)>;

// A run of imported measurements (kselect import): what Store::write_imported_run records.
struct ImportedRun {
  std::string op;  // the rows' op ("generic"); several ops are joined with '+'
  nlohmann::json hardware, settings;
  std::string settings_key;
};
struct ImportedRunCounts {
  long run_id = 0;  // 0 when nothing was new (no run is recorded then)
  long read = 0, added = 0, already_present = 0;
};
// Yields the next measurement (its op, problem and kernel filled) and the kernel's
// configuration; returns false when there are no more.
using MeasurementSource = std::function<bool(Measurement& row, nlohmann::json& kernel_config)>;

class Store {
 public:
  static constexpr int kSchemaVersion = 1;
  static constexpr const char* kFormat = "kselect-measurements";

  // Opens or creates the store. Throws StorageError (naming the path) for a file that is not
  // SQLite, a database of another schema version or format, or one locked past the timeout;
  // such files are left untouched.
  explicit Store(const std::string& path, StoreOptions options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const;

  // Records the start of a sweep; returns its run id. Until finish_run, this process holds an
  // exclusive lock on the file <store>.run-<uuid>.lock; the kernel drops it when the process
  // ends, however it ends, so info() can tell a killed run (status "killed") from a live one.
  long begin_run(const std::string& op, const nlohmann::json& hardware,
                 const nlohmann::json& settings, const std::string& settings_key,
                 double load_start);
  void finish_run(long run_id, double load_end, bool busy, const std::string& status);

  // (problem, kernel) pairs already stored for `op` under `settings_key`: a resumed sweep
  // skips them.
  std::set<std::pair<std::string, std::string>> completed_pairs(
      const std::string& op, const std::string& settings_key) const;
  // The runs that stored pairs of `op` under `settings_key`, each with the problems it stored.
  std::map<long, std::set<std::string>> problems_by_run(const std::string& op,
                                                        const std::string& settings_key) const;

  // Writes all results of one problem atomically. Pairs already stored under the same
  // settings key are kept as they are (not duplicated); returns how many rows were added.
  long write_problem(long run_id, const std::string& settings_key, const std::string& op,
                     const std::string& problem, const std::vector<Measurement>& rows,
                     const KernelConfigFn& kernel_config);

  // Writes a whole imported run in ONE transaction (an interrupted import leaves the store as it
  // was): the run, the problems, the kernels (a kernel already stored keeps its configuration)
  // and every measurement `next` yields. Measurements whose (problem, kernel, settings key) is
  // already stored are kept as they are, so re-importing a file adds nothing; a run that adds
  // nothing is not recorded.
  ImportedRunCounts write_imported_run(const ImportedRun& run, const MeasurementSource& next);

  std::vector<Measurement> read_measurements(const MeasurementFilter& filter = {}) const;
  // Counts of problems, kernels and measurements (whole-table scans) and every run with its
  // measurement count.
  StoreInfo info() const;
  // The runs, oldest first, without their measurement counts (RunInfo::measurements stays 0):
  // what a lookup of a run's settings or hardware needs, in one read of the runs table.
  std::vector<RunInfo> runs() const;
  // The operations whose problems the store holds, sorted ("gemm", "generic"): a store of
  // imported data remembers its op, so training needs no --op.
  std::vector<std::string> ops() const;
  // Kernel name -> configuration JSON (its parameters) for every kernel of `op`.
  std::map<std::string, nlohmann::json> kernel_configs(const std::string& op) const;

  // Reads every page (SQLite's quick_check); StorageError naming the file if one is corrupt.
  void check_integrity() const;
  // Adds every run, problem, kernel and measurement of the stores at `inputs`; measurements
  // whose (problem, kernel, settings key) is already present and runs already present (same
  // uuid) are skipped, so merging is idempotent. Every input is checked whole first (format,
  // schema, every page): a bad one is named and nothing is merged. Each input then merges in
  // one transaction; should one still fail, the error names it and the inputs merged before.
  MergeCounts merge_from(const std::vector<std::string>& inputs);

 private:
  void check_or_create_schema(bool read_only);
  void create_schema();
  void merge_one(const std::string& input, MergeCounts& counts);
  long problem_id(const std::string& op, const std::string& problem);
  long kernel_id(const std::string& op, const std::string& kernel, const KernelConfigFn& config);
  std::vector<RunInfo> read_runs(bool count_measurements) const;

  std::unique_ptr<Database> db_;
  struct RunLock {
    int fd;            // holds the exclusive flock
    std::string path;  // <store>.run-<uuid>.lock
  };
  std::map<long, RunLock> run_locks_;  // by run id, until finish_run
};

// Canonical problem text -> JSON object of its fields (integers where they parse as such).
nlohmann::json problem_fields_json(const std::string& canonical);

}  // namespace kselect::data
