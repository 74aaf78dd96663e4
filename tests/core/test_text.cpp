// core/text.h join(): plain and formatted items, separators only between items.
#include <gtest/gtest.h>

#include <map>

#include "core/text.h"

namespace kselect {
namespace {

TEST(Join, PutsTheSeparatorBetweenItemsOnly) {
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(join({"a"}), "a");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"a", "b"}, ","), "a,b");
}

TEST(Join, FormatsEachItemFirst) {
  const std::map<std::string, int> counts = {{"bf16", 2}, {"fp32", 40}};
  EXPECT_EQ(
      join(counts, [](const auto& c) { return c.first + " (" + std::to_string(c.second) + ")"; }),
      "bf16 (2), fp32 (40)");
  const int sizes[] = {16, 32};
  EXPECT_EQ(join(
                sizes, [](int s) { return std::to_string(s); }, "x"),
            "16x32");
  EXPECT_EQ(join(std::vector<int>{}, [](int s) { return std::to_string(s); }), "");
  // An empty formatted item still gets its separators, so positions stay visible.
  EXPECT_EQ(join(std::vector<std::string>{"a", "", "b"},
                 [](const std::string& s) { return "'" + s + "'"; }),
            "'a', '', 'b'");
}

}  // namespace
}  // namespace kselect
