#include "data/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.h"
#include "core/key_values.h"
#include "data/sqlite.h"
#include "data/where.h"

#include <sqlite3.h>

namespace kselect::data {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  op TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  kselect_version TEXT NOT NULL,
  hardware TEXT NOT NULL,
  settings TEXT NOT NULL,
  settings_key TEXT NOT NULL,
  load_start REAL,
  load_end REAL,
  busy INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'running'
);
CREATE TABLE problems (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  canonical TEXT NOT NULL,
  fields TEXT NOT NULL,
  UNIQUE (op, canonical)
);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  name TEXT NOT NULL,
  config TEXT NOT NULL,
  UNIQUE (op, name)
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  settings_key TEXT NOT NULL,
  valid INTEGER NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  median_ms REAL, min_ms REAL, mean_ms REAL, stddev_ms REAL,
  ci_low_ms REAL, ci_high_ms REAL,
  tflops REAL, bandwidth_gb_s REAL,
  repeats TEXT NOT NULL DEFAULT '[]',
  verified INTEGER NOT NULL DEFAULT 0,
  load1 REAL, other_cpu REAL,
  measured_at TEXT NOT NULL,
  UNIQUE (problem_id, kernel_id, settings_key)
);
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX measurements_kernel ON measurements(kernel_id);
)sql";

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string random_uuid() {
  std::random_device device;
  std::mt19937_64 rng((std::uint64_t(device()) << 32) ^ device() ^
                      std::uint64_t(std::time(nullptr)));
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", (unsigned long long)rng(),
                (unsigned long long)rng());
  return text;
}

// Refuses anything but an empty file or a SQLite file before SQLite touches it, so a
// mistyped path (a CSV, a model) is never modified.
void check_file(const std::string& path, bool read_only) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    if (read_only) throw StorageError(path + ": no such database file");
    return;
  }
  if (!std::filesystem::is_regular_file(status)) throw StorageError(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StorageError(path + ": cannot read the file");
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  if (in.gcount() == 0) {
    if (read_only) throw StorageError(path + ": empty file, not a kselect database");
    return;
  }
  if (in.gcount() < 16 || std::memcmp(header.data(), "SQLite format 3\0", 16) != 0)
    throw StorageError(path + ": not a SQLite database (bad file header); left unchanged");
}

constexpr const char* kInsertMeasurement =
    "INSERT INTO measurements(run_id, problem_id, kernel_id, settings_key, valid, "
    "reason, median_ms, min_ms, mean_ms, stddev_ms, ci_low_ms, ci_high_ms, tflops, "
    "bandwidth_gb_s, repeats, verified, load1, other_cpu, measured_at) VALUES "
    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(problem_id, kernel_id, settings_key) DO NOTHING";

struct RowIds {
  long run, problem, kernel;
};

void bind_measurement(Statement& insert, RowIds ids, const std::string& settings_key,
                      const Measurement& m, const std::string& now) {
  insert.bind(1, ids.run).bind(2, ids.problem).bind(3, ids.kernel).bind(4, settings_key);
  insert.bind(5, int(m.valid)).bind(6, m.reason).bind(7, m.median_ms).bind(8, m.min_ms);
  insert.bind(9, m.mean_ms).bind(10, m.stddev_ms).bind(11, m.ci_low_ms).bind(12, m.ci_high_ms);
  insert.bind(13, m.tflops).bind(14, m.bandwidth_gb_s);
  insert.bind(15, nlohmann::json(m.repeats_ms).dump()).bind(16, int(m.verified));
  insert.bind(17, m.load1).bind(18, m.other_cpu).bind(19, now);
}

nlohmann::json parse_json_column(const std::string& text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

nlohmann::json problem_fields_json(const std::string& canonical) {
  nlohmann::json fields = nlohmann::json::object();
  const KeyValues kv = KeyValues::parse(canonical);
  for (const auto& [key, value] : kv.items()) {
    if (auto number = parse_int(value))
      fields[key] = *number;
    else
      fields[key] = value;
  }
  return fields;
}

Store::Store(const std::string& path, StoreOptions options) {
  check_file(path, options.read_only);
  db_ = std::make_unique<Database>(path, options.read_only, true, options.busy_timeout_ms);
  db_->set_lock_wait_ms(options.lock_wait_ms);
  check_or_create_schema(options.read_only);
  db_->exec("PRAGMA foreign_keys = ON");
}

Store::~Store() {
  for (const auto& [run, lock] : run_locks_) ::close(lock.fd);  // the run then reads as killed
}

const std::string& Store::path() const {
  return db_->path();
}

namespace {
int user_version(Database& db) {
  Statement version(db, "PRAGMA user_version");
  version.step();
  return int(version.column_int(0));
}
long table_count(Database& db) {
  Statement tables(db, "SELECT COUNT(*) FROM sqlite_master");
  tables.step();
  return long(tables.column_int(0));
}
}  // namespace

void Store::check_or_create_schema(bool read_only) {
  if (user_version(*db_) == 0 && table_count(*db_) == 0) {
    if (read_only) throw StorageError(path() + ": empty database, not a kselect store");
    // WAL lets readers (db info, training) work while a sweep writes.
    db_->exec("PRAGMA journal_mode = WAL");
    Transaction txn(*db_);
    // Another process (a second shard) may have created it meanwhile.
    if (user_version(*db_) == 0 && table_count(*db_) == 0) create_schema();
    txn.commit();
  }
  int version = user_version(*db_);
  if (version != kSchemaVersion)
    throw StorageError(path() + ": schema version " + std::to_string(version) +
                       ", but this kselect reads version " + std::to_string(kSchemaVersion) +
                       (version == 0 ? " (not a kselect measurement database)" : ""));
  Statement format(*db_, "SELECT value FROM meta WHERE key = 'format'");
  if (!format.step() || format.column_text(0) != kFormat)
    throw StorageError(path() + ": not a kselect measurement database (meta.format)");
}

void Store::create_schema() {
  db_->exec(kSchema);
  Statement meta(*db_, "INSERT INTO meta(key, value) VALUES (?, ?)");
  meta.bind(1, "format").bind(2, kFormat).run();
  meta.bind(1, "schema_version").bind(2, std::to_string(kSchemaVersion)).run();
  meta.bind(1, "created_at").bind(2, utc_now()).run();
  meta.bind(1, "created_by").bind(2, "kselect " KSELECT_VERSION).run();
  db_->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
}

namespace {
// A run's liveness lock next to the store (docs/database.md, "Resume").
std::string run_lock_path(const std::string& store, const std::string& uuid) {
  return store + ".run-" + uuid + ".lock";
}

// Whether the process that began the run with this lock file has ended without finishing it:
// its lock is free. A missing file (runs of older kselect versions, imports) tells nothing.
bool run_owner_gone(const std::string& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool gone = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // also releases the lock just taken
  return gone;
}
}  // namespace

long Store::begin_run(const std::string& op, const nlohmann::json& hardware,
                      const nlohmann::json& settings, const std::string& settings_key,
                      double load_start) {
  const std::string uuid = random_uuid();
  Transaction txn(*db_);  // waits for another writer as every write does
  Statement insert(*db_,
                   "INSERT INTO runs(uuid, op, started_at, kselect_version, hardware, settings, "
                   "settings_key, load_start) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, uuid).bind(2, op).bind(3, utc_now()).bind(4, KSELECT_VERSION);
  insert.bind(5, hardware.dump()).bind(6, settings.dump()).bind(7, settings_key);
  insert.bind(8, load_start).run();
  const long run_id = long(db_->last_insert_id());
  txn.commit();
  // Best effort: without the lock (a read-only directory) the run only cannot be told killed.
  std::string lock_path = run_lock_path(path(), uuid);
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0)
    run_locks_[run_id] = {fd, std::move(lock_path)};
  else if (fd >= 0)
    ::close(fd);
  return run_id;
}

void Store::finish_run(long run_id, double load_end, bool busy, const std::string& status) {
  Statement update(*db_,
                   "UPDATE runs SET finished_at = ?, load_end = ?, busy = ?, status = ? "
                   "WHERE id = ?");
  update.bind(1, utc_now()).bind(2, load_end).bind(3, int(busy)).bind(4, status).bind(5, run_id);
  Transaction txn(*db_);
  update.run();
  txn.commit();
  if (auto lock = run_locks_.find(run_id); lock != run_locks_.end()) {
    std::error_code ignored;  // a lock file left behind is harmless: its lock is free
    std::filesystem::remove(lock->second.path, ignored);
    ::close(lock->second.fd);
    run_locks_.erase(lock);
  }
}

std::set<std::pair<std::string, std::string>> Store::completed_pairs(
    const std::string& op, const std::string& settings_key) const {
  Statement query(*db_,
                  "SELECT p.canonical, k.name FROM measurements m "
                  "JOIN problems p ON p.id = m.problem_id JOIN kernels k ON k.id = m.kernel_id "
                  "WHERE p.op = ? AND m.settings_key = ?");
  query.bind(1, op).bind(2, settings_key);
  std::set<std::pair<std::string, std::string>> done;
  while (query.step()) done.emplace(query.column_text(0), query.column_text(1));
  return done;
}

std::map<long, std::set<std::string>> Store::problems_by_run(
    const std::string& op, const std::string& settings_key) const {
  Statement query(*db_,
                  "SELECT DISTINCT m.run_id, p.canonical FROM measurements m "
                  "JOIN problems p ON p.id = m.problem_id WHERE p.op = ? AND m.settings_key = ?");
  query.bind(1, op).bind(2, settings_key);
  std::map<long, std::set<std::string>> runs;
  while (query.step()) runs[long(query.column_int(0))].insert(query.column_text(1));
  return runs;
}

long Store::problem_id(const std::string& op, const std::string& problem) {
  Statement insert(*db_,
                   "INSERT INTO problems(op, canonical, fields) VALUES (?, ?, ?) "
                   "ON CONFLICT(op, canonical) DO NOTHING");
  insert.bind(1, op).bind(2, problem).bind(3, problem_fields_json(problem).dump()).run();
  Statement select(*db_, "SELECT id FROM problems WHERE op = ? AND canonical = ?");
  select.bind(1, op).bind(2, problem);
  select.step();
  return long(select.column_int(0));
}

long Store::kernel_id(const std::string& op, const std::string& kernel,
                      const KernelConfigFn& config) {
  Statement select(*db_, "SELECT id FROM kernels WHERE op = ? AND name = ?");
  select.bind(1, op).bind(2, kernel);
  if (select.step()) return long(select.column_int(0));
  Statement insert(*db_, "INSERT INTO kernels(op, name, config) VALUES (?, ?, ?)");
  nlohmann::json fields = config ? config(kernel) : nlohmann::json::object();
  insert.bind(1, op).bind(2, kernel).bind(3, fields.dump()).run();
  return long(db_->last_insert_id());
}

long Store::write_problem(long run_id, const std::string& settings_key, const std::string& op,
                          const std::string& problem, const std::vector<Measurement>& rows,
                          const KernelConfigFn& kernel_config) {
  Transaction txn(*db_);
  long pid = problem_id(op, problem);
  Statement insert(*db_, kInsertMeasurement);
  long added = 0;
  const std::string now = utc_now();
  for (const Measurement& m : rows) {
    long kid = kernel_id(op, m.kernel, kernel_config);
    bind_measurement(insert, {run_id, pid, kid}, settings_key, m, now);
    insert.run();
    added += db_->changes();
  }
  txn.commit();
  return added;
}

ImportedRunCounts Store::write_imported_run(const ImportedRun& run, const MeasurementSource& next) {
  ImportedRunCounts counts;
  Transaction txn(*db_);
  long run_id = begin_run(run.op, run.hardware, run.settings, run.settings_key, 0);
  Statement insert(*db_, kInsertMeasurement);
  const std::string now = utc_now();
  // Rows come grouped by problem (the driver sorts them), so one cached id saves most lookups.
  std::string last_op, last_problem;
  long pid = 0;
  Measurement m;
  nlohmann::json config;
  while (next(m, config)) {
    if (m.problem != last_problem || m.op != last_op) {
      pid = problem_id(m.op, m.problem);
      last_op = m.op, last_problem = m.problem;
    }
    long kid = kernel_id(m.op, m.kernel, [&](const std::string&) { return config; });
    bind_measurement(insert, {run_id, pid, kid}, run.settings_key, m, now);
    insert.run();
    counts.read += 1;
    counts.added += db_->changes();
  }
  counts.already_present = counts.read - counts.added;
  if (counts.added == 0) {
    Statement drop(*db_, "DELETE FROM runs WHERE id = ?");
    drop.bind(1, run_id).run();
  } else {
    finish_run(run_id, 0, false, "finished");
    counts.run_id = run_id;
  }
  txn.commit();
  return counts;
}

std::vector<Measurement> Store::read_measurements(const MeasurementFilter& filter) const {
  std::string sql =
      "SELECT p.op, p.canonical, k.name, m.valid, m.reason, m.median_ms, m.min_ms, m.mean_ms, "
      "m.stddev_ms, m.ci_low_ms, m.ci_high_ms, m.tflops, m.bandwidth_gb_s, m.run_id, "
      "m.verified, m.load1, m.other_cpu, m.repeats FROM measurements m "
      "JOIN problems p ON p.id = m.problem_id JOIN kernels k ON k.id = m.kernel_id WHERE 1";
  if (!filter.op.empty()) sql += " AND p.op = :op";
  if (!filter.dtype.empty()) sql += " AND json_extract(p.fields, '$.dtype') = :dtype";
  if (filter.run_id) sql += " AND m.run_id = :run";
  if (filter.valid_only) sql += " AND m.valid = 1";
  // The unary + keeps SQLite off the kernel_id index, which it otherwise picks for the
  // subquery: a scan of every row of the kernel per row (hours on a 600k-row find-db import)
  // instead of the few rows of the problem in the (problem_id, kernel_id, ...) index.
  if (filter.latest_per_pair)
    sql +=
        " AND m.id = (SELECT MAX(n.id) FROM measurements n WHERE n.problem_id = m.problem_id "
        "AND +n.kernel_id = m.kernel_id)";
  sql += " ORDER BY m.id";
  Statement query(*db_, sql);
  int index = 1;
  if (!filter.op.empty()) query.bind(index++, filter.op);
  if (!filter.dtype.empty()) query.bind(index++, filter.dtype);
  if (filter.run_id) query.bind(index++, filter.run_id);
  const ProblemWhere where(filter.where);
  // A sweep writes a problem's rows together: its answer is reused until the problem changes.
  std::string last_problem;
  bool last_matches = true;
  std::vector<Measurement> out;
  while (query.step()) {
    Measurement m;
    m.op = query.column_text(0);
    m.problem = query.column_text(1);
    if (!where.empty()) {
      if (m.problem != last_problem)
        last_problem = m.problem, last_matches = where.matches(m.problem);
      if (!last_matches) continue;
    }
    m.kernel = query.column_text(2);
    m.valid = query.column_int(3) != 0;
    m.reason = query.column_text(4);
    m.median_ms = query.column_double(5);
    m.min_ms = query.column_double(6);
    m.mean_ms = query.column_double(7);
    m.stddev_ms = query.column_double(8);
    m.ci_low_ms = query.column_double(9);
    m.ci_high_ms = query.column_double(10);
    m.tflops = query.column_double(11);
    m.bandwidth_gb_s = query.column_double(12);
    m.run_id = long(query.column_int(13));
    m.verified = query.column_int(14) != 0;
    m.load1 = query.column_double(15);
    m.other_cpu = query.column_double(16);
    if (filter.with_repeats) {
      nlohmann::json repeats = parse_json_column(query.column_text(17));
      if (repeats.is_array())
        for (const auto& r : repeats)
          if (r.is_number()) m.repeats_ms.push_back(r.get<double>());
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> Store::ops() const {
  std::vector<std::string> out;
  Statement query(*db_, "SELECT DISTINCT op FROM problems ORDER BY op");
  while (query.step()) out.push_back(query.column_text(0));
  return out;
}

std::map<std::string, nlohmann::json> Store::kernel_configs(const std::string& op) const {
  std::map<std::string, nlohmann::json> out;
  Statement query(*db_, "SELECT name, config FROM kernels WHERE op = ?");
  query.bind(1, op);
  while (query.step()) out[query.column_text(0)] = parse_json_column(query.column_text(1));
  return out;
}

StoreInfo Store::info() const {
  StoreInfo info;
  info.path = path();
  info.schema_version = kSchemaVersion;
  auto count = [&](const std::string& sql) {
    Statement query(*db_, sql);
    query.step();
    return long(query.column_int(0));
  };
  info.problems = count("SELECT COUNT(*) FROM problems");
  info.kernels = count("SELECT COUNT(*) FROM kernels");
  info.measurements = count("SELECT COUNT(*) FROM measurements");
  info.valid = count("SELECT COUNT(*) FROM measurements WHERE valid = 1");
  info.invalid = info.measurements - info.valid;
  info.runs = read_runs(true);
  return info;
}

std::vector<RunInfo> Store::runs() const {
  return read_runs(false);
}

std::vector<RunInfo> Store::read_runs(bool count_measurements) const {
  Statement rows(
      *db_, std::string("SELECT r.id, r.uuid, r.op, r.started_at, "
                        "COALESCE(r.finished_at, ''), r.kselect_version, r.status, "
                        "r.hardware, r.settings, r.settings_key, "
                        "COALESCE(r.load_start, 0), COALESCE(r.load_end, 0), r.busy, ") +
                (count_measurements ? "(SELECT COUNT(*) FROM measurements m WHERE m.run_id = r.id) "
                                    : "0 ") +
                "FROM runs r ORDER BY r.id");
  std::vector<RunInfo> out;
  while (rows.step()) {
    RunInfo r;
    r.id = long(rows.column_int(0));
    r.uuid = rows.column_text(1);
    r.op = rows.column_text(2);
    r.started_at = rows.column_text(3);
    r.finished_at = rows.column_text(4);
    r.kselect_version = rows.column_text(5);
    r.status = rows.column_text(6);
    if (r.status == "running" && run_owner_gone(run_lock_path(path(), r.uuid))) r.status = "killed";
    r.hardware = parse_json_column(rows.column_text(7));
    r.settings = parse_json_column(rows.column_text(8));
    r.settings_key = rows.column_text(9);
    r.load_start = rows.column_double(10);
    r.load_end = rows.column_double(11);
    r.busy = rows.column_int(12) != 0;
    r.measurements = long(rows.column_int(13));
    out.push_back(std::move(r));
  }
  return out;
}

namespace {
// An input opens as a kselect store of this schema and every page of it reads back: a corrupt
// input is found, and named, before anything of any input is merged.
void check_merge_input(const std::string& input, const std::string& out) {
  std::error_code ec;
  if (std::filesystem::equivalent(input, out, ec))
    throw InputError("", 0, "input", input + " is the output database itself");
  Store(input, StoreOptions{.read_only = true}).check_integrity();
}
}  // namespace

void Store::check_integrity() const {
  Statement check(*db_, "PRAGMA quick_check");
  while (check.step())
    if (check.column_text(0) != "ok")
      throw StorageError(path() + ": corrupt (" + check.column_text(0) + ")");
}

MergeCounts Store::merge_from(const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    try {
      check_merge_input(input, path());
    } catch (const StorageError& e) {
      const std::string what = e.what();
      throw StorageError(what.find("nothing was merged") != std::string::npos
                             ? what
                             : what + "; nothing was merged");
    }
  }
  MergeCounts counts;
  std::vector<std::string> merged;
  for (const std::string& input : inputs) {
    try {
      merge_one(input, counts);
    } catch (const StorageError& e) {
      // SQLite names the output for errors in an attached input: name the input.
      std::string done;
      for (const auto& m : merged) done += (done.empty() ? "" : ", ") + m;
      throw StorageError(
          input + ": merge failed (" + e.what() + "); " +
          (merged.empty() ? "nothing was merged" : "merged before it, and kept: " + done));
    }
    merged.push_back(input);
  }
  return counts;
}

void Store::merge_one(const std::string& input, MergeCounts& counts) {
  Statement attach(*db_, "ATTACH DATABASE ? AS src");
  attach.bind(1, input).run();
  struct Detach {  // also on errors, so the next input can attach as "src"
    Database& db;
    ~Detach() { sqlite3_exec(db.handle(), "DETACH DATABASE src", nullptr, nullptr, nullptr); }
  } detach{*db_};
  Transaction txn(*db_);
  db_->exec(
      "INSERT INTO runs(uuid, op, started_at, finished_at, kselect_version, hardware, settings, "
      "settings_key, load_start, load_end, busy, status) SELECT uuid, op, started_at, "
      "finished_at, kselect_version, hardware, settings, settings_key, load_start, load_end, "
      "busy, status FROM src.runs WHERE true ON CONFLICT(uuid) DO NOTHING");
  const long runs_added = db_->changes();
  db_->exec(
      "INSERT INTO problems(op, canonical, fields) SELECT op, canonical, fields FROM "
      "src.problems WHERE true ON CONFLICT(op, canonical) DO NOTHING");
  db_->exec(
      "INSERT INTO kernels(op, name, config) SELECT op, name, config FROM src.kernels "
      "WHERE true ON CONFLICT(op, name) DO NOTHING");
  Statement read(*db_, "SELECT COUNT(*) FROM src.measurements");
  read.step();
  const long in_input = long(read.column_int(0));
  read.reset();
  db_->exec(
      "INSERT INTO measurements(run_id, problem_id, kernel_id, settings_key, valid, reason, "
      "median_ms, min_ms, mean_ms, stddev_ms, ci_low_ms, ci_high_ms, tflops, bandwidth_gb_s, "
      "repeats, verified, load1, other_cpu, measured_at) "
      "SELECT r.id, p.id, k.id, m.settings_key, m.valid, m.reason, m.median_ms, m.min_ms, "
      "m.mean_ms, m.stddev_ms, m.ci_low_ms, m.ci_high_ms, m.tflops, m.bandwidth_gb_s, "
      "m.repeats, m.verified, m.load1, m.other_cpu, m.measured_at FROM src.measurements m "
      "JOIN src.runs sr ON sr.id = m.run_id JOIN main.runs r ON r.uuid = sr.uuid "
      "JOIN src.problems sp ON sp.id = m.problem_id "
      "JOIN main.problems p ON p.op = sp.op AND p.canonical = sp.canonical "
      "JOIN src.kernels sk ON sk.id = m.kernel_id "
      "JOIN main.kernels k ON k.op = sk.op AND k.name = sk.name WHERE true ORDER BY m.id "
      "ON CONFLICT(problem_id, kernel_id, settings_key) DO NOTHING");
  const long added = db_->changes();
  txn.commit();
  counts.inputs += 1;
  counts.runs_added += runs_added;
  counts.measurements_read += in_input;
  counts.measurements_added += added;
  counts.duplicates += in_input - added;
}

}  // namespace kselect::data
