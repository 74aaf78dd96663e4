#include "model/train_cv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/measurement.h"
#include "model/folds.h"
#include "model/train_data.h"

namespace kselect::model {
namespace {

data::Measurement row(const std::string& problem, const std::string& kernel, double tflops) {
  data::Measurement m;
  m.problem = problem;
  m.kernel = kernel;
  m.tflops = tflops;
  m.valid = true;
  return m;
}

// Every objective's usable rows: a positive, finite value of the target, or an InputError.
TEST(TrainData, TargetRowsAreTheRowsWithAUsableValue) {
  const std::vector<data::Measurement> all = {row("p1", "k1", 2), row("p1", "k2", 0),
                                              row("p2", "k1", std::nan("")), row("p2", "k2", 1)};
  std::vector<const data::Measurement*> rows;
  for (const auto& m : all) rows.push_back(&m);
  EXPECT_EQ(target_rows(rows, "tflops"), (std::vector<std::size_t>{0, 3}));
  rows = {&all[1], &all[2]};
  EXPECT_THROW(target_rows(rows, "tflops"), InputError);
}

// The folds of a subset of rows are group_k_fold's over that subset's groups alone.
TEST(TrainCv, FoldsOfRowsSplitTheirOwnGroups) {
  const std::vector<std::string> groups = {"a", "a", "b", "c", "c", "d", "e"};
  const std::vector<std::size_t> rows = {0, 1, 2, 4, 5, 6};
  EXPECT_EQ(fold_of_rows(groups, rows, 2), group_k_fold({"a", "a", "b", "c", "d", "e"}, 2));
}

TEST(TrainCv, PickResultHasPickMetricsAndNoFit) {
  // p1 picks its best kernel; p2 picks one at half its best.
  const FoldResult r = pick_result({"p1", "p1", "p2", "p2"}, {2, 1, 2, 1}, {10, 5, 4, 8}, "tflops");
  EXPECT_EQ(r.valid_rows, 4u);
  EXPECT_EQ(r.valid_shapes, 2u);
  EXPECT_DOUBLE_EQ(r.mean_efficiency, 0.75);
  EXPECT_DOUBLE_EQ(r.top1, 0.5);
  EXPECT_TRUE(std::isnan(r.rmse) && std::isnan(r.r2));
}

}  // namespace
}  // namespace kselect::model
