// features::write_feature_table: the CSV rows are the engine's own extraction, one per valid
// measurement of the op and dtype, and bad selections are clear errors.
#include <gtest/gtest.h>

#include <sstream>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "features/table.h"
#include "ops/operation.h"

namespace kselect {
namespace {

std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      cells.push_back(cell), cell.clear();
    else
      cell += c;
  }
  cells.push_back(cell);
  return cells;
}

TEST(FeatureTable, RowsAreTheEnginesExtractionOfEachValidMeasurement) {
  auto rows = testing::synthetic_measurements();
  rows[3].valid = false;  // unsupported rows are not training rows
  auto engine = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  std::ostringstream out;
  const std::size_t written =
      features::write_feature_table(rows, *engine, {.op = "gemm", .schema = "ck55"}, out);
  EXPECT_EQ(written, rows.size() - 1);

  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  const auto header = split_line(line);
  const auto& names = engine->schema("ck55").features;
  ASSERT_EQ(header.size(), names.size() + 4);
  EXPECT_EQ(header[0], "problem");
  EXPECT_EQ(header[2], names[0]);
  EXPECT_EQ(header.back(), "tflops");

  std::getline(lines, line);  // the first problem's first kernel (problems in order)
  const auto first = split_line(line);
  const auto single = engine->extract("ck55", first[0], std::vector<std::string>{first[1]});
  for (std::size_t c = 0; c < names.size(); ++c)
    EXPECT_FLOAT_EQ(std::stof(first[c + 2]), single.at(0, c)) << names[c];
  std::size_t count = 1;
  while (std::getline(lines, line)) ++count;
  EXPECT_EQ(count, written);
}

TEST(FeatureTable, ADtypeWithoutRowsNamesTheDtypesHeld) {
  auto rows = testing::synthetic_measurements();
  auto engine = find_operation("gemm").make_feature_engine(testing::fixed_hardware());
  std::ostringstream out;
  try {
    features::write_feature_table(rows, *engine, {.op = "gemm", .dtype = "bf16"}, out);
    FAIL() << "no bf16 rows";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fp32 ("), std::string::npos) << e.what();
  }
  EXPECT_THROW(features::write_feature_table(rows, *engine, {.op = "conv"}, out), InputError);
  for (auto& row : rows) row.valid = false;  // rows of the dtype, but none to train on
  try {
    features::write_feature_table(rows, *engine, {.op = "gemm", .dtype = "fp32"}, out);
    FAIL() << "no valid rows";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no valid measurements with dtype 'fp32'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(features::write_feature_table(rows, *engine, {.op = "gemm", .schema = "ck99"}, out),
               InputError);
}

}  // namespace
}  // namespace kselect
