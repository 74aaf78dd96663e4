#include "model/folds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/error.h"

namespace kselect::model {
namespace {

TEST(GroupKFold, KeepsGroupsTogetherAndBalancesRows) {
  std::vector<std::string> groups;
  for (int g = 0; g < 23; ++g)
    for (int r = 0; r <= g % 5; ++r) groups.push_back("g" + std::to_string(g));
  auto folds = group_k_fold(groups, 5);
  std::map<std::string, int> fold_of;
  std::vector<int> sizes(5, 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    auto [it, fresh] = fold_of.emplace(groups[i], folds[i]);
    EXPECT_EQ(it->second, folds[i]) << groups[i] << " split across folds";
    ++sizes[folds[i]];
  }
  for (int s : sizes) EXPECT_NEAR(s, double(groups.size()) / 5, 3.0);
  EXPECT_EQ(folds, group_k_fold(groups, 5));  // deterministic
}

TEST(GroupKFold, FewerGroupsThanFoldsIsAnInputError) {
  std::vector<std::string> groups = {"a", "a", "b", "c", "d"};
  try {
    group_k_fold(groups, 5);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only 4 distinct"), std::string::npos);
  }
}

TEST(Metrics, PickEfficiency) {
  // Problem a: the model picks the 8 (best is 10); problem b: it picks the best.
  std::vector<std::string> problems = {"a", "a", "a", "b", "b"};
  std::vector<double> score = {0.1, 0.9, 0.5, 3, 1};
  std::vector<double> measured = {10, 8, 9, 4, 2};
  auto eff = pick_efficiencies(problems, score, measured, true);
  ASSERT_EQ(eff.size(), 2u);
  EXPECT_DOUBLE_EQ(eff[0], 0.8);
  EXPECT_DOUBLE_EQ(eff[1], 1.0);
  // Latency: lower is better; the model picks 4 ms where 2 ms was possible.
  auto lat = pick_efficiencies({"p", "p"}, {1, 0}, {4, 2}, false);
  EXPECT_DOUBLE_EQ(lat[0], 0.5);
}

}  // namespace
}  // namespace kselect::model
