// End-to-end tests of `kselect shapes`, `kselect bench` and `kselect db` on the real binary.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "../data/temp_dir.h"
#include "bench/fingerprint.h"
#include "cli_runner.h"
#include "core/error.h"
#include "data/store.h"

namespace kselect {
namespace {

using testing::read_bytes;
using testing::run_cli;
using testing::TempDir;

long count_rows(const std::string& db) {
  try {
    data::Store store(db, data::StoreOptions{.read_only = true, .busy_timeout_ms = 1000});
    return long(store.read_measurements().size());
  } catch (const StorageError&) {
    return 0;  // not created yet
  }
}

std::vector<std::string> bench_args(const std::string& shapes, const std::string& db,
                                    const std::string& rules = "default", int repeat = 5) {
  return {"bench",
          "--rules",
          rules,
          "--shapes",
          shapes,
          "--db",
          db,
          "--threads",
          "1",
          "--warmup",
          "1",
          "--repeat",
          std::to_string(repeat),
          "--no-progress"};
}

TEST(BenchCli, ShapesAreDeterministic) {
  TempDir dir;
  auto a = run_cli({"shapes", "--family", "edge", "--count", "9", "--seed", "4", "--dtype", "all"});
  auto b = run_cli({"shapes", "--family", "edge", "--count", "9", "--seed", "4", "--dtype", "all"});
  ASSERT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out.rfind("m,n,k,layout,dtype,split_k\n", 0), 0u);
  EXPECT_NE(a.out.find(",bf16,"), std::string::npos);
  EXPECT_EQ(run_cli({"shapes", "--family", "nope"}).code, kExitInput);
}

// A sweep killed with SIGKILL and started again loses no committed measurement and
// duplicates none: every (problem, kernel) pair ends up stored exactly once.
TEST(BenchCli, ResumesAfterSigkill) {
  TempDir dir;
  std::string shapes = dir.file("s.csv"), db = dir.file("sweep.sqlite");
  ASSERT_EQ(run_cli({"shapes", "--family", "random", "--count", "16", "--max-gflop", "0.02", "-o",
                     shapes})
                .code,
            0);
  pid_t child = testing::spawn_cli(bench_args(shapes, db));
  ASSERT_GT(child, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (count_rows(db) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed";
  std::vector<data::Measurement> before;
  {
    data::Store store(db, data::StoreOptions{.read_only = true});
    before = store.read_measurements();
  }
  ASSERT_GT(before.size(), 0u);

  auto resumed = run_cli([&] {
    auto a = bench_args(shapes, db);
    a.push_back("--json");
    return a;
  }());
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  auto summary = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(summary["skipped"].get<long>(), long(before.size()));
  EXPECT_EQ(summary["written"].get<long>() + summary["skipped"].get<long>(),
            summary["pairs"].get<long>());

  data::Store store(db, data::StoreOptions{.read_only = true});
  auto after = store.read_measurements();
  EXPECT_EQ(long(after.size()), summary["pairs"].get<long>());
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& m : after) pairs.emplace(m.problem, m.kernel);
  EXPECT_EQ(pairs.size(), after.size());  // no duplicates
  std::map<std::pair<std::string, std::string>, long> first_run;
  for (const auto& m : before) first_run[{m.problem, m.kernel}] = m.run_id;
  long kept = 0;
  for (const auto& m : after)
    kept += first_run.count({m.problem, m.kernel}) && first_run[{m.problem, m.kernel}] == m.run_id;
  EXPECT_EQ(kept, long(before.size()));  // nothing committed was lost or rewritten
  auto runs = store.info().runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, "killed");  // never finished, and its process is gone
  EXPECT_EQ(runs[1].status, "finished");
}

TEST(BenchCli, ShardsMergeToTheWholeSweep) {
  TempDir dir;
  std::string shapes = dir.file("s.csv");
  ASSERT_EQ(
      run_cli({"shapes", "--family", "square", "--count", "6", "--max-gflop", "0.01", "-o", shapes})
          .code,
      0);
  auto shard = [&](const std::string& spec, const std::string& db) {
    auto args = bench_args(shapes, db, "tiny", 2);
    args.insert(args.end(), {"--shard", spec});
    return run_cli(args).code;
  };
  ASSERT_EQ(shard("0/2", dir.file("a.sqlite")), 0);
  ASSERT_EQ(shard("1/2", dir.file("b.sqlite")), 0);
  ASSERT_EQ(shard("0/1", dir.file("whole.sqlite")), 0);
  auto merged = run_cli({"db", "merge", dir.file("m.sqlite"), dir.file("a.sqlite"),
                         dir.file("b.sqlite"), dir.file("a.sqlite"), "--json"});
  ASSERT_EQ(merged.code, 0) << merged.out;
  auto counts = nlohmann::json::parse(merged.out);
  long whole = count_rows(dir.file("whole.sqlite"));
  EXPECT_EQ(counts["measurements_added"].get<long>(), whole);
  EXPECT_EQ(counts["duplicates"].get<long>(), count_rows(dir.file("a.sqlite")));
  EXPECT_EQ(count_rows(dir.file("m.sqlite")), whole);
  auto info = run_cli({"db", "info", dir.file("m.sqlite"), "--json"});
  ASSERT_EQ(info.code, 0);
  EXPECT_EQ(nlohmann::json::parse(info.out)["runs"].size(), 2u);
  // Each run names the build's measured code; merging keeps it.
  const std::string code = bench::measured_code_fingerprint();
  EXPECT_EQ(nlohmann::json::parse(info.out)["runs"][0]["settings"]["measured_code"], code);
  auto text = run_cli({"db", "info", dir.file("m.sqlite")});
  EXPECT_NE(text.out.find("measured code " + code), std::string::npos) << text.out;
}

TEST(BenchCli, BadInputsGiveExitCodesAndTouchNothing) {
  TempDir dir;
  std::string shapes = dir.file("s.csv"), garbage = dir.file("garbage.sqlite");
  testing::write_bytes(shapes, "m,n,k,layout,dtype\n4,4,4,rcr,fp32\n4,x,4,rcr,fp32\n");
  auto bad_csv = run_cli(bench_args(shapes, dir.file("a.sqlite")), true);
  EXPECT_EQ(bad_csv.code, kExitInput);
  EXPECT_NE(bad_csv.out.find(shapes + ":3: field 'n'"), std::string::npos) << bad_csv.out;

  testing::write_bytes(shapes, "m,n,k,layout,dtype\n4,4,4,rcr,fp32\n");
  testing::write_bytes(garbage, std::string(3000, 'z'));
  auto corrupt = run_cli(bench_args(shapes, garbage), true);
  EXPECT_EQ(corrupt.code, kExitStorage);
  EXPECT_NE(corrupt.out.find(garbage), std::string::npos) << corrupt.out;
  EXPECT_EQ(read_bytes(garbage), std::string(3000, 'z'));
  EXPECT_EQ(run_cli({"db", "info", garbage}).code, kExitStorage);
  EXPECT_EQ(run_cli({"db", "info", dir.file("missing.sqlite")}).code, kExitStorage);

  auto shard = bench_args(shapes, dir.file("a.sqlite"));
  shard.insert(shard.end(), {"--shard", "3/3"});
  EXPECT_EQ(run_cli(shard).code, kExitInput);
  // A sweep without --db or --shapes is a bad command line (docs/cli.md), not bad data.
  EXPECT_EQ(run_cli({"bench", "--shapes", shapes}).code, kExitUsage);
  EXPECT_EQ(run_cli({"bench", "--db", dir.file("b.sqlite")}).code, kExitUsage);
}

TEST(BenchCli, StabilityReportsAFlipRate) {
  TempDir dir;
  std::string shapes = dir.file("s.csv");
  testing::write_bytes(shapes, "m,n,k,layout,dtype\n64,64,64,rcr,fp32\n17,300,90,rcr,fp32\n");
  auto result =
      run_cli({"bench", "--stability", "--shapes", shapes, "--rules", "default", "--processes", "2",
               "--repeat", "3", "--warmup", "1", "--threads", "1", "--json"});
  ASSERT_EQ(result.code, 0) << result.out;
  auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["shapes"].size(), 2u);
  EXPECT_EQ(report["comparisons"].get<long>(), 2);
  double rate = report["flip_rate"].get<double>();
  EXPECT_GE(rate, 0.0);
  EXPECT_LE(rate, 1.0);
}

}  // namespace
}  // namespace kselect
