#include "rules/expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "core/text.h"

namespace kselect::rules {

ExprError::ExprError(std::size_t column, const std::string& what)
    : std::runtime_error("column " + std::to_string(column) + ": " + what),
      column_(column),
      reason_(what) {}

int Scope::add(const std::string& name, std::optional<Value> constant) {
  if (index_.count(name)) throw std::invalid_argument("name '" + name + "' is defined twice");
  int slot = int(names_.size());
  index_.emplace(name, slot);
  names_.push_back(name);
  constants_.push_back(constant);
  return slot;
}

std::optional<int> Scope::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

namespace {

using Op = Expr::Op;

struct Token {
  enum Kind { kNumber, kString, kIdent, kSymbol, kEnd } kind = kEnd;
  std::string text;
  Value value;
  std::size_t column = 1;
};

struct Function {
  std::string_view name;
  Op op;
  int min_args, max_args;
};
constexpr Function kFunctions[] = {
    {"min", Op::kMin, 1, 64},       {"max", Op::kMax, 1, 64},  {"ceil", Op::kCeil, 1, 1},
    {"floor", Op::kFloor, 1, 1},    {"log2", Op::kLog2, 1, 1}, {"abs", Op::kAbs, 1, 1},
    {"is_pow2", Op::kIsPow2, 1, 1}, {"if", Op::kIf, 3, 3},
};

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = i + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < text.size() && std::isdigit((unsigned char)text[i + 1]))) {
      std::size_t j = i;
      bool is_double = false;
      while (j < text.size() && (std::isdigit((unsigned char)text[j]) || text[j] == '.')) {
        is_double |= text[j] == '.';
        ++j;
      }
      if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
        is_double = true;
        ++j;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        while (j < text.size() && std::isdigit((unsigned char)text[j])) ++j;
      }
      t.kind = Token::kNumber;
      t.text = std::string(text.substr(i, j - i));
      if (is_double) {
        double d = 0;
        auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), d);
        if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size())
          throw ExprError(t.column, "malformed number '" + t.text + "'");
        t.value = Value::of_double(d);
      } else {
        std::int64_t v = 0;
        auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
        if (r.ec != std::errc()) throw ExprError(t.column, "integer '" + t.text + "' is too large");
        t.value = Value::of_int(v);
      }
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < text.size() && (std::isalnum((unsigned char)text[j]) || text[j] == '_')) ++j;
      t.kind = Token::kIdent;
      t.text = std::string(text.substr(i, j - i));
      i = j;
    } else if (c == '\'' || c == '"') {
      std::size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) throw ExprError(t.column, "unterminated string");
      t.kind = Token::kString;
      t.text = std::string(text.substr(i + 1, end - i - 1));
      t.value = Value::of_string(t.text);
      i = end + 1;
    } else {
      static constexpr std::string_view kTwo[] = {"//", "==", "!=", "<=", ">="};
      t.kind = Token::kSymbol;
      t.text = std::string(1, c);
      for (auto two : kTwo)
        if (text.substr(i, 2) == two) t.text = std::string(two);
      if (t.text.size() == 1 && std::string_view("+-*/%<>()[],").find(c) == std::string_view::npos)
        throw ExprError(t.column, std::string("unexpected character '") + c + "'");
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.column = text.size() + 1;
  out.push_back(end);
  return out;
}

bool is_keyword(const Token& t, std::string_view word) {
  return t.kind == Token::kIdent && t.text == word;
}
bool is_symbol(const Token& t, std::string_view symbol) {
  return t.kind == Token::kSymbol && t.text == symbol;
}

std::string describe(const Token& t) {
  if (t.kind == Token::kEnd) return "end of expression";
  return "'" + t.text + "'";
}

}  // namespace

// Recursive descent, lowest precedence first: or, and, not, comparison, + -, * / // %, unary -.
class ExprParser {
 public:
  ExprParser(Expr& expr, const Scope& scope, std::string_view text)
      : expr_(expr), scope_(scope), tokens_(tokenize(text)) {}

  int parse() {
    int root = parse_or();
    if (peek().kind != Token::kEnd)
      throw ExprError(peek().column, "unexpected " + describe(peek()) + " after expression");
    return root;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return tokens_[pos_++]; }
  void expect(std::string_view symbol) {
    if (!is_symbol(peek(), symbol))
      throw ExprError(peek().column,
                      "expected '" + std::string(symbol) + "', found " + describe(peek()));
    ++pos_;
  }

  int add_node(Expr::Node node) {
    expr_.nodes_.push_back(node);
    return fold(int(expr_.nodes_.size()) - 1);
  }
  int binary(Op op, std::size_t column, int lhs, int rhs) {
    Expr::Node n;
    n.op = op;
    n.column = std::uint32_t(column);
    n.lhs = lhs;
    n.rhs = rhs;
    return add_node(n);
  }

  // Replaces a node whose operands are all constant by its value, so evaluation skips it.
  int fold(int index) {
    Expr::Node& n = expr_.nodes_[index];
    if (n.op == Op::kConst || n.op == Op::kVar) return index;
    auto constant = [&](int child) { return child < 0 || expr_.nodes_[child].op == Op::kConst; };
    if (!constant(n.lhs) || !constant(n.rhs)) return index;
    for (int a = 0; a < n.count; ++a)
      if (!constant(expr_.args_[n.first + a])) return index;
    Value v;
    try {
      v = expr_.eval_node(index, nullptr);
    } catch (const ExprError&) {
      return index;  // e.g. `if(c, 1 // 0, 2)`: raise only if evaluation reaches it
    }
    Expr::Node& folded = expr_.nodes_[index];
    folded.op = Op::kConst;
    folded.value = v;
    return index;
  }

  int parse_or() { return parse_logical("or", Op::kOr, &ExprParser::parse_and); }
  int parse_and() { return parse_logical("and", Op::kAnd, &ExprParser::parse_not); }
  // Left-associative chain `operand (keyword operand)*`.
  int parse_logical(std::string_view keyword, Op op, int (ExprParser::*operand)()) {
    int lhs = (this->*operand)();
    while (is_keyword(peek(), keyword)) {
      auto column = next().column;
      lhs = binary(op, column, lhs, (this->*operand)());
    }
    return lhs;
  }
  int parse_not() {
    if (is_keyword(peek(), "not")) {
      auto column = next().column;
      return binary(Op::kNot, column, parse_not(), -1);
    }
    return parse_comparison();
  }
  int parse_comparison() {
    int lhs = parse_additive();
    static const std::pair<std::string_view, Op> kOps[] = {{"==", Op::kEq}, {"!=", Op::kNe},
                                                           {"<", Op::kLt},  {"<=", Op::kLe},
                                                           {">", Op::kGt},  {">=", Op::kGe}};
    for (auto [symbol, op] : kOps)
      if (is_symbol(peek(), symbol)) {
        auto column = next().column;
        return binary(op, column, lhs, parse_additive());
      }
    if (is_keyword(peek(), "in")) return parse_in(Op::kIn, next().column, lhs);
    if (is_keyword(peek(), "not") && is_keyword(tokens_[pos_ + 1], "in")) {
      auto column = next().column;
      next();
      return parse_in(Op::kNotIn, column, lhs);
    }
    return lhs;
  }
  int parse_in(Op op, std::size_t column, int lhs) {
    Expr::Node n;
    n.op = op;
    n.column = std::uint32_t(column);
    n.lhs = lhs;
    expect("[");
    auto items = parse_list("]");
    n.first = int(expr_.args_.size());
    n.count = int(items.size());
    expr_.args_.insert(expr_.args_.end(), items.begin(), items.end());
    return add_node(n);
  }
  // Comma-separated expressions up to `close` (consumed).
  std::vector<int> parse_list(std::string_view close) {
    std::vector<int> items;
    if (is_symbol(peek(), close)) {
      next();
      return items;
    }
    while (true) {
      items.push_back(parse_or());
      if (is_symbol(peek(), ",")) {
        next();
        continue;
      }
      expect(close);
      return items;
    }
  }
  int parse_additive() {
    int lhs = parse_multiplicative();
    while (is_symbol(peek(), "+") || is_symbol(peek(), "-")) {
      const Token& t = next();
      Op op = t.text == "+" ? Op::kAdd : Op::kSub;
      lhs = binary(op, t.column, lhs, parse_multiplicative());
    }
    return lhs;
  }
  int parse_multiplicative() {
    int lhs = parse_unary();
    static const std::pair<std::string_view, Op> kOps[] = {
        {"*", Op::kMul}, {"/", Op::kDiv}, {"//", Op::kIntDiv}, {"%", Op::kMod}};
    while (true) {
      bool matched = false;
      for (auto [symbol, op] : kOps)
        if (is_symbol(peek(), symbol)) {
          auto column = next().column;
          lhs = binary(op, column, lhs, parse_unary());
          matched = true;
          break;
        }
      if (!matched) return lhs;
    }
  }
  int parse_unary() {
    if (is_symbol(peek(), "-")) {
      auto column = next().column;
      return binary(Op::kNeg, column, parse_unary(), -1);
    }
    return parse_primary();
  }
  int parse_primary() {
    const Token& t = next();
    Expr::Node n;
    n.column = std::uint32_t(t.column);
    if (t.kind == Token::kNumber || t.kind == Token::kString) {
      n.value = t.value;
      return add_node(n);
    }
    if (is_symbol(t, "(")) {
      int inner = parse_or();
      expect(")");
      return inner;
    }
    if (t.kind != Token::kIdent) throw ExprError(t.column, "unexpected " + describe(t));
    if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False") {
      n.value = Value::of_bool(t.text[0] == 't' || t.text[0] == 'T');
      return add_node(n);
    }
    if (is_symbol(peek(), "(")) return parse_call(t);
    return parse_variable(t);
  }
  int parse_call(const Token& name) {
    next();  // '('
    const Function* fn = nullptr;
    for (const auto& f : kFunctions)
      if (f.name == name.text) fn = &f;
    if (!fn) {
      const std::string known =
          join(kFunctions, [](const Function& f) { return std::string(f.name); });
      throw ExprError(name.column, "unknown function '" + name.text + "' (known: " + known + ")");
    }
    auto args = parse_list(")");
    if (int(args.size()) < fn->min_args || int(args.size()) > fn->max_args)
      throw ExprError(name.column, name.text + "() takes " +
                                       (fn->min_args == fn->max_args
                                            ? std::to_string(fn->min_args)
                                            : "at least " + std::to_string(fn->min_args)) +
                                       " argument(s), got " + std::to_string(args.size()));
    Expr::Node n;
    n.op = fn->op;
    n.column = std::uint32_t(name.column);
    n.first = int(expr_.args_.size());
    n.count = int(args.size());
    expr_.args_.insert(expr_.args_.end(), args.begin(), args.end());
    return add_node(n);
  }
  int parse_variable(const Token& t) {
    static const std::vector<std::string_view> kReserved = {"and", "or", "not", "in"};
    for (auto word : kReserved)
      if (t.text == word) throw ExprError(t.column, "unexpected '" + t.text + "'");
    auto slot = scope_.find(t.text);
    if (!slot) throw ExprError(t.column, "unknown name '" + t.text + "'");
    Expr::Node n;
    n.column = std::uint32_t(t.column);
    if (const auto& constant = scope_.constant(*slot)) {
      n.value = *constant;
    } else {
      n.op = Op::kVar;
      n.slot = *slot;
      slots_.push_back(*slot);
    }
    return add_node(n);
  }

 public:
  std::vector<int> slots_;

 private:
  Expr& expr_;
  const Scope& scope_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

Expr Expr::compile(std::string_view text, const Scope& scope) {
  Expr expr;
  expr.text_ = std::string(text);
  ExprParser parser(expr, scope, text);
  expr.root_ = parser.parse();
  auto& s = parser.slots_;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  expr.slots_ = s;
  return expr;
}

namespace {

[[noreturn]] void type_error(const Expr::Node& n, std::string_view what, const Value& v) {
  throw ExprError(n.column, std::string(what) + ", got " + std::string(type_name(v.type)) + " " +
                                v.to_string());
}

void need_number(const Expr::Node& n, const Value& v) {
  if (!v.is_number()) type_error(n, "expected a number", v);
}
void need_int(const Expr::Node& n, const Value& v) {
  if (v.type != Value::Type::kInt) type_error(n, "expected an integer", v);
}
bool need_bool(const Expr::Node& n, const Value& v) {
  if (v.type != Value::Type::kBool) type_error(n, "expected a boolean", v);
  return v.b;
}

// Floor division and modulo, like Python, so `x % n` is never negative for n > 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Value arithmetic(const Expr::Node& n, const Value& l, const Value& r) {
  if (n.op == Op::kIntDiv || n.op == Op::kMod) {
    need_int(n, l);
    need_int(n, r);
    if (r.i == 0) throw ExprError(n.column, "division by zero");
    std::int64_t q = floor_div(l.i, r.i);
    return Value::of_int(n.op == Op::kIntDiv ? q : l.i - q * r.i);
  }
  need_number(n, l);
  need_number(n, r);
  if (n.op == Op::kDiv) {
    if (r.as_double() == 0) throw ExprError(n.column, "division by zero");
    return Value::of_double(l.as_double() / r.as_double());
  }
  if (l.type == Value::Type::kInt && r.type == Value::Type::kInt) {
    switch (n.op) {
      case Op::kAdd:
        return Value::of_int(l.i + r.i);
      case Op::kSub:
        return Value::of_int(l.i - r.i);
      default:
        return Value::of_int(l.i * r.i);
    }
  }
  double a = l.as_double(), b = r.as_double();
  switch (n.op) {
    case Op::kAdd:
      return Value::of_double(a + b);
    case Op::kSub:
      return Value::of_double(a - b);
    default:
      return Value::of_double(a * b);
  }
}

// Three-way comparison; numbers compare numerically, strings lexicographically. `ordered`
// rejects booleans (only == and != make sense for them).
int compare(const Expr::Node& n, const Value& l, const Value& r, bool ordered) {
  if (l.is_number() && r.is_number()) {
    if (l.type == Value::Type::kInt && r.type == Value::Type::kInt)
      return l.i < r.i ? -1 : (l.i > r.i ? 1 : 0);
    double a = l.as_double(), b = r.as_double();
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  if (l.type != r.type)
    throw ExprError(n.column, "cannot compare " + std::string(type_name(l.type)) + " " +
                                  l.to_string() + " with " + std::string(type_name(r.type)) + " " +
                                  r.to_string());
  if (l.type == Value::Type::kString) return l.s == r.s ? 0 : l.s->compare(*r.s);
  if (ordered) type_error(n, "cannot order booleans", l);
  return int(l.b) - int(r.b);
}

}  // namespace

Value Expr::eval_node(int index, const Value* slots) const {
  const Node& n = nodes_[index];
  switch (n.op) {
    case Op::kConst:
      return n.value;
    case Op::kVar:
      return slots[n.slot];
    case Op::kNeg: {
      Value v = eval_node(n.lhs, slots);
      need_number(n, v);
      return v.type == Value::Type::kInt ? Value::of_int(-v.i) : Value::of_double(-v.d);
    }
    case Op::kNot:
      return Value::of_bool(!need_bool(n, eval_node(n.lhs, slots)));
    case Op::kAnd:
      return Value::of_bool(need_bool(n, eval_node(n.lhs, slots)) &&
                            need_bool(n, eval_node(n.rhs, slots)));
    case Op::kOr:
      return Value::of_bool(need_bool(n, eval_node(n.lhs, slots)) ||
                            need_bool(n, eval_node(n.rhs, slots)));
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kIntDiv:
    case Op::kMod:
      return arithmetic(n, eval_node(n.lhs, slots), eval_node(n.rhs, slots));
    case Op::kEq:
    case Op::kNe: {
      bool eq = compare(n, eval_node(n.lhs, slots), eval_node(n.rhs, slots), false) == 0;
      return Value::of_bool(n.op == Op::kEq ? eq : !eq);
    }
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe: {
      int c = compare(n, eval_node(n.lhs, slots), eval_node(n.rhs, slots), true);
      bool r = n.op == Op::kLt   ? c < 0
               : n.op == Op::kLe ? c <= 0
               : n.op == Op::kGt ? c > 0
                                 : c >= 0;
      return Value::of_bool(r);
    }
    case Op::kIn:
    case Op::kNotIn: {
      Value v = eval_node(n.lhs, slots);
      bool found = false;
      for (int a = 0; a < n.count && !found; ++a)
        found = compare(n, v, eval_node(args_[n.first + a], slots), false) == 0;
      return Value::of_bool(n.op == Op::kIn ? found : !found);
    }
    default:
      return eval_call(n, slots);
  }
}

Value Expr::eval_call(const Node& n, const Value* slots) const {
  auto arg = [&](int a) { return eval_node(args_[n.first + a], slots); };
  switch (n.op) {
    case Op::kIf:
      return need_bool(n, arg(0)) ? arg(1) : arg(2);
    case Op::kMin:
    case Op::kMax: {
      Value best = arg(0);
      need_number(n, best);
      bool all_int = best.type == Value::Type::kInt;
      double best_d = best.as_double();
      for (int a = 1; a < n.count; ++a) {
        Value v = arg(a);
        need_number(n, v);
        all_int &= v.type == Value::Type::kInt;
        if (n.op == Op::kMin ? v.as_double() < best_d : v.as_double() > best_d) {
          best = v;
          best_d = v.as_double();
        }
      }
      return all_int ? best : Value::of_double(best_d);
    }
    default:
      break;
  }
  Value v = arg(0);
  if (n.op == Op::kIsPow2) {
    need_int(n, v);
    return Value::of_bool(v.i > 0 && (v.i & (v.i - 1)) == 0);
  }
  need_number(n, v);
  switch (n.op) {
    case Op::kCeil:
      return Value::of_int(std::int64_t(std::ceil(v.as_double())));
    case Op::kFloor:
      return Value::of_int(std::int64_t(std::floor(v.as_double())));
    case Op::kAbs:
      return v.type == Value::Type::kInt ? Value::of_int(v.i < 0 ? -v.i : v.i)
                                         : Value::of_double(std::fabs(v.d));
    case Op::kLog2:
      if (v.as_double() <= 0) type_error(n, "log2 needs a positive number", v);
      return Value::of_double(std::log2(v.as_double()));
    default:
      throw ExprError(n.column, "internal error: unknown operator");
  }
}

}  // namespace kselect::rules
