#include "ops/kernel_sets.h"

#include <gtest/gtest.h>

#include <map>

#include "core/error.h"

namespace kselect {
namespace {

struct ToyConfig {
  std::string name_, kind;
  int size = 0;
  std::string name() const { return name_; }
};
void to_json(nlohmann::json& j, const ToyConfig& c) {
  j = {{"kind", c.kind}, {"size", c.size}};
}

TEST(KernelSets, UnionOfSetsKeepsOrderWithoutRepeats) {
  const std::map<std::string, std::vector<std::string>, std::less<>> sets = {
      {"a", {"x", "y"}}, {"b", {"y", "z"}}, {"c", {"w", "x"}}};
  auto one = [&](std::string_view set) { return sets.find(set)->second; };
  EXPECT_EQ(union_of_sets("a", one), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(union_of_sets("a+b+c", one), (std::vector<std::string>{"x", "y", "z", "w"}));
  EXPECT_EQ(union_of_sets("c+a", one), (std::vector<std::string>{"w", "x", "y"}));
}

TEST(KernelSets, MatchingNamesFiltersOnFieldTextAndNamesUnknownKeys) {
  const std::vector<ToyConfig> configs = {{"k1", "Fast", 8}, {"k2", "slow", 8}, {"k3", "fast", 4}};
  EXPECT_EQ(matching_names(configs, KeyValues::parse("kind=fast"), "toy"),
            (std::vector<std::string>{"k1", "k3"}));
  EXPECT_EQ(matching_names(configs, KeyValues::parse("kind=fast,size=8"), "toy"),
            (std::vector<std::string>{"k1"}));
  EXPECT_EQ(matching_names(configs, KeyValues(), "toy").size(), 3u);
  try {
    matching_names(configs, KeyValues::parse("colour=red"), "toy");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown toy kernel field"), std::string::npos);
  }
}

TEST(KernelSets, OrderByCostIsStable) {
  std::map<std::string, double> cost = {{"a", 2}, {"b", 1}, {"c", 2}, {"d", 0.5}};
  EXPECT_EQ(order_by_cost({"a", "b", "c", "d"}, [&](const std::string& k) { return cost[k]; }),
            (std::vector<std::string>{"d", "b", "a", "c"}));
}

TEST(KernelSets, OperandValuesAreSmallIntegersThatVary) {
  std::map<float, int> seen;
  for (std::uint64_t i = 0; i < 1000; ++i) ++seen[operand_value(7, i)];
  EXPECT_EQ(seen.size(), 5u);
  for (const auto& [value, count] : seen) {
    EXPECT_GE(value, -2.0f);
    EXPECT_LE(value, 2.0f);
    EXPECT_EQ(value, float(int(value)));
    EXPECT_GT(count, 100);
  }
  std::vector<float> seven, eight;  // another seed, other values
  for (std::uint64_t i = 0; i < 20; ++i)
    seven.push_back(operand_value(7, i)), eight.push_back(operand_value(8, i));
  EXPECT_NE(seven, eight);
}

}  // namespace
}  // namespace kselect
