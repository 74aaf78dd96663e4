#include "rules/expr.h"

#include <gtest/gtest.h>

namespace kselect::rules {

namespace {

class ExprTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scope_.add("ten", Value::of_int(10));
    x_ = scope_.add("x");
    s_ = scope_.add("s");
    slots_.resize(scope_.size());
    slots_[x_] = Value::of_int(7);
    slots_[s_] = Value::of_string("fp32");
  }
  Value eval(const std::string& text) { return Expr::compile(text, scope_).eval(slots_.data()); }
  std::int64_t integer(const std::string& text) {
    Value v = eval(text);
    EXPECT_EQ(v.type, Value::Type::kInt) << text;
    return v.i;
  }
  bool boolean(const std::string& text) {
    Value v = eval(text);
    EXPECT_EQ(v.type, Value::Type::kBool) << text;
    return v.b;
  }
  // The column of the error `text` raises at compile or evaluation time; 0 if none.
  std::size_t error_column(const std::string& text, std::string* reason = nullptr) {
    try {
      eval(text);
    } catch (const ExprError& e) {
      if (reason) *reason = e.reason();
      return e.column();
    }
    return 0;
  }

  Scope scope_;
  int x_ = -1, s_ = -1;
  std::vector<Value> slots_;
};

TEST_F(ExprTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(integer("1 + 2 * 3"), 7);
  EXPECT_EQ(integer("(1 + 2) * 3"), 9);
  EXPECT_EQ(integer("10 - 4 - 3"), 3);
  EXPECT_EQ(integer("100 // 10 // 5"), 2);
  EXPECT_EQ(integer("-x + 1"), -6);
  EXPECT_EQ(integer("- -3"), 3);
  EXPECT_EQ(integer("x % 4 * 2"), 6);
  EXPECT_EQ(integer("-7 // 2"), -4);  // floor division
  EXPECT_EQ(integer("-7 % 2"), 1);
  EXPECT_DOUBLE_EQ(eval("7 / 2").d, 3.5);
  EXPECT_DOUBLE_EQ(eval("1.5e1 + 1").d, 16.0);
}

TEST_F(ExprTest, LogicAndComparisons) {
  EXPECT_TRUE(boolean("1 + 1 == 2 and not 3 < 2"));
  EXPECT_TRUE(boolean("false or true and true"));
  EXPECT_FALSE(boolean("(false or true) and false"));
  EXPECT_TRUE(boolean("not false and false or true"));  // ((not false) and false) or true
  EXPECT_TRUE(boolean("x >= 7 and x <= 7 and x != 8 and x > 6.5"));
  EXPECT_TRUE(boolean("2 == 2.0"));
  EXPECT_TRUE(boolean("s == 'fp32' and s != \"bf16\" and s < 'zz'"));
  EXPECT_TRUE(boolean("x in [1, 7, 9] and s not in ['bf16']"));
  EXPECT_FALSE(boolean("not x in [7]"));
  EXPECT_TRUE(boolean("True == true"));
}

TEST_F(ExprTest, Functions) {
  EXPECT_EQ(integer("min(4, x, 9)"), 4);
  EXPECT_EQ(integer("max(4, x, 2)"), 7);
  EXPECT_DOUBLE_EQ(eval("max(1, 2.5)").d, 2.5);
  EXPECT_EQ(integer("ceil(x / 2)"), 4);
  EXPECT_EQ(integer("floor(x / 2)"), 3);
  EXPECT_DOUBLE_EQ(eval("log2(1024)").d, 10.0);
  EXPECT_EQ(integer("abs(3 - x)"), 4);
  EXPECT_TRUE(boolean("is_pow2(64) and not is_pow2(48) and not is_pow2(0)"));
  EXPECT_EQ(integer("if(s == 'fp32', 4, 2)"), 4);
  EXPECT_EQ(integer("if(false, 1 // 0, 5)"), 5);  // the branch not taken is not evaluated
}

TEST_F(ExprTest, ConstantsAreFoldedAndVariablesTracked) {
  Expr constant = Expr::compile("ten * 2 + 1", scope_);
  EXPECT_TRUE(constant.is_constant());
  EXPECT_EQ(constant.eval(nullptr).i, 21);
  Expr e = Expr::compile("x + ten + x", scope_);
  EXPECT_EQ(e.slots(), std::vector<int>{x_});
}

TEST_F(ExprTest, ErrorsNameTheColumn) {
  std::string reason;
  EXPECT_EQ(error_column("x + y", &reason), 5u);
  EXPECT_NE(reason.find("unknown name 'y'"), std::string::npos);
  EXPECT_EQ(error_column("1 +", &reason), 4u);
  EXPECT_NE(reason.find("end of expression"), std::string::npos);
  EXPECT_EQ(error_column("(1 + 2", &reason), 7u);
  EXPECT_EQ(error_column("1 2"), 3u);
  EXPECT_EQ(error_column("x $ 1", &reason), 3u);
  EXPECT_NE(reason.find("'$'"), std::string::npos);
  EXPECT_EQ(error_column("'abc"), 1u);
  EXPECT_EQ(error_column("foo(1)", &reason), 1u);
  EXPECT_NE(reason.find("unknown function 'foo'"), std::string::npos);
  EXPECT_EQ(error_column("min()", &reason), 1u);
  EXPECT_EQ(error_column("if(true, 1)"), 1u);
  EXPECT_EQ(error_column("x in 3"), 6u);
}

TEST_F(ExprTest, EvaluationErrors) {
  std::string reason;
  EXPECT_EQ(error_column("x // (x - 7)", &reason), 3u);
  EXPECT_EQ(reason, "division by zero");
  EXPECT_EQ(error_column("1 + x % 0", &reason), 7u);
  EXPECT_EQ(reason, "division by zero");
  EXPECT_EQ(error_column("x / 0.0", &reason), 3u);
  EXPECT_EQ(error_column("ten // 0", &reason), 5u);  // constant, raised when evaluated
  EXPECT_EQ(error_column("s + 1", &reason), 3u);
  EXPECT_NE(reason.find("expected a number"), std::string::npos);
  EXPECT_EQ(error_column("s == 1", &reason), 3u);
  EXPECT_NE(reason.find("cannot compare string fp32 with int 1"), std::string::npos);
  EXPECT_EQ(error_column("x and true"), 3u);
  EXPECT_EQ(error_column("log2(x - 7)"), 1u);
  EXPECT_EQ(error_column("7.5 // 2"), 5u);
}

}  // namespace

}  // namespace kselect::rules
