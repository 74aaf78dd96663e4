#pragma once
// The names of an enum's values, declared once: each enum kselect parses from the command line
// or a file gets one parse and one to_string through a table of this kind.
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace kselect {

template <class Enum, std::size_t N>
class EnumNames {
 public:
  // `what` names the kind of value in error messages ("objective", "method").
  constexpr EnumNames(std::string_view what,
                      std::array<std::pair<Enum, std::string_view>, N> entries)
      : what_(what), entries_(entries) {}

  std::string name(Enum value) const {
    for (const auto& [known, name] : entries_)
      if (known == value) return std::string(name);
    throw std::logic_error("a " + std::string(what_) + " value without a name");
  }

  // The value named `name`; InputError naming `field` and listing every name otherwise.
  Enum parse(std::string_view name, const std::string& field) const {
    for (const auto& [value, known] : entries_)
      if (known == name) return value;
    std::string expected;
    for (const auto& [value, known] : entries_)
      expected += (expected.empty() ? "" : ", ") + std::string(known);
    throw InputError("", 0, field,
                     "unknown " + std::string(what_) + " '" + std::string(name) + "' (expected " +
                         expected + ")");
  }

  // Every name, in table order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [value, name] : entries_) out.emplace_back(name);
    return out;
  }

 private:
  std::string_view what_;
  std::array<std::pair<Enum, std::string_view>, N> entries_;
};

}  // namespace kselect
