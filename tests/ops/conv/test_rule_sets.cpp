// The conv rule sets from rules/conv_cpu.json: relations, sizes, names that never alias, and
// every configuration of `full` buildable.
#include "ops/conv/rule_sets.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "ops/conv/ck_names.h"
#include "ops/conv/kernel.h"
#include "rules/check.h"

namespace kselect::conv {
namespace {

std::set<std::string> names_of(const std::string& set) {
  std::set<std::string> out;
  for (const auto& c : rule_set(set)) out.insert(c.name());
  return out;
}

std::string group(const ConvConfig& c) {
  return std::string(ck_direction(c.dir)) + "/" + c.dtype + "/" + std::to_string(c.ndim) + "d";
}

TEST(ConvRuleSets, KnownSetsAndUnknownSetError) {
  EXPECT_EQ(rule_set_names(), (std::vector<std::string>{"full", "profiler", "tests", "full-tests",
                                                        "tiny", "default"}));
  EXPECT_THROW(rule_set("fulll"), InputError);
}

TEST(ConvRuleSets, SubsetRelations) {
  auto full = names_of("full");
  auto includes = [](const std::set<std::string>& big, const std::set<std::string>& small) {
    return std::includes(big.begin(), big.end(), small.begin(), small.end());
  };
  for (const char* s : {"profiler", "tests", "full-tests", "default", "tiny"})
    EXPECT_TRUE(includes(full, names_of(s))) << s;
  EXPECT_TRUE(includes(names_of("full-tests"), names_of("tiny")));
}

TEST(ConvRuleSets, EverySetCoversEveryDirectionDtypeAndDimension) {
  for (const auto& set : rule_set_names()) {
    std::set<std::string> groups;
    for (const auto& c : rule_set(set)) groups.insert(group(c));
    EXPECT_EQ(groups.size(), 12u) << set;  // 3 directions x 2 dtypes x 2 dimensions
  }
}

// The test that would have caught CK's aliasing bug: every configuration of `full` has its own
// name and its own fields, and reads back from its name.
TEST(ConvRuleSets, FullNamesNeverAliasAndRoundTrip) {
  std::set<std::string> names, field_rows;
  for (const auto& c : rule_set("full")) {
    const std::string name = c.name();
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    nlohmann::json fields = c;
    EXPECT_TRUE(field_rows.insert(fields.dump()).second) << "duplicate fields " << name;
    auto back = ConvConfig::from_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    ASSERT_EQ(*back, c) << name;
    const CkKernelName parsed = parse_ck_kernel_name(name);
    ASSERT_EQ(format_ck_kernel_name(parsed), name);
  }
}

TEST(ConvRuleSets, EveryFullConfigBuilds) {
  for (const auto& c : rule_set("full")) ASSERT_NO_THROW(ConvKernel{c}) << c.name();
}

TEST(ConvRuleSets, TestsSetCoversEveryVariantOfFull) {
  // Per direction/dtype/ndim: every micro-tile, (pipeline, scheduler, epilogue), thread split,
  // specialisation per pipeline, copy widths and two-stage.
  std::map<std::string, std::set<std::string>> wanted, got;
  auto features = [](const ConvConfig& c) {
    return std::vector<std::string>{
        "micro " + std::to_string(c.warp_tile_m) + "x" + std::to_string(c.warp_tile_n) + "x" +
            std::to_string(c.warp_tile_k),
        "variant " + std::string(to_string(c.pipeline)) + " " +
            std::string(to_string(c.scheduler)) + " " + std::string(to_string(c.epilogue)),
        "warps " + std::to_string(c.warp_m) + std::to_string(c.warp_n) + std::to_string(c.warp_k),
        "spec " + std::string(to_string(c.specialization)) + " " +
            std::string(to_string(c.pipeline)) + (c.two_stage ? " 2stage" : ""),
        "vec " + std::to_string(c.vec_a) + std::to_string(c.vec_b) + std::to_string(c.vec_c)};
  };
  for (const auto& c : rule_set("full"))
    for (const auto& f : features(c)) wanted[group(c)].insert(f);
  for (const auto& c : rule_set("tests"))
    for (const auto& f : features(c)) got[group(c)].insert(f);
  EXPECT_EQ(got, wanted);
  EXPECT_TRUE(wanted["bwd_weight/fp32/2d"].count("spec filter3x3 compv4 2stage"));
}

TEST(ConvRuleSets, EngineIsDeterministicAndPassesItsOwnCheck) {
  rules::RuleSets a(rules::RuleFile::embedded("conv_cpu"));
  ASSERT_EQ(a.space().size(), rule_set("full").size());
  for (std::size_t i = 0; i < a.space().size(); ++i)
    ASSERT_EQ(a.space().name(i), rule_set("full")[i].name());
  auto report = rules::check(a);
  EXPECT_TRUE(report.ok()) << report.to_text();
}

}  // namespace
}  // namespace kselect::conv
