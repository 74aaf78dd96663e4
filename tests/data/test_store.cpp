#include "data/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "core/error.h"
#include "data/summary.h"
#include "temp_dir.h"

namespace kselect::data {
namespace {

using kselect::testing::read_bytes;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;

Measurement sample(const std::string& kernel, double median, bool valid = true) {
  Measurement m;
  m.kernel = kernel, m.valid = valid, m.reason = valid ? "" : "tile does not divide M";
  m.median_ms = median, m.min_ms = median * 0.9, m.mean_ms = median * 1.1, m.stddev_ms = 0.01;
  m.ci_low_ms = median * 0.95, m.ci_high_ms = median * 1.05;
  m.tflops = 1.5, m.bandwidth_gb_s = 20;
  m.repeats_ms = {median, median * 0.9, median * 1.2};
  m.verified = true, m.load1 = 0.5, m.other_cpu = 0.1;
  return m;
}

nlohmann::json config_of(const std::string& kernel) {
  return {{"name", kernel}, {"tile", 64}};
}

long write_one(Store& store, const std::string& problem, const std::vector<Measurement>& rows,
               const std::string& key = "k1") {
  long run = store.begin_run("gemm", {{"cpu_model", "test"}}, {{"rules", "tiny"}}, key, 0.25);
  long added = store.write_problem(run, key, "gemm", problem, rows, config_of);
  store.finish_run(run, 0.5, false, "finished");
  return added;
}

const std::string kProblem = "m=8,n=16,k=32,layout=rcr,dtype=fp32";

TEST(Store, RoundTripsEveryField) {
  TempDir dir;
  Store store(dir.file("a.sqlite"));
  EXPECT_EQ(write_one(store, kProblem, {sample("k_fast", 0.5), sample("k_bad", 0, false)}), 2);
  auto rows = store.read_measurements(MeasurementFilter{.with_repeats = true});
  ASSERT_EQ(rows.size(), 2u);
  const Measurement& m = rows[0];
  EXPECT_EQ(m.op, "gemm");
  EXPECT_EQ(m.problem, kProblem);
  EXPECT_EQ(m.kernel, "k_fast");
  EXPECT_TRUE(m.valid);
  EXPECT_DOUBLE_EQ(m.median_ms, 0.5);
  EXPECT_DOUBLE_EQ(m.min_ms, 0.45);
  EXPECT_DOUBLE_EQ(m.ci_high_ms, 0.525);
  EXPECT_DOUBLE_EQ(m.tflops, 1.5);
  EXPECT_EQ(m.repeats_ms, (std::vector<double>{0.5, 0.45, 0.6}));
  EXPECT_TRUE(m.verified);
  EXPECT_DOUBLE_EQ(m.load1, 0.5);
  EXPECT_GT(m.run_id, 0);
  EXPECT_FALSE(rows[1].valid);
  EXPECT_EQ(rows[1].reason, "tile does not divide M");
  auto info = store.info();
  EXPECT_EQ(info.problems, 1);
  EXPECT_EQ(info.kernels, 2);
  EXPECT_EQ(info.valid, 1);
  EXPECT_EQ(info.invalid, 1);
  ASSERT_EQ(info.runs.size(), 1u);
  EXPECT_EQ(info.runs[0].hardware["cpu_model"], "test");
  EXPECT_EQ(info.runs[0].measurements, 2);
  // runs(): the same runs without the counting (for settings and hardware lookups).
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, info.runs[0].id);
  EXPECT_EQ(runs[0].uuid, info.runs[0].uuid);
  EXPECT_EQ(runs[0].status, info.runs[0].status);
  EXPECT_EQ(runs[0].hardware, info.runs[0].hardware);
  EXPECT_EQ(runs[0].settings, info.runs[0].settings);
  EXPECT_EQ(runs[0].settings_key, info.runs[0].settings_key);
  EXPECT_EQ(runs[0].measurements, 0);
  EXPECT_EQ(problem_fields_json(kProblem)["m"], 8);
  EXPECT_EQ(problem_fields_json(kProblem)["dtype"], "fp32");
}

TEST(Store, RemembersOpsAndKernelConfigs) {
  TempDir dir;
  Store store(dir.file("ops.sqlite"));
  EXPECT_TRUE(store.ops().empty());
  write_one(store, kProblem, {sample("k_fast", 0.5), sample("k_slow", 0.7)});
  EXPECT_EQ(store.ops(), std::vector<std::string>{"gemm"});
  auto configs = store.kernel_configs("gemm");
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs.at("k_slow"), config_of("k_slow"));
  EXPECT_TRUE(store.kernel_configs("generic").empty());
}

TEST(Store, FiltersAndDeduplicates) {
  TempDir dir;
  Store store(dir.file("a.sqlite"));
  write_one(store, kProblem, {sample("k1", 1)});
  write_one(store, "m=8,n=16,k=32,layout=rcr,dtype=bf16", {sample("k1", 2)});
  EXPECT_EQ(write_one(store, kProblem, {sample("k1", 3)}), 0);  // same key: kept once
  EXPECT_EQ(write_one(store, kProblem, {sample("k1", 3)}, "k2"), 1);
  EXPECT_EQ(store.read_measurements().size(), 3u);
  auto bf16 = store.read_measurements(MeasurementFilter{.dtype = "bf16"});
  ASSERT_EQ(bf16.size(), 1u);
  EXPECT_DOUBLE_EQ(bf16[0].median_ms, 2);
  EXPECT_EQ(store.read_measurements(MeasurementFilter{.op = "conv"}).size(), 0u);
  EXPECT_EQ(store.completed_pairs("gemm", "k2").size(), 1u);
  auto best = best_per_problem(store.read_measurements());
  ASSERT_EQ(best.size(), 2u);
  EXPECT_DOUBLE_EQ(best[0].median_ms, 1);
  // The pair measured under k1 (1 ms) and again under k2 (3 ms): the newest counts.
  auto latest =
      store.read_measurements(MeasurementFilter{.dtype = "fp32", .latest_per_pair = true});
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_DOUBLE_EQ(latest[0].median_ms, 3);
}

TEST(Store, MergeIsIdempotentAndCounts) {
  TempDir dir;
  {
    Store a(dir.file("a.sqlite"));
    write_one(a, kProblem, {sample("k1", 1), sample("k2", 2)});
    Store b(dir.file("b.sqlite"));
    write_one(b, kProblem, {sample("k2", 5), sample("k3", 3)});
  }
  Store out(dir.file("out.sqlite"));
  auto counts = out.merge_from({dir.file("a.sqlite"), dir.file("b.sqlite")});
  EXPECT_EQ(counts.inputs, 2);
  EXPECT_EQ(counts.measurements_read, 4);
  EXPECT_EQ(counts.measurements_added, 3);  // k2 of b duplicates k2 of a (same key)
  EXPECT_EQ(counts.duplicates, 1);
  EXPECT_EQ(counts.runs_added, 2);
  auto again = out.merge_from({dir.file("a.sqlite")});
  EXPECT_EQ(again.measurements_added, 0);
  EXPECT_EQ(again.runs_added, 0);
  EXPECT_EQ(out.info().measurements, 3);
  EXPECT_THROW(out.merge_from({dir.file("out.sqlite")}), InputError);
}

// A corrupt input among good ones is named and nothing of any input is merged; the output
// (healthy) is not blamed.
TEST(Store, MergeNamesACorruptInputAndMergesNothing) {
  TempDir dir;
  const std::string good = dir.file("good.sqlite"), bad = dir.file("bad.sqlite");
  {
    Store a(good);
    write_one(a, kProblem, {sample("k1", 1), sample("k2", 2)});
    Store b(bad);
    for (int i = 0; i < 40; ++i)
      write_one(b, "m=" + std::to_string(i + 1) + ",n=16,k=32,layout=rcr,dtype=fp32",
                {sample("k1", 1), sample("k2", 2), sample("k3", 3)}, "k" + std::to_string(i));
  }
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(bad + suffix);
  std::string bytes = read_bytes(bad);
  ASSERT_GT(bytes.size(), 4 * 4096u);
  for (std::size_t i = 2 * 4096; i < bytes.size(); i += 4096)  // every page after the first two
    std::fill_n(bytes.begin() + std::ptrdiff_t(i), 64, '\x55');
  write_bytes(bad, bytes);
  Store out(dir.file("out.sqlite"));
  try {
    out.merge_from({good, bad});
    FAIL() << "merged a corrupt input";
  } catch (const StorageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(bad, 0), 0u) << what;
    EXPECT_NE(what.find("nothing was merged"), std::string::npos) << what;
  }
  EXPECT_EQ(out.info().measurements, 0);
  out.check_integrity();
}

TEST(Store, RefusesNonSqliteFilesAndLeavesThemUnchanged) {
  TempDir dir;
  std::string path = dir.file("garbage.sqlite");
  std::string garbage = "m,n,k\n1,2,3\n" + std::string(5000, '\x7f');
  write_bytes(path, garbage);
  EXPECT_THROW(Store{path}, StorageError);
  EXPECT_EQ(read_bytes(path), garbage);
  // A SQLite header followed by garbage: SQLite itself reports it.
  std::string fake = std::string("SQLite format 3\0", 16) + std::string(4096, 'x');
  write_bytes(path, fake);
  EXPECT_THROW(Store{path}, StorageError);
  EXPECT_EQ(read_bytes(path), fake);
  EXPECT_THROW(Store(dir.file("missing.sqlite"), StoreOptions{.read_only = true}), StorageError);
}

TEST(Store, RefusesOtherSchemasAndForeignDatabases) {
  TempDir dir;
  std::string path = dir.file("other.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t(x); PRAGMA user_version = 99;", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  std::string before = read_bytes(path);
  try {
    Store store(path);
    FAIL() << "opened a schema-99 database";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Store, LockedDatabaseFailsWithinTheTimeout) {
  TempDir dir;
  std::string path = dir.file("locked.sqlite");
  {
    Store store(path);
    write_one(store, kProblem, {sample("k1", 1)});
  }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  std::string before = read_bytes(path);
  try {
    Store store(path, StoreOptions{.busy_timeout_ms = 100});
    FAIL() << "opened a locked database";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(path), before);
  sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  Store reopened(path);
  EXPECT_EQ(reopened.read_measurements().size(), 1u);
}

// Another writer holding the write lock longer than the busy timeout delays a write, which
// then goes through with everything it held; past the bound it fails naming the lock, and
// nothing of it is written.
TEST(Store, AWriteWaitsForAnotherWritersLockUpToItsBound) {
  TempDir dir;
  const std::string path = dir.file("busy.sqlite");
  { Store(path).begin_run("gemm", {}, {}, "k0", 0); }
  auto hold_lock_for = [&](int ms) {
    sqlite3* holder = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    return std::thread([holder, ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(holder);
    });
  };
  {
    std::thread holder = hold_lock_for(700);
    try {
      Store store(path, {.busy_timeout_ms = 100, .lock_wait_ms = 20000});
      EXPECT_EQ(write_one(store, kProblem, {sample("k1", 1), sample("k2", 2)}), 2);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
    holder.join();
  }
  {
    std::thread holder = hold_lock_for(1500);
    Store store(path, {.busy_timeout_ms = 100, .lock_wait_ms = 300});
    try {
      store.write_problem(1, "k1", "gemm", "m=1,n=2,k=3,layout=rcr,dtype=fp32", {sample("k3", 1)},
                          config_of);
      ADD_FAILURE() << "wrote past another writer's lock";
    } catch (const StorageError& e) {
      EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
    }
    holder.join();
    EXPECT_EQ(store.read_measurements().size(), 2u);
  }
}

// A run whose process died without finishing it (SIGKILL) reads as killed; a run of a live
// process still reads as running, a finished one as finished, and its lock file is gone.
TEST(Store, KilledRunsAreToldFromRunningOnes) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  { Store(path).begin_run("gemm", {}, {}, "k1", 0); }  // created, then closed unfinished
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Store store(path);
    store.begin_run("gemm", {}, {}, "k2", 0);
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));

  Store store(path);
  long live = store.begin_run("gemm", {}, {}, "k3", 0);
  auto runs = store.info().runs;
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].status, "killed");
  EXPECT_EQ(runs[1].status, "killed");
  EXPECT_EQ(runs[2].status, "running");
  store.finish_run(live, 0, false, "finished");
  EXPECT_EQ(store.info().runs[2].status, "finished");
  EXPECT_FALSE(std::filesystem::exists(path + ".run-" + runs[2].uuid + ".lock"));
}

}  // namespace
}  // namespace kselect::data

namespace kselect::data {
namespace {

// Runs `body` where the directory `dir` cannot be written: as this user when it is not root
// (root ignores permissions), else in a child that drops to nobody. The child's exit code.
int in_read_only_directory(const std::filesystem::path& dir, const std::function<int()>& body) {
  std::filesystem::permissions(
      dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
               std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
               std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(90);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Reads work on read-only media: a store in a directory nobody may write to (where SQLite
// cannot make the shared-memory file of its write-ahead log) opens read-only and reads it all.
TEST(Store, ReadsInADirectoryItCannotWrite) {
  TempDir dir;
  const std::filesystem::path folder = std::filesystem::path(dir.file("ro"));
  std::filesystem::create_directories(folder);
  const std::string path = (folder / "a.sqlite").string();
  {
    Store store(path);
    write_one(store, kProblem, {sample("k_fast", 0.5), sample("k_slow", 0.9)});
  }
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  std::filesystem::permissions(dir.file(""), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  std::filesystem::permissions(path, std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  const int code = in_read_only_directory(folder, [&] {
    try {
      Store store(path, {.read_only = true});
      return store.read_measurements({}).size() == 2 && store.info().measurements == 2 ? 0 : 1;
    } catch (const StorageError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  });
  EXPECT_EQ(code, 0);
  EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
}

}  // namespace
}  // namespace kselect::data
