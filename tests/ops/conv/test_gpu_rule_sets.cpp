// CK's GPU grouped-conv rule files (rules/conv_gfx942.json, rules/conv_gfx950.json): kernels
// kselect lists and checks but cannot run. Set relations and sizes, CK's known counts, the
// pipeline variants, vector strategies, LDS budgets, wave shapes per arch, and names that
// round-trip through CK's grouped-conv name codec (ck_names.h) without aliasing.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ops/conv/ck_names.h"
#include "ops/conv/rule_sets.h"
#include "ops/operation.h"
#include "rules/check.h"
#include "rules/embedded.h"

namespace kselect::conv {
namespace {

using nlohmann::json;

const rules::RuleSets& sets_of(const std::string& arch) {
  static const rules::RuleSets gfx942(rules::RuleFile::embedded("conv_gfx942"));
  static const rules::RuleSets gfx950(rules::RuleFile::embedded("conv_gfx950"));
  return arch == "gfx942" ? gfx942 : gfx950;
}

const std::vector<std::string> kArchs = {"gfx942", "gfx950"};

// Every configuration of `set`, as its fields (axis -> value, plus "name").
std::vector<json> configs(const rules::RuleSets& sets, const std::string& set) {
  std::vector<json> out;
  for (std::size_t c : sets.get(set)) out.push_back(sets.space().fields(c));
  return out;
}

std::set<std::string> names(const rules::RuleSets& sets, const std::string& set) {
  std::set<std::string> out;
  for (std::size_t c : sets.get(set)) out.insert(sets.space().name(c));
  return out;
}

std::string str(const json& c, const char* key) {
  return c.at(key).get<std::string>();
}
int num(const json& c, const char* key) {
  return c.at(key).get<int>();
}

std::string group(const json& c) {
  return c["direction"].get<std::string>() + "/" + c["dtype"].get<std::string>() + "/" +
         std::to_string(c["ndim"].get<int>());
}

TEST(ConvGpuRules, TargetsAndTheCpuOpsOwnFile) {
  for (const auto& arch : kArchs) {
    EXPECT_EQ(sets_of(arch).rules().op(), "conv");
    EXPECT_EQ(sets_of(arch).rules().target(), arch);
  }
  // The conv op builds and runs the CPU kernels: its rule sets stay conv_cpu.json's.
  const rules::RuleSets* own = find_operation("conv").rule_sets();
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->rules().source(), "rules/conv_cpu.json");
  EXPECT_TRUE(own->rules().native());
  // The op's check of another target's file: every name is a CK grouped-conv name.
  for (const auto& arch : kArchs)
    EXPECT_EQ(find_operation("conv").check_target_rules(sets_of(arch)), std::vector<std::string>{});
  EXPECT_FALSE(find_operation("gemm").check_target_rules(sets_of("gfx950")).empty());
}

TEST(ConvGpuRules, CheckPassesAndSetsKeepCksRelations) {
  for (const auto& arch : kArchs) {
    const auto& sets = sets_of(arch);
    rules::CheckReport report = rules::check(sets);
    EXPECT_TRUE(report.ok()) << arch << ": " << report.to_text();
    EXPECT_EQ(sets.names(), (std::vector<std::string>{"full", "profiler", "tests", "full-tests",
                                                      "tiny", "default", "pipeline-variants"}));
    const auto full = names(sets, "full");
    auto within = [](const std::set<std::string>& big, const std::set<std::string>& small) {
      return std::includes(big.begin(), big.end(), small.begin(), small.end());
    };
    for (const char* set : {"profiler", "tests", "full-tests", "default", "pipeline-variants"})
      EXPECT_TRUE(within(full, names(sets, set))) << arch << " " << set;
    EXPECT_TRUE(within(names(sets, "full-tests"), names(sets, "tiny"))) << arch;
    // CK's profiler set was its old list, about a quarter of full.
    const double profiler_share = double(sets.get("profiler").size()) / double(full.size());
    EXPECT_GT(profiler_share, 0.2) << arch;
    EXPECT_LT(profiler_share, 0.35) << arch;
  }
}

// full-tests: every 5th per (direction, dtype, category), and every (pipeline, scheduler) pair
// of full present per direction and dtype; tiny: the first of full-tests of each (category,
// ndim), at least 10 per direction and dtype.
TEST(ConvGpuRules, FullTestsAndTinyFollowCksDefinitions) {
  for (const auto& arch : kArchs) {
    const auto& sets = sets_of(arch);
    using Pair = std::tuple<std::string, std::string, std::string, std::string>;
    std::set<Pair> in_full, in_tests;
    for (const auto& c : configs(sets, "full"))
      in_full.emplace(str(c, "direction"), str(c, "dtype"), str(c, "pipeline"),
                      str(c, "scheduler"));
    for (const auto& c : configs(sets, "full-tests"))
      in_tests.emplace(str(c, "direction"), str(c, "dtype"), str(c, "pipeline"),
                       str(c, "scheduler"));
    EXPECT_EQ(in_full, in_tests) << arch;

    std::map<std::string, std::size_t> tiny_per_pair;
    std::set<std::string> firsts;
    for (const auto& c : configs(sets, "tiny")) {
      ++tiny_per_pair[c["direction"].get<std::string>() + "/" + c["dtype"].get<std::string>()];
      firsts.insert(c["name"].get<std::string>());
    }
    EXPECT_EQ(tiny_per_pair.size(), 9u) << arch;
    for (const auto& [pair, n] : tiny_per_pair) EXPECT_GE(n, 10u) << arch << " " << pair;
    std::set<std::string> seen_category, expected;
    for (std::size_t c : sets.get("full-tests")) {
      std::vector<rules::Value> slots(sets.rules().scope().size());
      sets.space().bind(c, slots);
      const json f = sets.space().fields(c);
      const std::string key =
          group(f) + "/" + slots[*sets.rules().scope().find("category")].to_string();
      if (seen_category.insert(key).second) expected.insert(f["name"].get<std::string>());
    }
    EXPECT_EQ(firsts, expected) << arch;
  }
}

// Tiles per (direction, dtype, ndim), next to CK's counts for its full set (fwd 38/34/27,
// bwd_data 16/16/14, bwd_weight 29/26/16 for fp16/bf16 2-D, 3-D and fp32): ours match except
// bwd_data and bwd_weight fp32 (the facts give CK's counts, not its lists).
TEST(ConvGpuRules, TileCountsPerDirection) {
  const std::map<std::string, std::size_t> ours = {
      {"fwd/fp16/2", 38},        {"fwd/fp16/3", 34},        {"fwd/fp32/2", 27},
      {"fwd/fp32/3", 27},        {"bwd_data/fp16/2", 16},   {"bwd_data/fp16/3", 16},
      {"bwd_data/fp32/2", 14},   {"bwd_data/fp32/3", 14},   {"bwd_weight/fp16/2", 29},
      {"bwd_weight/fp16/3", 26}, {"bwd_weight/fp32/2", 15}, {"bwd_weight/fp32/3", 15}};
  for (const auto& arch : kArchs) {
    std::map<std::string, std::set<std::tuple<int, int, int>>> tiles;
    for (const auto& c : configs(sets_of(arch), "full"))
      tiles[group(c)].emplace(num(c, "tile_m"), num(c, "tile_n"), num(c, "tile_k"));
    for (const auto& [g, n] : ours) {
      EXPECT_EQ(tiles[g].size(), n) << arch << " " << g;
      std::string bf16 = g;
      bf16.replace(bf16.find("fp"), 4, "bf16");
      if (g.find("fp16") != std::string::npos) EXPECT_EQ(tiles[bf16], tiles[g]) << arch << " " << g;
    }
  }
}

// The no-model set: 76 per ndim for forward fp16/bf16 2-D (CK's gfx950 count).
TEST(ConvGpuRules, DefaultSetSizes) {
  std::map<std::string, std::size_t> per_group;
  for (const auto& c : configs(sets_of("gfx950"), "default")) ++per_group[group(c)];
  EXPECT_EQ(per_group["fwd/fp16/2"], 76u);
  EXPECT_EQ(per_group["fwd/bf16/2"], 76u);
  EXPECT_EQ(per_group["fwd/fp16/3"], 68u);
}

// gfx950's pipeline variants (pipeline, scheduler, dsb, si): exactly 30 forward; the
// backward directions lose compv5's 4.
TEST(ConvGpuRules, PipelineVariantsOnGfx950) {
  std::map<std::string, std::set<std::string>> variants;
  for (const auto& c : configs(sets_of("gfx950"), "full")) {
    const std::string v = c["pipeline"].get<std::string>() + "/" +
                          c["scheduler"].get<std::string>() + c["dsb"].get<std::string>() +
                          c["si"].get<std::string>();
    variants[group(c)].insert(v);
    if (c["scheduler"] == "interwave")
      EXPECT_TRUE(c["pipeline"] == "basic_v1" || c["pipeline"] == "mem") << c["name"];
    if (c["pipeline"] == "compv4") EXPECT_EQ(c["dsb"], "_dsb") << c["name"];
    if (c["direction"] != "fwd") EXPECT_NE(c["pipeline"], "compv5") << c["name"];
    if (c["two_stage"] != "" || c["streamk"] != "") EXPECT_EQ(c["direction"], "bwd_weight");
  }
  ASSERT_EQ(variants.size(), 18u);
  for (const auto& [g, v] : variants) EXPECT_EQ(v.size(), g.rfind("fwd", 0) == 0 ? 30u : 26u) << g;
  std::map<std::string, std::size_t> per_group;
  for (const auto& c : configs(sets_of("gfx950"), "pipeline-variants")) ++per_group[group(c)];
  EXPECT_EQ(per_group["fwd/fp16/2"], 30u);
  EXPECT_EQ(per_group["bwd_weight/fp32/3"], 26u);
}

// Vector strategies: m = 8 for fp16/bf16, 4 for fp32, h = m/2; every triple is one of the six
// strategies the facts define, and the widest is used where the tile allows it.
TEST(ConvGpuRules, VectorStrategiesPerDtype) {
  for (const auto& arch : kArchs) {
    std::map<std::string, std::set<std::tuple<int, int, int>>> triples;
    for (const auto& c : configs(sets_of(arch), "full"))
      triples[str(c, "dtype")].emplace(num(c, "vec_a"), num(c, "vec_b"), num(c, "vec_c"));
    for (const auto& [dtype, seen] : triples) {
      const int m = dtype == "fp32" ? 4 : 8, h = m / 2;
      const std::set<std::tuple<int, int, int>> strategies = {{1, 1, 1}, {m, m, m}, {m, m, h},
                                                              {m, 1, 1}, {1, m, m}, {h, h, h}};
      EXPECT_EQ(seen, strategies) << arch << " " << dtype;
    }
  }
}

// explain's problems for `name` in `arch`'s rules: the names of the failed constraints.
std::set<std::string> failed(const std::string& arch, const std::string& name) {
  std::set<std::string> out;
  for (const auto& p : rules::explain(sets_of(arch), name).problems) {
    const auto begin = p.find(' ') + 1;
    out.insert(p.substr(begin, p.find(' ', begin) - begin));
  }
  return out;
}

// A 256x256x128 fp16 tile (128 KiB of A and B) is over gfx942's 64 KiB, and over gfx950's half
// budget (80 KiB) for compv4, within its full 160 KiB for compv3.
TEST(ConvGpuRules, LdsBudgetRejectsOverBudgetTilesWithItsWhy) {
  const std::string head = "grouped_conv_fwd_fp16_nhwgc_2d_";
  const std::string tile = "_cshuffle_intrawave_256x256x128_2x2x1_32x32x16_vec8_8_8";
  auto explained = rules::explain(sets_of("gfx942"), head + "compv3" + tile);
  ASSERT_FALSE(explained.problems.empty());
  bool lds_why = false;
  for (const auto& p : explained.problems)
    lds_why |= p.find("lds_budget") != std::string::npos &&
               p.find("64 KiB on gfx942") != std::string::npos;
  EXPECT_TRUE(lds_why) << explained.problems.front();
  EXPECT_TRUE(failed("gfx942", head + "compv3" + tile).count("lds_budget"));
  EXPECT_FALSE(failed("gfx950", head + "compv3" + tile).count("lds_budget"));
  EXPECT_TRUE(failed("gfx950", head + "compv4" + tile + "_dsb").count("lds_budget"));
  // 128x128x64 fp16 (32 KiB) fits gfx942's half budget for compv4: a valid kernel.
  EXPECT_EQ(
      failed("gfx942", head + "compv4_cshuffle_intrawave_128x128x64_2x2x1_32x32x16_vec8_8_8_dsb"),
      std::set<std::string>{});
}

// Wave shapes: gfx942 supports 1x1x1, 1x2x1, 1x4x1, 2x1x1, 2x1x2, 2x2x1, 4x1x1; gfx950 also
// 8x2x1 and 4x4x1 (no wave strategy picks those). Each tile has one strategy.
TEST(ConvGpuRules, WaveShapesPerArch) {
  const std::string four_by_four =
      "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_4x4x1_32x32x16_vec8_8_8";
  EXPECT_TRUE(failed("gfx942", four_by_four).count("waves_supported_by_arch"));
  EXPECT_FALSE(failed("gfx950", four_by_four).count("waves_supported_by_arch"));
  EXPECT_TRUE(failed("gfx950", four_by_four).count("waves_of_tile"));
  const std::set<std::string> gfx942_shapes = {"1x1x1", "1x2x1", "1x4x1", "2x1x1",
                                               "2x1x2", "2x2x1", "4x1x1"};
  for (const auto& arch : kArchs) {
    std::set<std::string> shapes;
    std::map<std::tuple<std::string, std::string, int, int, int>, std::string> strategy_of_tile;
    for (const auto& c : configs(sets_of(arch), "full")) {
      const std::string waves = std::to_string(c["warp_m"].get<int>()) + "x" +
                                std::to_string(c["warp_n"].get<int>()) + "x" +
                                std::to_string(c["warp_k"].get<int>());
      shapes.insert(waves);
      auto [it, added] = strategy_of_tile.emplace(
          std::tuple{c["direction"].get<std::string>(), c["dtype"].get<std::string>(),
                     c["tile_m"].get<int>(), c["tile_n"].get<int>(), c["tile_k"].get<int>()},
          waves);
      EXPECT_EQ(it->second, waves) << c["name"];
      // The warp tile: 32x32 when the wave's tile is a multiple of 32 in M and N, else 16x16.
      const int wave_m = c["tile_m"].get<int>() / c["warp_m"].get<int>();
      const int wave_n = c["tile_n"].get<int>() / c["warp_n"].get<int>();
      EXPECT_EQ(c["warp_tile_m"], wave_m % 32 == 0 && wave_n % 32 == 0 ? 32 : 16) << c["name"];
      EXPECT_LE(c["warp_tile_k"].get<int>(), c["tile_k"].get<int>()) << c["name"];
    }
    EXPECT_EQ(shapes, gfx942_shapes) << arch;  // all seven strategies, none beyond
  }
}

// Every name of full parses with CK's grouped-conv codec back to its fields, formats back to
// itself, and no two configurations share a name or a parsed configuration.
TEST(ConvGpuRules, NamesRoundTripThroughCksCodecAndNeverAlias) {
  for (const auto& arch : kArchs) {
    std::set<std::string> seen_names, seen_parsed;
    for (const auto& c : configs(sets_of(arch), "full")) {
      const std::string name = c["name"];
      CkKernelName parsed = parse_ck_kernel_name(name);
      ASSERT_TRUE(parsed.dir) << name;
      ASSERT_FALSE(parsed.config.empty()) << name;
      EXPECT_EQ(format_ck_kernel_name(parsed), name);
      EXPECT_EQ(ck_direction(*parsed.dir), c["direction"].get<std::string>()) << name;
      EXPECT_EQ(parsed.dtype, c["dtype"]) << name;
      for (const char* key : {"layout", "ndim", "pipeline", "epilogue", "scheduler", "tile_m",
                              "tile_n", "tile_k", "warp_m", "warp_n", "warp_k", "warp_tile_m",
                              "warp_tile_n", "warp_tile_k", "vec_a", "vec_b", "vec_c"})
        EXPECT_EQ(parsed.config[key], c[key]) << name << " " << key;
      EXPECT_EQ(parsed.config["dsb"], c["dsb"] == "_dsb" ? 1 : 0) << name;
      EXPECT_EQ(parsed.config.value("si", 0), c["si"] == "_si" ? 1 : 0) << name;
      EXPECT_EQ(parsed.config["two_stage"], c["two_stage"] == "_2stage" ? 1 : 0) << name;
      const std::string spec = c["specialization"];
      EXPECT_EQ(parsed.config["specialization"], spec.empty() ? "default" : spec.substr(1));
      const std::string streamk = c["streamk"];
      EXPECT_EQ(parsed.config["streamk"], streamk.empty() ? "none" : streamk.substr(9));
      EXPECT_TRUE(seen_names.insert(name).second) << name;
      EXPECT_TRUE(
          seen_parsed
              .insert(std::string(ck_direction(*parsed.dir)) + parsed.dtype + parsed.config.dump())
              .second)
          << name;
    }
    EXPECT_EQ(seen_names.size(), sets_of(arch).space().size());
  }
}

// The check catches a rule file whose names are not CK's: here dsb spelled "_db".
TEST(ConvGpuRules, CheckOfCkNamesCatchesForeignNames) {
  auto doc = nlohmann::ordered_json::parse(rules::embedded_rule_files().at("conv_gfx950"));
  doc["axes"]["dsb"] = {"", "_db"};
  rules::RuleSets sets(rules::RuleFile::parse(doc.dump(), "bad.json"));
  auto problems = check_ck_names(sets);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("_db"), std::string::npos) << problems.front();
  EXPECT_LE(problems.size(), 20u);
}

}  // namespace
}  // namespace kselect::conv
