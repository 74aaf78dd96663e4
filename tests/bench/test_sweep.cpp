#include "bench/sweep.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "../data/temp_dir.h"
#include "bench/fingerprint.h"
#include "bench/stability.h"
#include "core/hardware.h"
#include "data/store.h"
#include "fake_operation.h"

namespace kselect::bench {
namespace {

using kselect::testing::FakeOperation;
using kselect::testing::FakeWorkload;
using kselect::testing::TempDir;

SweepSettings quick() {
  SweepSettings s;
  s.warmup = 1, s.repeat = 5, s.progress = false;
  return s;
}

std::map<std::string, data::Measurement> by_kernel(const std::vector<data::Measurement>& rows) {
  std::map<std::string, data::Measurement> out;
  for (const auto& r : rows) out[r.kernel] = r;
  return out;
}

TEST(Sweep, MeasuresInterleavedAndRecordsEveryFailure) {
  FakeOperation op;
  SweepSettings s = quick();
  s.verify = true;
  auto rows =
      by_kernel(measure_problem(op, "size=400,dtype=a", {"fast", "slow", "thrower", "wrong"}, s));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows["fast"].valid);
  EXPECT_TRUE(rows["fast"].verified);
  EXPECT_EQ(rows["fast"].repeats_ms.size(), 5u);
  EXPECT_GE(rows["fast"].min_ms, 0.4);  // spins 400 us
  EXPECT_GE(rows["slow"].min_ms, 1.2);  // spins 1200 us
  EXPECT_LT(rows["fast"].median_ms, rows["slow"].median_ms);
  EXPECT_LE(rows["fast"].ci_low_ms, rows["fast"].median_ms);
  EXPECT_GE(rows["fast"].ci_high_ms, rows["fast"].median_ms);
  EXPECT_NEAR(rows["fast"].tflops, 400e6 / (rows["fast"].median_ms * 1e-3) / 1e12, 1e-12);
  EXPECT_FALSE(rows["thrower"].valid);
  EXPECT_NE(rows["thrower"].reason.find("out of registers"), std::string::npos);
  EXPECT_FALSE(rows["wrong"].valid);
  EXPECT_EQ(rows["wrong"].reason.rfind("wrong result:", 0), 0u) << rows["wrong"].reason;
}

// A problem whose workload needs more memory than the machine can give is stored invalid with
// the reason before anything is allocated; a problem that fits is measured.
TEST(Sweep, AProblemTooLargeForTheMachineIsInvalidNotFatal) {
  ASSERT_GT(available_memory_bytes(), 0);
  FakeOperation op;
  op.bytes_per_size = available_memory_bytes() / 100;  // size 100 needs all of it
  SweepSettings s = quick();
  auto rows = by_kernel(measure_problem(op, "size=200,dtype=a", {"fast", "slow"}, s));
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& [kernel, row] : rows) {
    EXPECT_FALSE(row.valid) << kernel;
    EXPECT_NE(row.reason.find("GiB are available"), std::string::npos) << row.reason;
  }
  EXPECT_TRUE(by_kernel(measure_problem(op, "size=20,dtype=a", {"fast"}, s))["fast"].valid);
}

TEST(Sweep, PrunesHopelessKernelsAfterAFewRuns) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 3, s.repeat = 8;
  s.prune_factor = 2;  // slow spins 3x as long as fast
  auto pruned = by_kernel(measure_problem(op, "size=300,dtype=a", {"fast", "slow"}, s));
  EXPECT_EQ(pruned["fast"].repeats_ms.size(), 8u);
  EXPECT_EQ(pruned["slow"].repeats_ms.size(), std::size_t(SweepSettings::kPrunedRepeats));
  EXPECT_TRUE(pruned["slow"].valid);
  EXPECT_GE(pruned["slow"].min_ms, 0.9);

  s.prune_factor = 0;  // off: every kernel gets every round
  auto full = by_kernel(measure_problem(op, "size=300,dtype=a", {"fast", "slow"}, s));
  EXPECT_EQ(full["slow"].repeats_ms.size(), 8u);

  s.prune_factor = 4;  // within the factor: nothing is pruned
  auto kept = by_kernel(measure_problem(op, "size=300,dtype=a", {"fast", "slow"}, s));
  EXPECT_EQ(kept["slow"].repeats_ms.size(), 8u);
}

TEST(Sweep, ShortKernelsAreTimedOverManyCallsPerSample) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 2, s.repeat = 3, s.min_sample_us = 300;  // "fast" spins 10 us: 30 calls a sample
  auto start = std::chrono::steady_clock::now();
  auto rows = by_kernel(measure_problem(op, "size=10,dtype=a", {"fast"}, s));
  double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(rows["fast"].valid);
  EXPECT_EQ(rows["fast"].repeats_ms.size(), 3u);
  EXPECT_GE(rows["fast"].min_ms, 0.010);  // a time per call, not per sample
  EXPECT_LT(rows["fast"].min_ms, 0.3);
  EXPECT_GE(wall_ms, 3 * 0.3);  // three samples of at least 300 us each
}

TEST(Sweep, MinSampleTimeIsPartOfTheResumeKey) {
  SweepSettings s;
  HardwareProfile hw = host_hardware();
  s.min_sample_us = 0;
  EXPECT_EQ(s.key("gemm", hw).find("min_sample_us"), std::string::npos);  // the old key
  s.min_sample_us = 100;
  EXPECT_NE(s.key("gemm", hw).find(";min_sample_us=100"), std::string::npos);
  s.cold = true;  // every cold call is timed alone
  EXPECT_EQ(s.key("gemm", hw).find("min_sample_us"), std::string::npos);
}

TEST(Sweep, WithoutVerifyWrongKernelsAreNotChecked) {
  FakeOperation op;
  auto rows = by_kernel(measure_problem(op, "size=5,dtype=a", {"wrong", "big_only"}, quick()));
  EXPECT_TRUE(rows["wrong"].valid);
  EXPECT_FALSE(rows["wrong"].verified);
  EXPECT_FALSE(rows["big_only"].valid);
  EXPECT_EQ(rows["big_only"].reason, "size below 10");
}

// Two sweeps of one database at once: each pair is stored once, and what each reports as
// written adds up to what is stored; the rest of what they measured is reported discarded.
TEST(Sweep, ConcurrentSweepsReportOnlyWhatTheyWrote) {
  FakeOperation op;
  TempDir dir;
  const std::string path = dir.file("shared.sqlite");
  { data::Store create(path); }
  const std::vector<std::string> problems = {"size=300,dtype=a", "size=200,dtype=a",
                                             "size=100,dtype=a"};
  SweepSummary a, b;
  auto sweep = [&](SweepSummary& out) {
    data::Store store(path);
    std::ostringstream log;
    out = run_sweep(op, problems, store, quick(), log);
  };
  std::thread first(sweep, std::ref(a)), second(sweep, std::ref(b));
  first.join();
  second.join();
  data::Store store(path);
  const long stored = long(store.read_measurements().size());
  EXPECT_EQ(stored, 15);  // 5 kernels of dtype a per problem
  EXPECT_EQ(a.written + b.written, stored);
  EXPECT_EQ(a.written + a.discarded + a.skipped + b.written + b.discarded + b.skipped, 2 * stored);
}

TEST(Sweep, WritesOncePerPairAndResumes) {
  FakeOperation op;
  TempDir dir;
  data::Store store(dir.file("sweep.sqlite"));
  std::vector<std::string> problems = {"size=5,dtype=a", "size=50,dtype=a", "size=20,dtype=b"};
  std::ostringstream log;
  SweepSummary first = run_sweep(op, problems, store, quick(), log);
  // dtype a: 5 kernels each (not other_dtype); dtype b: only other_dtype.
  EXPECT_EQ(first.pairs, 11);
  EXPECT_EQ(first.written, 11);
  EXPECT_EQ(first.invalid, 3);  // thrower x2 + big_only on size 5
  SweepSummary second = run_sweep(op, problems, store, quick(), log);
  EXPECT_EQ(second.written, 0);
  EXPECT_EQ(second.skipped, 11);
  EXPECT_EQ(store.read_measurements().size(), 11u);
  // Different settings are a different measurement: measured again.
  SweepSettings more = quick();
  more.repeat = 6;
  EXPECT_EQ(run_sweep(op, problems, store, more, log).written, 11);
  auto info = store.info();
  ASSERT_EQ(info.runs.size(), 3u);
  EXPECT_EQ(info.runs[0].status, "finished");
  EXPECT_EQ(info.measurements, 22);
}

TEST(Sweep, ShardsSplitTheWorkWithoutOverlap) {
  FakeOperation op;
  TempDir dir;
  std::vector<std::string> problems;
  for (int size = 1; size <= 12; ++size)
    problems.push_back("size=" + std::to_string(size) + ",dtype=b");
  long total = 0;
  std::ostringstream log;
  for (int i = 0; i < 3; ++i) {
    data::Store store(dir.file("shard" + std::to_string(i) + ".sqlite"));
    SweepSettings s = quick();
    s.repeat = 1, s.shard = Shard{i, 3};
    total += run_sweep(op, problems, store, s, log).written;
  }
  EXPECT_EQ(total, 12);
  data::Store merged(dir.file("merged.sqlite"));
  auto counts = merged.merge_from({dir.file("shard0.sqlite"), dir.file("shard1.sqlite"),
                                   dir.file("shard2.sqlite"), dir.file("shard1.sqlite")});
  EXPECT_EQ(counts.measurements_added, 12);
  EXPECT_GT(counts.duplicates, 0);  // shard 1 given twice
  EXPECT_EQ(counts.duplicates, counts.measurements_read - 12);
  EXPECT_EQ(merged.read_measurements().size(), 12u);
}

TEST(Sweep, ContendersGetExtraRounds) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 1, s.repeat = 3, s.min_sample_us = 0, s.prune_factor = 0;
  s.contender_repeat = 4;  // "slow" (3x) is outside the 10% band of "fast": a clear winner
  auto rows = by_kernel(measure_problem(op, "size=200,dtype=a", {"fast", "slow", "thrower"}, s));
  EXPECT_EQ(rows["fast"].repeats_ms.size(), 3u);
  EXPECT_EQ(rows["slow"].repeats_ms.size(), 3u);
  EXPECT_FALSE(rows["thrower"].valid);

  s.contender_band = 3;  // now "slow" is a contender too: both get the extra rounds
  rows = by_kernel(measure_problem(op, "size=200,dtype=a", {"fast", "slow"}, s));
  EXPECT_EQ(rows["fast"].repeats_ms.size(), 7u);
  EXPECT_EQ(rows["slow"].repeats_ms.size(), 7u);
}

TEST(Sweep, ContenderRoundsArePartOfTheResumeKeyOnlyWhenOn) {
  SweepSettings s;
  HardwareProfile hw = host_hardware();
  EXPECT_EQ(s.key("gemm", hw).find("contender"), std::string::npos);  // the old key
  s.contender_repeat = 10;
  EXPECT_NE(s.key("gemm", hw).find(";contender_repeat=10;contender_band=0.1"), std::string::npos);
  s.contender_repeat = -1;
  EXPECT_THROW(s.validate(), InputError);
  s.contender_repeat = 1, s.contender_band = -0.5;
  EXPECT_THROW(s.validate(), InputError);
}

TEST(Sweep, ShortKernelsAreTimedAfterTheirOwnCall) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 1, s.repeat = 3, s.min_sample_us = 0, s.prune_factor = 0;
  // Three kernels in rotated rounds: no timed run of needs_self follows its own run.
  const std::vector<std::string> kernels = {"needs_self", "fast", "slow"};
  s.rewarm_below_us = 0;
  auto rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GE(rows["needs_self"].min_ms, 0.6);
  // Its warm-up probe took 600 us, far below 10 ms (a busy machine may stretch the probe): each
  // sample follows an untimed call of its own.
  s.rewarm_below_us = 10000;
  rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GE(rows["needs_self"].min_ms, 0.2);
  EXPECT_LT(rows["needs_self"].min_ms, 0.6);
  EXPECT_EQ(rows["needs_self"].repeats_ms.size(), 3u);
  // 600 us is above 500: not re-warmed.
  s.rewarm_below_us = 500;
  rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GE(rows["needs_self"].min_ms, 0.6);
}

TEST(Sweep, SlowToWarmKernelsAreTimedAfterSeveralCallsOfTheirOwn) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 1, s.repeat = 3, s.min_sample_us = 0, s.prune_factor = 0, s.rewarm_below_us = 10000;
  // needs_two reaches its own time only on its third call in a row: one untimed call is not
  // enough, two are.
  const std::vector<std::string> kernels = {"needs_two", "fast", "slow"};
  auto rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GE(rows["needs_two"].min_ms, 0.6);
  s.rewarm_calls = 2;
  rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GE(rows["needs_two"].min_ms, 0.2);
  EXPECT_LT(rows["needs_two"].min_ms, 0.6);
  EXPECT_EQ(rows["needs_two"].repeats_ms.size(), 3u);
}

TEST(Sweep, RewarmCallsAddNoWarmUpCallsWhereNothingIsRewarmed) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 1, s.repeat = 2, s.min_sample_us = 0, s.prune_factor = 0, s.verify = false;
  const std::vector<std::string> kernels = {"fast", "slow"};
  auto calls = [&] {
    const long before = FakeOperation::total_runs();
    measure_problem(op, "size=20,dtype=a", kernels, s);
    return FakeOperation::total_runs() - before;
  };
  s.rewarm_below_us = 0;
  const long plain = calls();
  EXPECT_EQ(plain, 2 * (1 + 2));  // one warm-up and two timed calls per kernel
  s.rewarm_calls = 4;
  EXPECT_EQ(calls(), plain);
  s.rewarm_below_us = 10000;  // now both are re-warmed: a longer warm-up, 4 calls per sample
  EXPECT_EQ(calls(), 2 * (5 + 2 * (4 + 1)));
}

TEST(Sweep, RewarmCallsArePartOfTheResumeKeyOnlyWhenNotOne) {
  SweepSettings s;
  HardwareProfile hw = host_hardware();
  EXPECT_EQ(s.key("gemm", hw).find("rewarm_calls"), std::string::npos);  // the old key
  s.rewarm_calls = 3;
  EXPECT_NE(s.key("gemm", hw).find(";rewarm_calls=3"), std::string::npos);
  EXPECT_EQ(s.to_json()["rewarm_calls"], 3);
  s.rewarm_below_us = 0;  // nothing is re-warmed
  EXPECT_EQ(s.key("gemm", hw).find("rewarm_calls"), std::string::npos);
  s.rewarm_below_us = 1000, s.rewarm_calls = 0;
  EXPECT_THROW(s.validate(), InputError);
  s.rewarm_calls = 101;
  EXPECT_THROW(s.validate(), InputError);
}

TEST(Sweep, ReverseKernelOrderMeasuresTheLastKernelFirst) {
  FakeOperation op;
  SweepSettings s = quick();
  s.warmup = 1, s.repeat = 1, s.min_sample_us = 0;
  auto names = [](const std::vector<data::Measurement>& rows) {
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r.kernel);
    return out;
  };
  const std::vector<std::string> kernels = {"fast", "slow", "needs_self"};
  EXPECT_EQ(names(measure_problem(op, "size=20,dtype=a", kernels, s)), kernels);
  s.reverse_kernels = true;
  const std::vector<std::string> reversed = {"needs_self", "slow", "fast"};
  EXPECT_EQ(names(measure_problem(op, "size=20,dtype=a", kernels, s)), reversed);
}

TEST(Sweep, RewarmIsPartOfTheResumeKeyOnlyWhenOn) {
  SweepSettings s;
  HardwareProfile hw = host_hardware();
  EXPECT_NE(s.key("gemm", hw).find(";rewarm_below_us=1000"), std::string::npos);  // the default
  s.rewarm_below_us = 0;
  EXPECT_EQ(s.key("gemm", hw).find("rewarm"), std::string::npos);  // the old key
  s.rewarm_below_us = 1000, s.cold = true;  // every cold sample starts from flushed caches
  EXPECT_EQ(s.key("gemm", hw).find("rewarm"), std::string::npos);
  s.cold = false, s.rewarm_below_us = -1;
  EXPECT_THROW(s.validate(), InputError);
}

TEST(Sweep, ResumeWarnsWhenAnotherBuildTimedTheSkippedPairs) {
  FakeOperation op;
  TempDir dir;
  const std::string path = dir.file("sweep.sqlite");
  const std::vector<std::string> problems = {"size=5,dtype=a"};
  std::ostringstream log;
  {
    data::Store store(path);
    EXPECT_FALSE(run_sweep(op, problems, store, quick(), log).other_measured_code);
    auto runs = store.info().runs;
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].settings.value("measured_code", ""), measured_code_fingerprint());
    EXPECT_FALSE(run_sweep(op, problems, store, quick(), log).other_measured_code);  // this build
  }
  EXPECT_EQ(log.str().find("other kernels"), std::string::npos) << log.str();
  // The runs as a build with other kernels would have recorded them.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(
                db, "UPDATE runs SET settings = json_set(settings, '$.measured_code', 'another')",
                nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  data::Store store(path);
  // Another problem: none of its pairs were timed by the other build.
  EXPECT_FALSE(run_sweep(op, {"size=50,dtype=a"}, store, quick(), log).other_measured_code);
  EXPECT_EQ(log.str().find("other kernels"), std::string::npos) << log.str();
  SweepSummary resumed = run_sweep(op, problems, store, quick(), log);
  EXPECT_TRUE(resumed.other_measured_code);
  EXPECT_EQ(resumed.written, 0);  // still skipped: the warning says how to time them again
  EXPECT_NE(log.str().find("measured code another; this build " +
                           std::string(measured_code_fingerprint())),
            std::string::npos)
      << log.str();
}

TEST(Sweep, RotatedOperandsTotalTwiceTheL3) {
  HardwareProfile hw;
  hw.l2_kib = 1024, hw.l3_kib = 32 * 1024;
  SweepSettings s;
  const double mib = 1024.0 * 1024.0;
  EXPECT_EQ(operand_copies(2 * mib, s, hw), 1);  // off by default
  s.rotate_above_kib = -1;                       // the L2's 1 MiB
  EXPECT_EQ(operand_copies(0.5 * mib, s, hw), 1);
  EXPECT_EQ(operand_copies(2 * mib, s, hw), 32);
  EXPECT_EQ(operand_copies(3 * mib, s, hw), 22);  // rounded up: at least 64 MiB in all
  EXPECT_EQ(operand_copies(100 * mib, s, hw), 1);
  s.rotate_above_kib = 1;
  EXPECT_EQ(operand_copies(4096, s, hw), 256);  // capped
  s.cold = true;                                // cold calls start from flushed caches anyway
  EXPECT_EQ(operand_copies(2 * mib, s, hw), 1);
}

TEST(Sweep, RotationIsPartOfTheResumeKeyOnlyWhenOn) {
  HardwareProfile hw;
  hw.l2_kib = 1024, hw.l3_kib = 32 * 1024;
  SweepSettings s;
  EXPECT_EQ(s.key("gemm", hw).find("rotate"), std::string::npos);
  s.rotate_above_kib = -1;  // the key holds the size, not -1
  EXPECT_NE(s.key("gemm", hw).find(";rotate_above_kib=1024"), std::string::npos);
  s.rotate_above_kib = 4096;
  EXPECT_NE(s.key("gemm", hw).find(";rotate_above_kib=4096"), std::string::npos);
  s.cold = true;
  EXPECT_EQ(s.key("gemm", hw).find("rotate"), std::string::npos);
  s.cold = false, s.rotate_above_kib = -2;
  EXPECT_THROW(s.validate(), InputError);
}

TEST(Sweep, RotatedProblemsAreNotRewarmed) {
  FakeOperation op;
  SweepSettings s = quick();
  // The 600 us probe is far below 10 ms, so only rotation stops the re-warming.
  s.warmup = 1, s.repeat = 3, s.min_sample_us = 0, s.prune_factor = 0, s.rewarm_below_us = 10000;
  const std::vector<std::string> kernels = {"needs_self", "fast", "slow"};
  s.rotate_above_kib = 1;  // the fake's 200 KB of operands are above it
  FakeWorkload::last_rotation() = 0;
  auto rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_GT(FakeWorkload::last_rotation(), 1);
  // A re-warming call would warm a copy that the timed call does not use: none is made.
  EXPECT_GE(rows["needs_self"].min_ms, 0.6);
  s.rotate_above_kib = 1000;  // 200 KB is below: a single set, re-warmed as before
  FakeWorkload::last_rotation() = 0;
  rows = by_kernel(measure_problem(op, "size=200,dtype=a", kernels, s));
  EXPECT_EQ(FakeWorkload::last_rotation(), 0);
  EXPECT_LT(rows["needs_self"].min_ms, 0.6);
}

TEST(Sweep, RejectsBadSettings) {
  SweepSettings s;
  s.repeat = 0;
  EXPECT_THROW(s.validate(), InputError);
  s.repeat = 1, s.threads = 0;
  EXPECT_THROW(s.validate(), InputError);
  s.threads = 1, s.prune_factor = 1.2;  // would prune kernels within noise of the best
  EXPECT_THROW(s.validate(), InputError);
  s.prune_factor = 3, s.min_sample_us = -1;
  EXPECT_THROW(s.validate(), InputError);
}

data::Measurement row(const std::string& problem, const std::string& kernel, double median,
                      double low, double high) {
  data::Measurement m;
  m.problem = problem, m.kernel = kernel, m.valid = true;
  m.median_ms = median, m.ci_low_ms = low, m.ci_high_ms = high;
  return m;
}

TEST(Stability, TiesAreBrokenByNameAndFlipsCounted) {
  // Process 0: b fastest, a within 2% -> tie, winner "a" by name. Process 1: a fastest.
  std::vector<data::Measurement> p0 = {
      row("x", "b", 1.00, 0.99, 1.01), row("x", "a", 1.015, 1.012, 1.02),
      row("y", "c", 1.0, 0.99, 1.01), row("y", "d", 2.0, 1.9, 2.1)};
  std::vector<data::Measurement> p1 = {row("x", "a", 1.00, 0.99, 1.01),
                                       row("x", "b", 1.5, 1.4, 1.6), row("y", "d", 1.0, 0.99, 1.01),
                                       row("y", "c", 2.0, 1.9, 2.1)};
  Winner w = pick_winner({p0[0], p0[1]}, 0.02);
  EXPECT_EQ(w.kernel, "a");
  EXPECT_EQ(w.ties, (std::vector<std::string>{"a", "b"}));
  // Overlapping intervals tie even outside the band.
  EXPECT_EQ(pick_winner({row("z", "q", 1.0, 0.9, 1.2), row("z", "p", 1.1, 1.15, 1.3)}, 0.02).kernel,
            "p");
  auto report = analyse_stability({p0, p1}, 0.02);
  ASSERT_EQ(report.shapes.size(), 2u);
  EXPECT_EQ(report.shapes[0].flips, 0);  // x: a in both
  EXPECT_EQ(report.shapes[1].flips, 1);  // y: c vs d, each clearly slower in the other
  EXPECT_DOUBLE_EQ(report.flip_rate, 0.5);
}

}  // namespace
}  // namespace kselect::bench
