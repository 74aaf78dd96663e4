#include "search/domain.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"
#include "rules/sets.h"

namespace kselect::search {
namespace {

// Two numeric axes and a string axis; the constraint removes the corner x + y > 5.
const char* kRules = R"({
  "version": 1, "op": "toy", "name": "t_{x}_{y}_{z}",
  "axes": {"x": [1, 2, 3, 4], "y": [1, 2, 4], "z": ["a", "b"]},
  "constraints": [{"name": "small", "expr": "x + y <= 5", "why": "toy limit"}],
  "sets": {"full": {}}
})";

TEST(Domain, OfSpaceHoldsEveryValidConfigurationWithItsGenome) {
  rules::RuleSets sets(rules::RuleFile::parse(kRules, "toy.json"));
  const auto& all = sets.get("full");
  const Domain domain = domain_of_space(sets.space(), all);
  ASSERT_EQ(domain.size(), all.size());
  ASSERT_EQ(domain.genes().size(), 3u);
  EXPECT_TRUE(domain.genes()[0].ordered);
  EXPECT_FALSE(domain.genes()[2].ordered);
  for (std::size_t c = 0; c < domain.size(); ++c) {
    EXPECT_EQ(domain.name(c), sets.space().name(all[c]));
    EXPECT_EQ(domain.find(domain.genome(c)), c);
  }
  // x=4 (index 3), y=4 (index 2) breaks the constraint: not a configuration.
  EXPECT_FALSE(domain.find(Genome{3, 2, 0}).has_value());
}

TEST(Domain, NearestRepairsToTheClosestValidConfiguration) {
  rules::RuleSets sets(rules::RuleFile::parse(kRules, "toy.json"));
  const Domain domain = domain_of_space(sets.space(), sets.get("full"));
  const Genome invalid{3, 2, 1};  // x=4, y=4, z=b
  const std::size_t repaired = domain.nearest(invalid);
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < domain.size(); ++c)
    least = std::min(least, domain.distance(invalid, domain.genome(c)));
  EXPECT_DOUBLE_EQ(domain.distance(invalid, domain.genome(repaired)), least);
  // x=3,y=2 (a third of x's span plus half of y's) is closer than x=4,y=1 (all of y's) or
  // x=1,y=4 (all of x's); z is kept.
  EXPECT_EQ(domain.genome(repaired), (Genome{2, 1, 1}));
  EXPECT_GT(least, 0);
  EXPECT_EQ(domain.nearest(domain.genome(5)), 5u);
}

TEST(Domain, DistanceWeighsOrderedStepsAndUnorderedMismatches) {
  rules::RuleSets sets(rules::RuleFile::parse(kRules, "toy.json"));
  const Domain domain = domain_of_space(sets.space(), sets.get("full"));
  EXPECT_DOUBLE_EQ(domain.distance({0, 0, 0}, {3, 0, 0}), 1.0);        // x across its span
  EXPECT_DOUBLE_EQ(domain.distance({0, 0, 0}, {1, 0, 0}), 1.0 / 3.0);  // one step of four
  EXPECT_DOUBLE_EQ(domain.distance({0, 0, 0}, {0, 0, 1}), 1.0);        // z differs
  EXPECT_DOUBLE_EQ(domain.distance({0, 0, 0}, {0, 1, 1}), 1.5);
}

TEST(Domain, OfConfigsSortsEachParametersValues) {
  std::map<std::string, nlohmann::json> configs = {{"k1", {{"bx", 32}, {"ro", "on"}}},
                                                   {"k2", {{"bx", 8}, {"ro", "off"}}},
                                                   {"k3", {{"bx", 16}, {"ro", "on"}}}};
  const Domain domain = domain_of_configs(configs);
  ASSERT_EQ(domain.genes().size(), 2u);
  EXPECT_EQ(domain.genes()[0].name, "bx");
  EXPECT_EQ(domain.genes()[0].values, (std::vector<std::string>{"8", "16", "32"}));
  EXPECT_TRUE(domain.genes()[0].ordered);
  EXPECT_FALSE(domain.genes()[1].ordered);
  EXPECT_EQ(domain.name(*domain.find(Genome{1, 1})), "k3");
  // bx=8 with ro=on is not a configuration: the nearest is bx=16, ro=on (one step).
  EXPECT_EQ(domain.name(domain.nearest(Genome{0, 1})), "k3");
}

TEST(Domain, OfConfigsRefusesMissingAndNestedParameters) {
  EXPECT_THROW(domain_of_configs({{"k1", {{"bx", 32}}}, {"k2", {{"by", 8}}}}), InputError);
  EXPECT_THROW(domain_of_configs({{"k1", {{"bx", {1, 2}}}}}), InputError);
  EXPECT_THROW(domain_of_configs({{"k1", nlohmann::json::object()}}), InputError);
}

}  // namespace
}  // namespace kselect::search
