// features::group_by_problem and extract_measured: the grouping training and feature tables
// share (valid rows of the op and dtype by problem, counts of every dtype held) and the batch
// extraction of one problem's measured kernels.
#include <gtest/gtest.h>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "features/problem_rows.h"
#include "ops/operation.h"

namespace kselect {
namespace {

std::vector<data::Measurement> two_dtypes() {
  auto rows = testing::synthetic_measurements(gemm::DType::kFp32);
  const auto bf16 = testing::synthetic_measurements(gemm::DType::kBf16);
  rows.insert(rows.end(), bf16.begin(), bf16.end());
  return rows;
}

TEST(ProblemRows, KeepsValidRowsOfTheDtypeAndCountsEveryDtype) {
  auto rows = two_dtypes();
  const std::size_t per_dtype = rows.size() / 2;
  rows[0].valid = false;
  rows[1].op = "conv";
  auto engine = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  const auto grouped = features::group_by_problem(rows, *engine, "gemm", "fp32");

  EXPECT_EQ(grouped.rows, per_dtype - 1);  // the conv row is not gemm's; the invalid one counts
  std::size_t kept = 0;
  for (const auto& [problem, measured] : grouped.by_problem) {
    for (const auto* m : measured) {
      EXPECT_EQ(m->problem, problem);
      EXPECT_TRUE(m->valid);
      EXPECT_EQ(engine->dtype(m->problem), "fp32");
    }
    kept += measured.size();
  }
  EXPECT_EQ(kept, per_dtype - 2);
  EXPECT_EQ(grouped.dtype_counts.at("bf16"), int(per_dtype));
  EXPECT_EQ(grouped.dtype_counts.at("fp32"), int(per_dtype - 1));
  EXPECT_EQ(grouped.dtypes_present(), "bf16 (" + std::to_string(per_dtype) + "), fp32 (" +
                                          std::to_string(per_dtype - 1) + ")");
}

TEST(ProblemRows, NoDtypeKeepsEveryDtypeAndAnotherOpNothing) {
  const auto rows = two_dtypes();
  auto engine = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  EXPECT_EQ(features::group_by_problem(rows, *engine, "gemm", "").rows, rows.size());
  const auto none = features::group_by_problem(rows, *engine, "conv", "");
  EXPECT_EQ(none.rows, 0u);
  EXPECT_TRUE(none.dtype_counts.empty());
  EXPECT_EQ(none.dtypes_present(), "");
}

TEST(ProblemRows, ExtractMeasuredIsTheEnginesRowOfEachKernel) {
  const auto rows = testing::synthetic_measurements();
  auto engine = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  const auto grouped = features::group_by_problem(rows, *engine, "gemm", "");
  const auto& [problem, measured] = *grouped.by_problem.begin();
  const auto& names = engine->schema("ck72").features;
  const auto columns = engine->columns_of(names, "test");
  std::vector<float> batch(measured.size() * columns.size());
  features::extract_measured(*engine, problem, measured, columns, batch.data());
  for (std::size_t r = 0; r < measured.size(); ++r) {
    const auto single = engine->extract("ck72", problem, std::vector{measured[r]->kernel});
    for (std::size_t c = 0; c < columns.size(); ++c)
      EXPECT_EQ(batch[r * columns.size() + c], single.at(0, c)) << names[c];
  }
}

}  // namespace
}  // namespace kselect
