#include "bench/shard.h"

#include <gtest/gtest.h>

#include <map>

#include "core/error.h"

namespace kselect::bench {
namespace {

TEST(Shard, ParsesAndRejects) {
  Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.to_string(), "2/5");
  for (const char* bad : {"5/5", "-1/3", "1", "a/b", "1/0", "1/2/3", ""})
    EXPECT_THROW(parse_shard(bad), InputError) << bad;
}

TEST(Shard, HashIsFnv1a) {
  EXPECT_EQ(stable_hash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cull);
}

TEST(Shard, EveryProblemInExactlyOneShard) {
  std::vector<std::string> problems;
  for (int m = 1; m <= 300; ++m) problems.push_back("m=" + std::to_string(m) + ",n=64,k=64");
  for (int count : {1, 2, 3, 7}) {
    std::map<std::string, int> owners;
    std::vector<int> sizes(size_t(count), 0);
    for (int i = 0; i < count; ++i)
      for (const auto& p : problems)
        if (Shard{i, count}.contains(p)) owners[p] += 1, sizes[size_t(i)] += 1;
    ASSERT_EQ(owners.size(), problems.size()) << count;
    for (const auto& [p, n] : owners) EXPECT_EQ(n, 1) << p;
    // The hash spreads the work: no shard is empty or holds most of it.
    for (int size : sizes) EXPECT_GT(size, int(problems.size()) / count / 2) << count;
  }
}

}  // namespace
}  // namespace kselect::bench
