#include "eval/imported_problems.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

namespace kselect::eval {
namespace {

data::Measurement row(const std::string& op, const std::string& problem, const std::string& kernel,
                      double ms, bool valid = true) {
  data::Measurement m;
  m.op = op, m.problem = problem, m.kernel = kernel, m.median_ms = ms, m.valid = valid;
  return m;
}

TEST(ImportedProblems, KeepTimedRowsAndEveryMeasuredKernelPerProblem) {
  const std::vector<data::Measurement> rows = {
      row("generic", "c=1,dir=F", "slow", 3.0),
      row("generic", "c=1,dir=F", "failed", 1.0, /*valid=*/false),
      row("generic", "c=1,dir=F", "fast", 2.0),
      row("generic", "c=1,dir=F", "untimed", std::numeric_limits<double>::infinity()),
      // A kernel the gemm op owns: measured by kselect, not imported.
      row("gemm", "c=1,dir=F",
          "gemm_universal_fp32_rcr_mem_default_intrawave_True_True_True_False_1x32x256_1x1x1_"
          "1x16x2",
          0.5),
      row("generic", "c=2,dir=F", "failed", 1.0, /*valid=*/false),
  };
  auto problems = collect_imported_problems(rows);
  ASSERT_EQ(problems.size(), 2u);

  const ImportedProblem& timed = problems.at("c=1,dir=F");
  EXPECT_EQ(timed.text, "c=1,dir=F");
  ASSERT_EQ(timed.timed.size(), 2u);  // input order: slow, fast
  EXPECT_EQ(timed.timed[0], &rows[0]);
  EXPECT_EQ(timed.timed[1], &rows[2]);
  EXPECT_EQ(timed.measured, (std::set<std::string>{"slow", "failed", "fast", "untimed"}));
  EXPECT_DOUBLE_EQ(timed.best_ms, 2.0);

  // Listed even without a usable time: the protocols count it as skipped or leave it out.
  const ImportedProblem& untimed = problems.at("c=2,dir=F");
  EXPECT_TRUE(untimed.timed.empty());
  EXPECT_EQ(untimed.measured, (std::set<std::string>{"failed"}));
  EXPECT_EQ(untimed.best_ms, 0.0);
}

}  // namespace
}  // namespace kselect::eval
