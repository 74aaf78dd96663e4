#pragma once
// The random numbers of every search strategy: a seeded std::mt19937_64 (its output sequence
// is fixed by the C++ standard) read through distributions written here, because the standard
// library's distributions differ between implementations and a seed must give the same search
// everywhere.
#include <cstddef>
#include <cstdint>
#include <random>

namespace kselect::search {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n), n > 0 (rejection sampling: no modulo bias).
  std::size_t index(std::size_t n);
  // Uniform in [0, 1) with 53 random bits.
  double unit();
  bool chance(double probability) { return unit() < probability; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace kselect::search
