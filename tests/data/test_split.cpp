#include "data/split.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/error.h"
#include "data/sqlite.h"
#include "data/store.h"
#include "temp_dir.h"

namespace kselect::data {
namespace {

using kselect::testing::read_bytes;
using kselect::testing::TempDir;
using kselect::testing::write_bytes;

Measurement row(const std::string& kernel, double ms) {
  Measurement m;
  m.kernel = kernel, m.valid = true, m.median_ms = ms, m.min_ms = ms, m.mean_ms = ms;
  m.tflops = 1.0 / ms;
  return m;
}

// A store of `problems` problems (ids 1..problems), two kernels each, written by two runs.
void write_store(const std::string& path, int problems) {
  Store store(path);
  for (int run_index = 0; run_index < 2; ++run_index) {
    long run = store.begin_run("gemm", {{"cpu_model", "test"}}, {{"rules", "tiny"}}, "key", 0);
    for (int i = run_index; i < problems; i += 2)
      store.write_problem(run, "key", "gemm",
                          "m=" + std::to_string(i + 1) + ",n=8,k=8,layout=rcr,dtype=fp32",
                          {row("k_a", 1.0 + i), row("k_b", 2.0 + i)}, nullptr);
    store.finish_run(run, 0, false, "finished");
  }
}

std::set<long> ids(const std::string& path, const std::string& query) {
  Database db(path, true, false, 1000);
  Statement rows(db, query);
  std::set<long> out;
  while (rows.step()) out.insert(long(rows.column_int(0)));
  return out;
}

std::set<long> problem_ids(const std::string& path) {
  return ids(path, "SELECT id FROM problems");
}
std::set<long> measured_problem_ids(const std::string& path) {
  return ids(path, "SELECT DISTINCT problem_id FROM measurements");
}

TEST(SplitStore, HoldsOutTheProblemsCongruentToThePartAndKeepsEverythingElse) {
  TempDir dir;
  const std::string db = dir.file("sweep.sqlite");
  write_store(db, 12);
  ASSERT_EQ(problem_ids(db), (std::set<long>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  auto result = split_store(db, dir.file("out/nested"), 2, 5);
  EXPECT_EQ(result.train.path, dir.file("out/nested/train2.sqlite"));
  EXPECT_EQ(result.held.path, dir.file("out/nested/held2.sqlite"));
  EXPECT_EQ(problem_ids(result.held.path), (std::set<long>{2, 7, 12}));
  EXPECT_EQ(measured_problem_ids(result.held.path), (std::set<long>{2, 7, 12}));
  EXPECT_EQ(problem_ids(result.train.path), (std::set<long>{1, 3, 4, 5, 6, 8, 9, 10, 11}));
  EXPECT_EQ(measured_problem_ids(result.train.path), problem_ids(result.train.path));
  EXPECT_EQ(result.held.problems, 3);
  EXPECT_EQ(result.held.measurements, 6);
  EXPECT_EQ(result.train.problems, 9);
  EXPECT_EQ(result.train.measurements, 18);
  // Both sides are stores with the input's runs and kernels, whatever they measured.
  for (const auto& side : {result.train, result.held}) {
    Store store(side.path, StoreOptions{.read_only = true});
    auto info = store.info();
    EXPECT_EQ(info.runs.size(), 2u) << side.path;
    EXPECT_EQ(info.kernels, 2) << side.path;
    EXPECT_EQ(info.problems, side.problems) << side.path;
  }
  // Measurement ids survive: the sides' ids partition the input's.
  auto all = ids(db, "SELECT id FROM measurements");
  auto train = ids(result.train.path, "SELECT id FROM measurements");
  auto held = ids(result.held.path, "SELECT id FROM measurements");
  std::set<long> both(train);
  both.insert(held.begin(), held.end());
  EXPECT_EQ(both, all);
  EXPECT_EQ(train.size() + held.size(), all.size());
}

TEST(SplitStore, ReplacesEarlierSplitsAndLeavesNoPartialFile) {
  TempDir dir;
  const std::string db = dir.file("sweep.sqlite");
  write_store(db, 6);
  const std::string out = dir.file("splits");
  std::filesystem::create_directory(out);
  write_bytes(out + "/held0.sqlite", "not a database");
  write_bytes(out + "/held0.sqlite-wal", "a stale journal");
  auto result = split_store(db, out, 0, 3);
  // (Checked before anything reads the copies: a reader of a WAL database leaves a -wal file.)
  EXPECT_FALSE(std::filesystem::exists(out + "/held0.sqlite-wal"));
  EXPECT_FALSE(std::filesystem::exists(out + "/held0.sqlite.partial"));
  EXPECT_FALSE(std::filesystem::exists(out + "/train0.sqlite.partial"));
  EXPECT_EQ(problem_ids(result.held.path), (std::set<long>{3, 6}));
  // Splitting again gives the same rows.
  auto again = split_store(db, out, 0, 3);
  EXPECT_EQ(problem_ids(again.train.path), (std::set<long>{1, 2, 4, 5}));
  EXPECT_EQ(again.train.measurements, result.train.measurements);
}

TEST(SplitStore, OnePartHoldsEverythingOut) {
  TempDir dir;
  const std::string db = dir.file("sweep.sqlite");
  write_store(db, 4);
  auto result = split_store(db, dir.file("out"), 0, 1);
  EXPECT_EQ(result.held.problems, 4);
  EXPECT_EQ(result.train.problems, 0);
  EXPECT_EQ(result.train.measurements, 0);
}

TEST(SplitStore, RefusesBadPartsMissingOrForeignInputsAndOverwritingTheInput) {
  TempDir dir;
  const std::string db = dir.file("sweep.sqlite");
  write_store(db, 4);
  EXPECT_THROW(split_store(db, dir.file("out"), 5, 5), InputError);
  EXPECT_THROW(split_store(db, dir.file("out"), -1, 5), InputError);
  EXPECT_THROW(split_store(db, dir.file("out"), 0, 0), InputError);
  EXPECT_THROW(split_store(dir.file("absent.sqlite"), dir.file("out"), 0, 5), StorageError);
  write_bytes(dir.file("shapes.csv"), "m,n,k\n1,2,3\n");
  EXPECT_THROW(split_store(dir.file("shapes.csv"), dir.file("out"), 0, 5), StorageError);
  EXPECT_EQ(read_bytes(dir.file("shapes.csv")), "m,n,k\n1,2,3\n");
  // An output directory that is a file.
  EXPECT_THROW(split_store(db, dir.file("shapes.csv"), 0, 5), StorageError);
  // The input named as one of the outputs is never replaced.
  std::filesystem::create_directory(dir.file("in"));
  std::filesystem::copy_file(db, dir.file("in/held0.sqlite"));
  EXPECT_THROW(split_store(dir.file("in/held0.sqlite"), dir.file("in"), 0, 5), InputError);
  EXPECT_EQ(problem_ids(dir.file("in/held0.sqlite")), (std::set<long>{1, 2, 3, 4}));
  EXPECT_FALSE(std::filesystem::exists(dir.file("in/train0.sqlite")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

}  // namespace
}  // namespace kselect::data
