#pragma once
// The values of the rule language: integers, doubles, booleans and strings. A Value is small
// and trivially copyable so the space enumeration can evaluate millions of expressions
// without allocating; strings are interned (equal strings share one address).
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace kselect::rules {

struct Value {
  enum class Type : std::uint8_t { kInt, kDouble, kBool, kString };

  Type type = Type::kInt;
  union {
    std::int64_t i = 0;
    double d;
    bool b;
    const std::string* s;  // interned: equal strings have equal pointers
  };

  static Value of_int(std::int64_t v);
  static Value of_double(double v);
  static Value of_bool(bool v);
  static Value of_string(std::string_view v);
  // Ints, doubles, bools and strings of a JSON document; nullopt-like failure throws
  // std::invalid_argument for other JSON types (the caller adds the location).
  static Value from_json(const nlohmann::json& j);

  bool is_number() const { return type == Type::kInt || type == Type::kDouble; }
  double as_double() const { return type == Type::kInt ? double(i) : d; }

  // Text used in kernel names: bools are "True"/"False" (CK's spelling), doubles shortest.
  std::string to_string() const;
  nlohmann::json to_json() const;

  // Exact equality: same type and value (1 and 1.0 differ; the expression language compares
  // numbers numerically itself).
  friend bool operator==(const Value& a, const Value& b);
};

std::string_view type_name(Value::Type t);

}  // namespace kselect::rules
