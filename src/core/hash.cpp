#include "core/hash.h"

#include <cstdio>

namespace kselect {

std::string Fnv1a::hex() const {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(state_));
  return text;
}

}  // namespace kselect
