#pragma once
// The expression language of rule files (docs/rules.md): numbers, strings, booleans,
// + - * / // %, comparisons, and/or/not, `x in [..]`, functions (min, max, ceil, floor, log2,
// abs, is_pow2, if) and variable lookup. Expressions are compiled once against a Scope (names
// resolved to slots, constant sub-expressions folded) and then evaluated over slot arrays.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rules/value.h"

namespace kselect::rules {

// A syntax or evaluation error; `column` is 1-based within the expression text.
class ExprError : public std::runtime_error {
 public:
  ExprError(std::size_t column, const std::string& what);
  std::size_t column() const { return column_; }
  const std::string& reason() const { return reason_; }

 private:
  std::size_t column_;
  std::string reason_;
};

// Names visible to an expression: each is a slot index; constants also carry their value so
// expressions over constants only are folded at compile time.
class Scope {
 public:
  // Returns the new slot index; throws std::invalid_argument if the name exists.
  int add(const std::string& name, std::optional<Value> constant = std::nullopt);
  std::optional<int> find(std::string_view name) const;
  const std::optional<Value>& constant(int slot) const { return constants_[slot]; }
  const std::string& name(int slot) const { return names_[slot]; }
  int size() const { return int(names_.size()); }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> names_;
  std::vector<std::optional<Value>> constants_;
};

class Expr {
 public:
  // Throws ExprError for syntax errors, unknown names and wrong argument counts.
  static Expr compile(std::string_view text, const Scope& scope);

  // Evaluates with slots[i] holding the value of slot i; throws ExprError (type mismatch,
  // division by zero, log2 of a non-positive number).
  Value eval(const Value* slots) const { return eval_node(root_, slots); }

  const std::string& text() const { return text_; }
  // Non-constant slots the expression reads, ascending.
  const std::vector<int>& slots() const { return slots_; }
  bool is_constant() const { return slots_.empty(); }

  enum class Op : std::uint8_t;
  struct Node;

 private:
  friend class ExprParser;
  Value eval_node(int index, const Value* slots) const;
  Value eval_call(const Node& node, const Value* slots) const;

  std::string text_;
  std::vector<Node> nodes_;
  std::vector<int> args_;  // children of calls and lists: Node::first .. first+count
  int root_ = -1;
  std::vector<int> slots_;
};

enum class Expr::Op : std::uint8_t {
  kConst,
  kVar,
  kNeg,
  kNot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kIntDiv,
  kMod,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kIn,
  kNotIn,
  kMin,
  kMax,
  kCeil,
  kFloor,
  kLog2,
  kAbs,
  kIsPow2,
  kIf
};

struct Expr::Node {
  Op op = Op::kConst;
  std::uint32_t column = 1;
  int lhs = -1, rhs = -1;    // operands of unary and binary operators
  int first = 0, count = 0;  // argument range in args_ for calls and `in` lists
  int slot = -1;             // kVar
  Value value;               // kConst
};

}  // namespace kselect::rules
