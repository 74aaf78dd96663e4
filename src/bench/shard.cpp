#include "bench/shard.h"

#include "core/error.h"
#include "core/key_values.h"

namespace kselect::bench {

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

bool Shard::contains(std::string_view problem) const {
  return stable_hash(problem) % std::uint64_t(count) == std::uint64_t(index);
}

std::string Shard::to_string() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

Shard parse_shard(std::string_view text) {
  size_t slash = text.find('/');
  auto index = slash == std::string_view::npos ? std::nullopt : parse_int(text.substr(0, slash));
  auto count = slash == std::string_view::npos ? std::nullopt : parse_int(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index < 0 || *index >= *count || *count > 1000000)
    throw InputError("", 0, "shard",
                     "expected i/N with 0 <= i < N, got '" + std::string(text) + "'");
  return Shard{int(*index), int(*count)};
}

}  // namespace kselect::bench
