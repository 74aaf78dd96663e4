// The public C++ API (include/kselect/kselect.h) and the C API (include/kselect/c_api.h), as an
// application uses them: no internal header.
#include "kselect/kselect.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kselect/c_api.h"

namespace {

TEST(Selector, SelectsRanksExplainsAndRunsOnTheCallersBuffers) {
  kselect::SelectorOptions o;
  o.op = "gemm";
  o.strategy = "default";
  kselect::Selector selector(o);
  EXPECT_EQ(selector.op(), "gemm");
  EXPECT_FALSE(selector.has_model());
  const kselect::Problem p = selector.problem("m=33, n=17, k=65");
  EXPECT_EQ(p.text(), "m=33,n=17,k=65,layout=rcr,dtype=fp32");
  const kselect::Selection s = selector.select(p);
  EXPECT_EQ(s.level, "default");
  EXPECT_EQ(selector.kernels()[s.kernel_index], s.kernel);
  EXPECT_EQ(selector.select(p).level, "cache");
  const auto ranked = selector.rank(p, 4);
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked.front().kernel, s.kernel);
  EXPECT_NE(selector.explain(p).find(std::string(s.kernel)), std::string::npos);
  EXPECT_NE(selector.explain(p, true).find("\"level\""), std::string::npos);

  ASSERT_EQ(selector.operand_names(p), (std::vector<std::string>{"a", "b", "c"}));
  // rcr: A is M x K row-major, B is N x K (column-major K x N), C is M x N row-major.
  std::vector<float> a(33 * 65), b(17 * 65), c(33 * 17, -1.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(int(i % 5) - 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(int(i % 3) - 1);
  std::vector<void*> operands = {a.data(), b.data(), c.data()};
  const kselect::RunResult r = selector.run(p, operands, true);
  EXPECT_EQ(r.verify_error, "");
  EXPECT_EQ(r.selection.kernel, s.kernel);
  double expected = 0;
  for (int k = 0; k < 65; ++k) expected += double(a[k]) * double(b[k]);
  EXPECT_FLOAT_EQ(c[0], float(expected));
  const kselect::Counters n = selector.counters();
  EXPECT_EQ(n.cache_misses, 1u);
  EXPECT_GE(n.cache_hits, 2u);
}

TEST(Selector, BadInputThrowsTheDocumentedErrors) {
  kselect::SelectorOptions o;
  o.op = "gemm";
  o.strategy = "quickest";
  EXPECT_THROW(kselect::Selector{o}, kselect::InputError);
  o.strategy = "auto";
  kselect::Selector selector(o);
  EXPECT_THROW(selector.problem("m=1,n=1"), kselect::InputError);
  const kselect::Problem p = selector.problem("m=8,n=8,k=8");
  std::vector<void*> too_few = {nullptr};
  EXPECT_THROW(selector.run(p, too_few), kselect::InputError);
  o.model = "/nonexistent";
  o.require_model = true;
  EXPECT_THROW(kselect::Selector{o}, kselect::StorageError);
}

TEST(CApi, SelectsAndReportsErrorsPerThread) {
  KsSelector sel = nullptr;
  ASSERT_EQ(KsSelectorCreate("{\"op\": \"gemm\", \"strategy\": \"default\"}", &sel), 0)
      << KsGetLastError();
  KsProblem p = nullptr;
  ASSERT_EQ(KsProblemCreate(sel, "m=64,n=64,k=64", &p), 0) << KsGetLastError();
  const char* text = nullptr;
  ASSERT_EQ(KsProblemText(p, &text), 0);
  EXPECT_STREQ(text, "m=64,n=64,k=64,layout=rcr,dtype=fp32");
  const char* kernel = nullptr;
  const char* level = nullptr;
  int index = -1;
  ASSERT_EQ(KsSelect(sel, p, &kernel, &index, &level), 0) << KsGetLastError();
  EXPECT_STREQ(level, "default");
  const char* name = nullptr;
  ASSERT_EQ(KsSelectorKernelName(sel, index, &name), 0);
  EXPECT_STREQ(name, kernel);
  const char* json = nullptr;
  ASSERT_EQ(KsExplain(sel, p, 1, 3, &json), 0);
  EXPECT_NE(std::string(json).find(kernel), std::string::npos);
  ASSERT_EQ(KsCounters(sel, &json), 0);
  EXPECT_NE(std::string(json).find("\"cache_misses\":1"), std::string::npos) << json;

  KsProblem bad = nullptr;
  EXPECT_EQ(KsProblemCreate(sel, "m=-4,n=1,k=1", &bad), -1);
  EXPECT_NE(std::string(KsGetLastError()).find("m"), std::string::npos) << KsGetLastError();
  EXPECT_EQ(KsSelect(nullptr, p, &kernel, nullptr, nullptr), -1);
  EXPECT_NE(std::string(KsGetLastError()).find("selector"), std::string::npos);
  KsSelector other = nullptr;
  EXPECT_EQ(KsSelectorCreate("{\"strategy\": 3}", &other), -1);
  EXPECT_NE(std::string(KsGetLastError()).find("strategy"), std::string::npos);
  EXPECT_EQ(KsSelectorCreate("{\"opp\": \"gemm\"}", &other), -1);
  EXPECT_NE(std::string(KsGetLastError()).find("unknown option"), std::string::npos);
  EXPECT_EQ(KsProblemFree(p), 0);
  EXPECT_EQ(KsSelectorFree(sel), 0);
}

}  // namespace
