#pragma once
// FNV-1a, 64 bits: a stable content hash for fingerprints that are written to files (a
// decision cache's model and catalogue keys), unlike std::hash, which may differ between
// builds.
#include <cstdint>
#include <string>
#include <string_view>

namespace kselect {

class Fnv1a {
 public:
  Fnv1a& add(std::string_view bytes) {
    for (unsigned char c : bytes) state_ = (state_ ^ c) * 0x100000001b3ULL;
    return *this;
  }
  // Adds `bytes` and a separator, so ("ab","c") and ("a","bc") differ.
  Fnv1a& field(std::string_view bytes) { return add(bytes).add(std::string_view("\0", 1)); }
  std::uint64_t value() const { return state_; }
  // 16 lower-case hex digits.
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace kselect
