// The GEMM rule sets from rules/gemm_cpu.json: relations, sizes, names, and every
// configuration of `full` re-checked here, independently of the rule engine.
#include "ops/gemm/rule_sets.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "ops/gemm/kernel.h"
#include "ops/operation.h"
#include "rules/check.h"

namespace kselect::gemm {

namespace {

std::set<std::string> names_of(const std::string& set) {
  std::set<std::string> out;
  for (const auto& c : rule_set(set)) out.insert(c.name());
  return out;
}

bool is_pow2(int x) {
  return x > 0 && (x & (x - 1)) == 0;
}

std::string group(const GemmConfig& c) {
  return std::string(to_string(c.dtype)) + "/" + std::string(to_string(c.layout));
}

// The kernel backend's compiled micro-tiles and the brief's hard constraints, written out
// again in plain C++ so a mistake in the rule file cannot hide behind the engine.
std::string violation(const GemmConfig& c) {
  int mr = c.warp_tile_m, nr = c.warp_tile_n, ku = c.warp_tile_k;
  if (!std::set<int>{1, 4, 6, 8, 12, 14}.count(mr)) return "MR not compiled";
  if (!std::set<int>{16, 32, 48, 64}.count(nr)) return "NR not compiled";
  if (mr * nr / 16 + nr / 16 + 1 > 32) return "register budget";
  auto kus = c.dtype == DType::kFp32 ? std::set<int>{1, 2, 4} : std::set<int>{2, 4, 8};
  if (!kus.count(ku)) return "warp_tile_k for dtype";
  for (int w : {c.warp_m, c.warp_n})
    if (w != 1 && w != 2 && w != 4) return "warp_m/warp_n";
  if (c.warp_k != 1 && c.warp_k != 2) return "warp_k";
  if (!std::set<int>{1, 2, 4}.count(c.num_warps())) return "num_warps";
  if (c.tile_m % (c.warp_m * mr)) return "tile_m divisibility";
  if (c.tile_n % (c.warp_n * nr)) return "tile_n divisibility";
  if (c.tile_k % (c.warp_k * ku)) return "tile_k divisibility";
  if (c.tile_m > 256 || c.tile_n > 1024 || c.tile_k < 32 || c.tile_k > 512) return "tile range";
  int bytes = c.dtype == DType::kFp32 ? 4 : 2;
  // compv4 prefetches the next B micro-panel, so its panel may stream from L2 (up to 2x L1).
  int panel_limit = c.pipeline == Pipeline::kCompV4 ? 2 * 48 * 1024 : 48 * 1024 / 2;
  if (c.tile_k / c.warp_k * nr * bytes > panel_limit) return "B micro-panel over its L1 budget";
  if (c.pipeline == Pipeline::kCompV4 && c.tile_m * c.tile_k * bytes > 1024 * 1024 / 2)
    return "compv4 A block over half of L2";
  if (c.pipeline == Pipeline::kCompV3 && c.tile_k * c.tile_n * bytes > 1024 * 1024)
    return "compv3 B panel over L2";
  if (c.scheduler == Scheduler::kInterwave &&
      (c.pipeline == Pipeline::kCompV3 || c.tile_m / c.warp_m == mr || c.tile_n / c.warp_n == nr))
    return "interwave with compv3 or a single micro-tile along M or N";
  if (c.pad_m != c.pad_n || c.pad_n != c.pad_k) return "mixed pads";
  if (!c.pad_m && !(is_pow2(c.tile_m) && is_pow2(c.tile_n) && is_pow2(c.tile_k)))
    return "pad-free with a tile that is not a power of two";
  return "";
}

TEST(GemmRuleSets, KnownSetsAndUnknownSetError) {
  EXPECT_EQ(rule_set_names(), (std::vector<std::string>{"full", "profiler", "tests", "full-tests",
                                                        "tiny", "default"}));
  try {
    rule_set("fulll");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known: full, profiler, tests, full-tests, tiny, default"),
              std::string::npos)
        << e.what();
  }
}

TEST(GemmRuleSets, SubsetRelations) {
  auto full = names_of("full");
  auto full_tests = names_of("full-tests");
  auto includes = [](const std::set<std::string>& big, const std::set<std::string>& small) {
    return std::includes(big.begin(), big.end(), small.begin(), small.end());
  };
  for (const char* s : {"profiler", "tests", "full-tests", "default"})
    EXPECT_TRUE(includes(full, names_of(s))) << s;
  EXPECT_TRUE(includes(full_tests, names_of("tiny")));
}

TEST(GemmRuleSets, SizesPerDtypeAndLayout) {
  const std::map<std::string, std::pair<std::size_t, std::size_t>> bounds = {
      {"full", {1000, 16000}}, {"profiler", {150, 300}}, {"tests", {30, 80}}, {"default", {4, 8}}};
  for (const auto& [set, range] : bounds) {
    std::map<std::string, std::size_t> per_group;
    for (const auto& c : rule_set(set)) ++per_group[group(c)];
    EXPECT_EQ(per_group.size(), 8u) << set;
    for (const auto& [g, n] : per_group) {
      EXPECT_GE(n, range.first) << set << " " << g;
      EXPECT_LE(n, range.second) << set << " " << g;
    }
  }
  std::set<std::string> tiny_groups;
  for (const auto& c : rule_set("tiny")) tiny_groups.insert(group(c));
  EXPECT_LE(rule_set("tiny").size(), 16u);
  EXPECT_EQ(tiny_groups.size(), 8u);  // both dtypes, all four layouts
}

TEST(GemmRuleSets, NamesRoundTripAndAreUnique) {
  for (const auto& set : rule_set_names()) {
    std::set<std::string> seen;
    for (const auto& c : rule_set(set)) {
      std::string name = c.name();
      EXPECT_TRUE(seen.insert(name).second) << "duplicate " << name;
      auto back = GemmConfig::from_name(name);
      ASSERT_TRUE(back.has_value()) << name;
      EXPECT_EQ(*back, c) << name;
      EXPECT_EQ(back->name(), name);
    }
  }
}

TEST(GemmRuleSets, EveryFullConfigSatisfiesTheHardConstraints) {
  for (const auto& c : rule_set("full")) ASSERT_EQ(violation(c), "") << c.name();
}

TEST(GemmRuleSets, EveryFullConfigBuilds) {
  for (const auto& c : rule_set("full")) ASSERT_NO_THROW(GemmKernel{c}) << c.name();
}

TEST(GemmRuleSets, TinyKernelsComputeCorrectly) {
  const Operation& op = find_operation("gemm");
  for (const auto& c : rule_set("tiny")) {
    // Remainders in every dimension where the kernel pads, whole tiles where it does not.
    GemmProblem p;
    p.m = 2 * c.tile_m + (c.pad_m ? 3 : 0);
    p.n = c.tile_n + (c.pad_n ? 5 : 0);
    p.k = 2 * c.tile_k + (c.pad_k ? 7 : 0);
    p.dtype = c.dtype;
    p.layout = c.layout;
    auto workload = op.make_workload(p.to_string(), 1);
    auto kernel = op.bind(c.name(), *workload, 2);
    kernel->run();
    EXPECT_EQ(kernel->verify(), "") << c.name() << " on " << p.to_string();
  }
}

TEST(GemmRuleSets, PadFreeKernelsHaveAnAllPadsTwin) {
  auto full = names_of("full");
  for (const auto& c : rule_set("full")) {
    if (c.pad_m) continue;
    GemmConfig twin = c;
    twin.pad_m = twin.pad_n = twin.pad_k = true;
    EXPECT_TRUE(full.count(twin.name())) << c.name();
  }
}

TEST(GemmRuleSets, TestsSetCoversEveryMicroTileAndVariant) {
  // Per dtype/layout: every micro-tile of full, packed and in place; every (pipeline,
  // scheduler, epilogue); pads on and off; persistent; more than one thread.
  std::map<std::string, std::set<std::string>> wanted, got;
  auto features = [](const GemmConfig& c) {
    std::string mt = std::to_string(c.warp_tile_m) + "x" + std::to_string(c.warp_tile_n) + "x" +
                     std::to_string(c.warp_tile_k);
    return std::vector<std::string>{
        "micro " + mt + (c.pipeline == Pipeline::kMem ? " in place" : " packed"),
        "variant " + std::string(to_string(c.pipeline)) + " " +
            std::string(to_string(c.scheduler)) + " " + std::string(to_string(c.epilogue)),
        std::string("pads ") + (c.pad_m ? "on" : "off"),
        std::string("persistent ") + (c.persistent ? "yes" : "no"),
        std::string("threads ") + (c.num_warps() > 1 ? "many" : "one")};
  };
  for (const auto& c : rule_set("full"))
    for (const auto& f : features(c)) wanted[group(c)].insert(f);
  for (const auto& c : rule_set("tests"))
    for (const auto& f : features(c)) got[group(c)].insert(f);
  EXPECT_EQ(got, wanted);
  EXPECT_TRUE(wanted.begin()->second.count("threads many"));
  EXPECT_TRUE(wanted.begin()->second.count("persistent yes"));
}

TEST(GemmRuleSets, FullTestsHasEveryPipelineSchedulerPair) {
  std::set<std::string> wanted, got;
  for (const auto& c : rule_set("full"))
    wanted.insert(group(c) + std::string(to_string(c.pipeline)) +
                  std::string(to_string(c.scheduler)));
  for (const auto& c : rule_set("full-tests"))
    got.insert(group(c) + std::string(to_string(c.pipeline)) + std::string(to_string(c.scheduler)));
  EXPECT_EQ(got, wanted);
  EXPECT_EQ(wanted.size(), 8u * 5u);  // compv3 intrawave; compv4 and mem with both
  EXPECT_LT(rule_set("full-tests").size(), rule_set("full").size() / 3);
}

// Its speed is bench/bench_rules.cpp's to measure, not a test's.
TEST(GemmRuleSets, EngineIsDeterministicAndPassesItsOwnCheck) {
  rules::RuleSets a(rules::RuleFile::embedded("gemm_cpu"));
  ASSERT_EQ(a.space().size(), rule_set("full").size());
  for (std::size_t i = 0; i < a.space().size(); ++i)
    ASSERT_EQ(a.space().name(i), rule_set("full")[i].name());
  auto report = rules::check(a);
  EXPECT_TRUE(report.ok()) << report.to_text();
}

}  // namespace

}  // namespace kselect::gemm
