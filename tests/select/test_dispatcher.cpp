#include "select/dispatcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "model/train.h"
#include "select/candidates.h"

namespace kselect::select {
namespace {

const std::filesystem::path& trained_model() {
  static const std::filesystem::path dir = [] {
    model::TrainOptions o = kselect::testing::quick_options("dispatcher_model");
    o.targets = {"tflops"};
    o.folds = 2;
    o.boosting.trees = 30;
    o.hardware = host_hardware();  // the dispatcher ranks with this machine's profile
    model::train(kselect::testing::synthetic_measurements(), o);
    return o.out_dir;
  }();
  return dir;
}

DispatchOptions with_model(Strategy strategy = Strategy::kModel) {
  DispatchOptions o;
  o.model = trained_model();
  o.strategy = strategy;
  o.log = [](const std::string&) {};
  return o;
}

const std::vector<std::string> kProblems = {
    "m=700,n=2000,k=1000,layout=rcr,dtype=fp32", "m=1,n=4096,k=4096,layout=rcr,dtype=fp32",
    "m=64,n=64,k=64,layout=rcr,dtype=fp32",      "m=333,n=257,k=129,layout=rcr,dtype=fp32",
    "m=4096,n=16,k=512,layout=rcr,dtype=fp32",   "m=96,n=3000,k=48,layout=rcr,dtype=fp32"};

TEST(Dispatcher, ModelDecisionIsTheSelectionChainsTopKernel) {
  Dispatcher d(with_model());
  auto chain = ModelSelector::load(trained_model(), "", {});
  for (const auto& p : kProblems) {
    const Decision first = d.select(p);
    EXPECT_EQ(first.source, Source::kModel);
    EXPECT_EQ(d.catalogue().name(first.kernel), chain.predict(p).ranked.front().kernel) << p;
    const Decision again = d.select(p);
    EXPECT_EQ(again.source, Source::kCache);
    EXPECT_EQ(again.decided_by, Source::kModel);
    EXPECT_EQ(again.kernel, first.kernel);
  }
  const DispatchCounts c = d.counts();
  EXPECT_EQ(c.cache_misses, kProblems.size());
  EXPECT_EQ(c.cache_hits, kProblems.size());
}

TEST(Dispatcher, DefaultStrategyIsTheOpsNoModelPick) {
  DispatchOptions o;
  o.op = "gemm";
  o.strategy = Strategy::kDefault;
  Dispatcher d(o);
  EXPECT_FALSE(d.has_model());
  for (const auto& p : kProblems) {
    const Decision s = d.select(p);
    EXPECT_EQ(s.source, Source::kDefault);
    EXPECT_EQ(d.catalogue().name(s.kernel), default_kernel(d.op(), "default", p)) << p;
  }
}

TEST(Dispatcher, MissingModelFallsBackLoudlyOrFailsWhenRequired) {
  std::vector<std::string> lines;
  DispatchOptions o;
  o.model = "/nonexistent/model";
  o.op = "gemm";
  o.strategy = Strategy::kModel;
  o.log = [&](const std::string& l) { lines.push_back(l); };
  Dispatcher d(o);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find("/nonexistent/model"), std::string::npos) << lines.front();
  const Decision s = d.select(kProblems[0]);
  EXPECT_EQ(s.source, Source::kDefault);
  EXPECT_EQ(d.counts().model_fallbacks, 1u);
  o.require_model = true;
  EXPECT_THROW(Dispatcher{o}, StorageError);
}

TEST(Dispatcher, ModelOfAnotherDtypeFallsBackPerProblem) {
  std::vector<std::string> lines;
  DispatchOptions o = with_model();
  o.log = [&](const std::string& l) { lines.push_back(l); };
  Dispatcher d(o);
  const Decision s = d.select("m=64,n=64,k=64,layout=rcr,dtype=bf16");
  EXPECT_EQ(s.source, Source::kDefault);
  EXPECT_EQ(d.counts().model_fallbacks, 1u);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("trained on fp32"), std::string::npos) << lines.back();
}

TEST(Dispatcher, HybridMeasuresTheModelsTopK) {
  DispatchOptions o = with_model(Strategy::kHybrid);
  o.hybrid_top_k = 3;
  o.measure.repeats = 1;
  Dispatcher d(o);
  const std::string p = "m=64,n=64,k=64,layout=rcr,dtype=fp32";
  const Explanation e = d.explain(p, 3);
  std::set<std::string> measured;
  for (const auto& k : e.top)
    if (std::isfinite(k.measured_ms)) measured.insert(k.predicted.kernel);
  EXPECT_EQ(measured.size(), 3u);
  EXPECT_TRUE(measured.count(e.kernel)) << "the pick is one of the measured kernels";
  EXPECT_EQ(e.source, "measured");
  const Decision s = d.select(p);  // explain's decision, kept
  EXPECT_EQ(s.source, Source::kCache);
  EXPECT_EQ(s.decided_by, Source::kMeasured);
  EXPECT_EQ(d.catalogue().name(s.kernel), e.kernel);
  EXPECT_EQ(d.counts().kernels_measured, 3u);
  const Explanation again = d.explain(p, 3);  // decided afresh, but the cache's answer stands
  EXPECT_EQ(again.kernel, e.kernel);
  EXPECT_EQ(again.source, "cache");
  EXPECT_EQ(d.counts().kernels_measured, 6u);
}

TEST(Dispatcher, ExhaustiveMeasuresEverySupportedKernel) {
  DispatchOptions o;
  o.op = "gemm";
  o.selection.rules = "tests";
  o.strategy = Strategy::kExhaustive;
  o.measure.repeats = 1;
  Dispatcher d(o);
  const std::string p = "m=16,n=16,k=16,layout=rcr,dtype=fp32";
  d.select(p);
  std::size_t in_rule_set = 0;
  for (const auto& k : d.op().kernel_names("tests", {}))
    in_rule_set += d.catalogue().unsupported_reason(d.catalogue().find(k), p).empty();
  EXPECT_EQ(d.counts().kernels_measured, in_rule_set);
}

TEST(Dispatcher, AutoTakesTheModelInsideItsRangesAndMeasuresOutside) {
  DispatchOptions o = with_model(Strategy::kAuto);
  o.confidence_margin = 0;  // judge the range rule alone
  o.measure.repeats = 1;
  Dispatcher d(o);
  // The selector is kept: a reference into a temporary's ranges would dangle (ThreadSanitizer
  // reported the read after free).
  const ModelSelector chain = ModelSelector::load(trained_model(), "", {});
  const auto& ranges = chain.ranker().spec().training_ranges;
  ASSERT_FALSE(ranges.empty()) << "training records the problems' ranges";
  const Explanation inside = d.explain("m=128,n=128,k=128,layout=rcr,dtype=fp32");
  EXPECT_TRUE(inside.out_of_range.empty());
  EXPECT_EQ(inside.decided_strategy, "ml");
  const Explanation outside = d.explain("m=100000,n=128,k=128,layout=rcr,dtype=fp32");
  ASSERT_FALSE(outside.out_of_range.empty());
  EXPECT_EQ(outside.out_of_range.front().field, "m");
  EXPECT_EQ(outside.decided_strategy, "hybrid");
  EXPECT_EQ(outside.source, "measured");
}

TEST(Dispatcher, AutoStopsMeasuringWhenTheBudgetIsSpent) {
  DispatchOptions o = with_model(Strategy::kAuto);
  o.measure_budget_ms = 0;
  Dispatcher d(o);
  const Explanation e = d.explain("m=100000,n=128,k=128,layout=rcr,dtype=fp32");
  EXPECT_EQ(e.decided_strategy, "ml");
  EXPECT_EQ(d.counts().kernels_measured, 0u);
}

TEST(Dispatcher, UnconfidentModelIsCheckedByMeasuring) {
  DispatchOptions o = with_model(Strategy::kAuto);
  o.confidence_margin = 1e9;  // no pick is ever predicted that much faster
  o.measure.repeats = 1;
  Dispatcher d(o);
  const Explanation e = d.explain("m=128,n=128,k=128,layout=rcr,dtype=fp32");
  EXPECT_EQ(e.decided_strategy, "hybrid");
  bool said = false;
  for (const auto& n : e.notes) said = said || n.find("not confident") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Dispatcher, ExplainListsEveryRejectedKernelWithItsReason) {
  Dispatcher d(with_model());
  const std::string p = "m=64,n=64,k=64,layout=rcr,dtype=fp32";
  const Explanation e = d.explain(p, 5);
  EXPECT_EQ(e.top.size(), 5u);
  EXPECT_EQ(e.candidates + e.rejected.size(), d.catalogue().size());
  for (const auto& [name, r] : e.rejected) {
    EXPECT_EQ(r.filter, "unsupported");
    EXPECT_FALSE(r.reason.empty()) << name;
  }
  EXPECT_FALSE(e.features.empty());
  EXPECT_EQ(e.to_json()["kernel"], e.kernel);
  EXPECT_NE(e.to_table().find(e.kernel), std::string::npos);
}

// An empty scratch directory of this test process.
std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = kselect::testing::scratch_dir(name);
  std::filesystem::create_directories(dir);
  return dir;
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  auto path = fresh_dir("dispatcher_files") / name;
  std::ofstream(path) << text;
  return path;
}

TEST(Dispatcher, ControlsPinAllowDenyAndWorkspaceAreAppliedAndCounted) {
  Dispatcher plain(with_model());
  const std::string p = "m=700,n=2000,k=1000,layout=rcr,dtype=fp32";
  const std::string pick = plain.catalogue().name(plain.select(p).kernel);
  const auto supported = plain.catalogue().supported(p);
  const std::string other = plain.catalogue().name(
      supported.back() == plain.catalogue().find(pick) ? supported.front() : supported.back());
  DispatchOptions o = with_model();
  o.controls = write_file("deny.json", "{\"deny\": [\"" + pick + "\"]}");
  Dispatcher denied(o);
  EXPECT_NE(denied.catalogue().name(denied.select(p).kernel), pick);
  EXPECT_EQ(denied.counts().controls.denied, 1u);

  o.controls = write_file("pin.json",
                          "{\"pins\": [{\"problem\": \"m=600..800,layout=rcr\", "
                          "\"kernel\": \"" +
                              other + "\"}]}");
  Dispatcher pinned(o);
  const Decision s = pinned.select(p);
  EXPECT_EQ(s.source, Source::kPinned);
  EXPECT_EQ(pinned.catalogue().name(s.kernel), other);
  EXPECT_NE(pinned.select("m=64,n=64,k=64,layout=rcr,dtype=fp32").source, Source::kPinned);

  o.controls = write_file("allow.json", "{\"allow\": [\"" + other + "\"]}");
  Dispatcher allowed(o);
  EXPECT_EQ(allowed.catalogue().name(allowed.select(p).kernel), other);
  EXPECT_EQ(allowed.counts().controls.not_allowed, supported.size() - 1);

  o.controls = write_file("workspace.json", "{\"workspace_bytes\": 0}");
  Dispatcher tight(o);
  const Explanation e = tight.explain(p);  // every kernel that packs needs workspace
  for (const auto& [name, r] : e.rejected)
    if (r.filter == "workspace") EXPECT_NE(r.reason.find("bytes of workspace"), std::string::npos);
}

TEST(Dispatcher, ControlsNameTheFileAndFieldOfBadInput) {
  DispatchOptions o = with_model();
  auto expect_error = [&](const std::string& text, const std::string& want) {
    o.controls = write_file("bad.json", text);
    try {
      Dispatcher d(o);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    }
  };
  expect_error("{\"deny\": [\"no_such_kernel\"]}", "deny[0]");
  expect_error("{\"pins\": [{\"problem\": \"mm=1\", \"kernel\": \"x\"}]}", "pins[0].kernel");
  expect_error("{\"workspace_bytes\": -1}", "workspace_bytes");
  expect_error("{\"allowed\": []}", "allowed");
  expect_error("{\"deny\": [}", "not valid JSON");
}

TEST(Dispatcher, CacheFileRoundTripsAndAStaleOrCorruptOneIsRebuiltLoudly) {
  const auto file = fresh_dir("dispatcher_cache") / "decisions.cache";
  std::filesystem::remove(file);
  DispatchOptions o = with_model();
  o.cache_file = file;
  std::vector<Decision> first;
  {
    Dispatcher d(o);
    for (const auto& p : kProblems) first.push_back(d.select(p));
    d.save_cache();
  }
  std::string text;
  {
    std::ifstream in(file);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    Dispatcher d(o);
    for (std::size_t i = 0; i < kProblems.size(); ++i) {
      const Decision s = d.select(kProblems[i]);
      EXPECT_EQ(s.source, Source::kCache);
      EXPECT_EQ(s.kernel, first[i].kernel);
    }
    EXPECT_EQ(d.counts().cache_misses, 0u);
    const auto again = file.parent_path() / "again.cache";
    d.save_cache(again);
    std::ifstream in(again);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text) << "round trip";
  }
  std::vector<std::string> lines;
  o.log = [&](const std::string& l) { lines.push_back(l); };
  o.strategy = Strategy::kDefault;  // another decision policy: the file is stale
  {
    Dispatcher d(o);
    EXPECT_EQ(d.counts().cache_rebuilds, 1u);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("stale"), std::string::npos) << lines[0];
    EXPECT_EQ(d.select(kProblems[0]).source, Source::kDefault);
  }
  std::ofstream(file) << text.substr(0, text.size() / 2) << "\tbroken\n";
  o.strategy = Strategy::kModel;
  lines.clear();
  Dispatcher d(o);
  EXPECT_EQ(d.counts().cache_rebuilds, 1u);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("corrupt"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("decisions.cache:"), std::string::npos) << "names the file and line";
  EXPECT_EQ(d.select(kProblems[0]).source, Source::kModel);
}

TEST(Dispatcher, LockfileReplaysByteForByte) {
  const auto dir = fresh_dir("dispatcher_lock");
  const auto lock = dir / "kselect.lock";
  std::filesystem::remove(lock);
  DispatchOptions o = with_model(Strategy::kHybrid);
  o.measure.repeats = 1;
  o.lockfile = lock;
  std::vector<std::uint32_t> recorded;
  {
    Dispatcher d(o);
    for (const auto& p : kProblems) recorded.push_back(d.select(p).kernel);
    d.save_lockfile();
  }
  std::ifstream in(lock);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  o.replay_lockfile = true;
  o.lockfile = lock;
  Dispatcher replay(o);
  for (std::size_t i = 0; i < kProblems.size(); ++i) {
    const Decision s = replay.select(kProblems[i]);
    EXPECT_EQ(s.source, Source::kLockfile);
    EXPECT_EQ(s.decided_by, Source::kMeasured);
    EXPECT_EQ(s.kernel, recorded[i]);
  }
  EXPECT_EQ(replay.counts().kernels_measured, 0u) << "a replay measures nothing";
  replay.save_lockfile(dir / "replayed.lock");
  std::ifstream again(dir / "replayed.lock");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), text);
}

TEST(Dispatcher, ConcurrentSelectsAgreeWithOneThread) {
  Dispatcher reference(with_model());
  std::vector<std::string> problems;
  for (int m : {1, 7, 64, 100, 513})
    for (int n : {16, 300, 2048})
      problems.push_back("m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                         ",k=256,layout=rcr,dtype=fp32");
  std::vector<std::uint32_t> expected;
  for (const auto& p : problems) expected.push_back(reference.select(p).kernel);
  Dispatcher shared(with_model());
  std::vector<ProblemKey> keys;  // hashed once, as the public Problem handle does
  for (const auto& p : problems) keys.push_back({p, ProblemKey::hash_of(p)});
  // 8 threads x 1M calls (the figure); the ThreadSanitizer build runs fewer
  // (KSELECT_TEST_SELECTS_PER_THREAD), since it is 10-20x slower.
  const char* env = std::getenv("KSELECT_TEST_SELECTS_PER_THREAD");
  const int calls = env ? std::atoi(env) : 1000000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        const std::size_t j = std::size_t(i * 7 + t) % problems.size();
        if (shared.select(keys[j]).kernel != expected[j]) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(shared.counts().cache_misses + shared.counts().cache_hits, 8u * std::uint64_t(calls));
}

TEST(Dispatcher, BadOptionsAreRejected) {
  DispatchOptions o;
  EXPECT_THROW(Dispatcher{o}, InputError);  // neither model nor op
  o.op = "gemm";
  o.hybrid_top_k = 0;
  EXPECT_THROW(Dispatcher{o}, InputError);
  EXPECT_THROW(parse_strategy("fastest"), InputError);
  o.hybrid_top_k = 3;
  Dispatcher d(o);
  EXPECT_THROW(d.canonical("m=0,n=1,k=1"), InputError);
}

}  // namespace
}  // namespace kselect::select
