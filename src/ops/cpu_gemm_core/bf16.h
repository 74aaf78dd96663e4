#pragma once
// bf16 bit patterns <-> fp32 (bf16 is the upper half of an fp32).
#include <cstdint>
#include <cstring>

namespace kselect::kernels {

inline float bf16_to_float(std::uint16_t h) {
  std::uint32_t u = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline float to_float(float x) {
  return x;
}
inline float to_float(std::uint16_t h) {
  return bf16_to_float(h);
}

// Round to nearest even (NaN kept quiet); used to make test inputs and by callers.
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}

}  // namespace kselect::kernels
