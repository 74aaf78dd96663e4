#include "rules/value.h"

#include <charconv>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace kselect::rules {

namespace {
// Process-wide pool: rule files hold few distinct strings, and values must stay valid for as
// long as any parsed rule file lives.
const std::string* intern(std::string_view text) {
  static std::mutex mutex;
  static std::unordered_set<std::string> pool;
  std::lock_guard lock(mutex);
  return &*pool.emplace(text).first;
}
}  // namespace

Value Value::of_int(std::int64_t v) {
  Value out;
  out.type = Type::kInt;
  out.i = v;
  return out;
}
Value Value::of_double(double v) {
  Value out;
  out.type = Type::kDouble;
  out.d = v;
  return out;
}
Value Value::of_bool(bool v) {
  Value out;
  out.type = Type::kBool;
  out.b = v;
  return out;
}
Value Value::of_string(std::string_view v) {
  Value out;
  out.type = Type::kString;
  out.s = intern(v);
  return out;
}

Value Value::from_json(const nlohmann::json& j) {
  if (j.is_boolean()) return of_bool(j.get<bool>());
  if (j.is_number_integer()) return of_int(j.get<std::int64_t>());
  if (j.is_number_float()) return of_double(j.get<double>());
  if (j.is_string()) return of_string(j.get<std::string>());
  throw std::invalid_argument("expected a number, a boolean or a string, got " + j.dump());
}

std::string Value::to_string() const {
  switch (type) {
    case Type::kInt:
      return std::to_string(i);
    case Type::kBool:
      return b ? "True" : "False";
    case Type::kString:
      return *s;
    case Type::kDouble: {
      char buf[32];
      auto res = std::to_chars(buf, buf + sizeof buf, d);
      return std::string(buf, res.ptr);
    }
  }
  return "?";
}

nlohmann::json Value::to_json() const {
  switch (type) {
    case Type::kInt:
      return i;
    case Type::kDouble:
      return d;
    case Type::kBool:
      return b;
    case Type::kString:
      return *s;
  }
  return nullptr;
}

bool operator==(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Value::Type::kInt:
      return a.i == b.i;
    case Value::Type::kDouble:
      return a.d == b.d;
    case Value::Type::kBool:
      return a.b == b.b;
    case Value::Type::kString:
      return a.s == b.s;
  }
  return false;
}

std::string_view type_name(Value::Type t) {
  switch (t) {
    case Value::Type::kInt:
      return "int";
    case Value::Type::kDouble:
      return "double";
    case Value::Type::kBool:
      return "bool";
    case Value::Type::kString:
      return "string";
  }
  return "?";
}

}  // namespace kselect::rules
