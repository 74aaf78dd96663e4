#include "ops/shape_csv.h"

#include <gtest/gtest.h>

#include <random>

#include "../bench/fake_operation.h"
#include "../data/temp_dir.h"
#include "core/error.h"
#include "ops/operation.h"

namespace kselect {
namespace {

using kselect::testing::FakeOperation;

std::string error_of(const std::string& text) {
  FakeOperation op;
  try {
    parse_shape_csv(op, text, "shapes.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ShapeCsv, ReadsRowsSkipsCommentsAndDuplicates) {
  FakeOperation op;
  auto problems = parse_shape_csv(op, "# shapes\nsize,dtype\n4,a\n\n 7 , b \n4,a\n5,\n", "x.csv");
  EXPECT_EQ(problems,
            (std::vector<std::string>{"size=4,dtype=a", "size=7,dtype=b", "size=5,dtype=a"}));
}

TEST(ShapeCsv, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("size,dtype\n4,a\nx4,a\n"),
            "shapes.csv:3: field 'size': not an integer: 'x4'");
  EXPECT_EQ(error_of("size,dtype\n4\n"),
            "shapes.csv:2: field 'dtype': missing: the row has 1 cells, the header 2");
  EXPECT_EQ(error_of("size,dtype\n0,a\n"), "shapes.csv:2: field 'size': must be >= 1");
  EXPECT_EQ(error_of("size,dtype\n3,zz\n"), "shapes.csv:2: field 'dtype': unknown dtype");
  EXPECT_NE(error_of("size,dtipe\n"), "(no error)");
  EXPECT_EQ(error_of("size,dtipe\n").find("shapes.csv:1: field 'dtipe': unknown column"), 0u);
  EXPECT_EQ(error_of("size,size\n"), "shapes.csv:1: field 'size': column given twice");
  EXPECT_EQ(error_of("dtype\na\n"), "shapes.csv:2: field 'size': missing");
  EXPECT_EQ(error_of("size,dtype\n1,a,3\n"),
            "shapes.csv:2: the row has 3 cells, the header only 2");
  EXPECT_EQ(error_of(""), "shapes.csv: no header line (expected problem columns)");
}

// Errors an op raises without a location (GEMM's layout and dtype parsers) still name the
// file and line: the reader adds them.
TEST(ShapeCsv, EveryRowErrorNamesFileAndLine) {
  const Operation& gemm = find_operation("gemm");
  for (const char* row : {"8,8,8,xyz,fp32", "8,8,8,rcr,fp64"}) {
    try {
      parse_shape_csv(gemm, std::string("m,n,k,layout,dtype\n") + row + "\n", "s.csv");
      ADD_FAILURE() << row << " parsed";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("s.csv:2: ", 0), 0u) << e.what();
    }
  }
}

// A UTF-8 byte-order mark (spreadsheet exports) is not part of the first column's name; a file
// with a header but no rows is an error, not an empty sweep.
TEST(ShapeCsv, ByteOrderMarkIsSkippedAndAHeaderAloneIsAnError) {
  FakeOperation op;
  EXPECT_EQ(parse_shape_csv(op, "\xEF\xBB\xBFsize,dtype\n4,a\n", "bom.csv"),
            (std::vector<std::string>{"size=4,dtype=a"}));
  EXPECT_EQ(error_of("size,dtype\n# none yet\n"), "shapes.csv: no problem rows after the header");
}

TEST(ShapeCsv, GarbageNeverCrashes) {
  FakeOperation op;
  std::mt19937 rng(7);
  const std::string alphabet = std::string("size,dtype\n=#ab0123456789-\r\t ") + '\0' + "\xff";
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text = trial % 2 ? "size,dtype\n" : "";
    int length = int(rng() % 80);
    for (int i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
    try {
      parse_shape_csv(op, text, "fuzz.csv");
    } catch (const InputError&) {
    }
  }
}

TEST(ShapeCsv, WritesWhatItReads) {
  FakeOperation op;
  kselect::testing::TempDir dir;
  std::vector<std::string> problems = {"size=3,dtype=a", "size=9,dtype=b"};
  write_shape_csv(op, problems, dir.file("s.csv"));
  EXPECT_EQ(kselect::testing::read_bytes(dir.file("s.csv")), "size,dtype\n3,a\n9,b\n");
  EXPECT_EQ(read_shape_csv(op, dir.file("s.csv")), problems);
  EXPECT_THROW(read_shape_csv(op, dir.file("missing.csv")), InputError);
}

}  // namespace
}  // namespace kselect
