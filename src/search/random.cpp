#include "search/random.h"

#include <limits>

namespace kselect::search {

std::size_t Random::index(std::size_t n) {
  const std::uint64_t range = n;
  // The largest multiple of n that fits: draws at or above it would favour small indices.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = engine_();
  while (draw >= limit) draw = engine_();
  return std::size_t(draw % range);
}

double Random::unit() {
  return double(engine_() >> 11) * 0x1.0p-53;
}

}  // namespace kselect::search
