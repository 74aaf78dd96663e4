#pragma once
// Splitting a sweep across processes or machines: shard i of N takes the problems whose
// stable hash is i modulo N, so shards never overlap and do not depend on file order.
#include <cstdint>
#include <string>
#include <string_view>

namespace kselect::bench {

struct Shard {
  int index = 0, count = 1;  // 0 <= index < count
  bool contains(std::string_view problem) const;
  std::string to_string() const;  // "i/N"
};

// Parses "i/N" (0 <= i < N); throws InputError naming field "shard".
Shard parse_shard(std::string_view text);

// 64-bit FNV-1a of the text: stable across builds, platforms and runs.
std::uint64_t stable_hash(std::string_view text);

}  // namespace kselect::bench
