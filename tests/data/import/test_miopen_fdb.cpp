// The miopen-fdb importer: every key and entry kind on hand-written lines, malformed input, and
// the shipped find-db files (counts recorded in docs/formats/miopen-fdb.md).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "import_collector.h"
#include "ops/operation.h"

namespace kselect::importers {
namespace {

using kselect::testing::ImportCollector;
using ::testing::HasSubstr;

ImportCollector import_fdb(const std::string& text, const std::string& settings = "",
                           const std::string& device = "") {
  return kselect::testing::collect_text("miopen-fdb", text, "/data/gfx90a68.HIP.fdb.txt", settings,
                                        device);
}

// Forward 3x3 convolution, 64 -> 128 channels, 56x56 -> 28x28 (stride 2, pad 1), batch 32.
const std::string kForwardKey = "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F";
const std::string kForwardProblem =
    "device=gfx90a68,dir=F,dtype=fp32,layout=NCHW,n=32,c=64,k=128,g=1,di=1,hi=56,wi=56,z=1,y=3,"
    "x=3,do=1,ho=28,wo=28,pad_d=0,pad_h=1,pad_w=1,stride_d=1,stride_h=2,stride_w=2,dil_d=1,"
    "dil_h=1,dil_w=1,bias=0";

std::string with_dir(std::string problem, const std::string& dir) {
  return problem.replace(problem.find("dir=F"), 5, "dir=" + dir);
}

TEST(MiopenFdb, NewFormatLineGivesOneRowPerSolver) {
  auto sink = import_fdb(kForwardKey +
                         "=ConvBinWinogradRxSf2x3g1:0.5,0,miopenConvolutionFwdAlgoWinograd;"
                         "GemmFwdRest:1.25,4096,miopenConvolutionFwdAlgoGEMM\n");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_TRUE(sink.skips.empty());
  const ImportedRow& first = sink.rows[0];
  EXPECT_EQ(first.problem, kForwardProblem);
  EXPECT_EQ(first.kernel, "ConvBinWinogradRxSf2x3g1");
  EXPECT_EQ(first.kernel_config, nlohmann::json({{"algorithm", "Winograd"}}));
  EXPECT_TRUE(first.valid);
  EXPECT_DOUBLE_EQ(first.time_ms, 0.5);
  EXPECT_EQ(first.line, 1);
  double flops = 2.0 * 32 * 128 * 64 * 28 * 28 * 3 * 3;
  EXPECT_NEAR(first.tflops, flops / 0.5e-3 / 1e12, 1e-9);
  EXPECT_EQ(sink.rows[1].kernel, "GemmFwdRest");
  EXPECT_EQ(sink.rows[1].kernel_config["algorithm"], "GEMM");
  EXPECT_DOUBLE_EQ(sink.rows[1].time_ms, 1.25);
}

// MIOpen searches a 5-D descriptor with its 3-D solvers: the depth-1 form of a 2-D key lists
// other solvers at other times, so it is another problem (its layout keeps the depth letter).
TEST(MiopenFdb, ThreeDimensionalKeyWithDepthOneIsAnotherProblem) {
  auto sink = import_fdb(
      "64-1-56-56-1x3x3-128-1-28-28-32-0x1x1-1x2x2-1x1x1-0-NCDHW-FP32-F="
      "GemmFwdRest:1,0,miopenConvolutionFwdAlgoGEMM\n");
  ASSERT_EQ(sink.rows.size(), 1u);
  std::string three_d = kForwardProblem;
  three_d.replace(three_d.find("layout=NCHW"), 11, "layout=NCDHW");
  EXPECT_EQ(sink.rows[0].problem, three_d);
}

TEST(MiopenFdb, ThreeDimensionalKeyKeepsDepth) {
  auto sink = import_fdb(
      "4-8-16-16-3x3x3-8-6-14-14-2-0x0x0-1x1x1-1x1x1-1-NCDHW-FP16-F="
      "ConvDirectNaiveConvFwd:2,0,miopenConvolutionFwdAlgoDirect\n");
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].problem,
            "device=gfx90a68,dir=F,dtype=fp16,layout=NCDHW,n=2,c=4,k=8,g=1,di=8,hi=16,wi=16,z=3,"
            "y=3,x=3,do=6,ho=14,wo=14,pad_d=0,pad_h=0,pad_w=0,stride_d=1,stride_h=1,stride_w=1,"
            "dil_d=1,dil_h=1,dil_w=1,bias=1");
  EXPECT_NEAR(sink.rows[0].tflops, 2.0 * 2 * 8 * 4 * 6 * 14 * 14 * 27 / 2e-3 / 1e12, 1e-12);
}

// Backward keys list dy first; the problem names the forward convolution in every direction.
TEST(MiopenFdb, BackwardKeysAreStoredInForwardTerms) {
  auto sink = import_fdb(
      "128-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-B="
      "GemmBwdRest:3,0,miopenConvolutionBwdDataAlgoGEMM\n"
      "128-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-W="
      "GemmWrwUniversal:4,0,miopenConvolutionBwdWeightsAlgoGEMM\n");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[0].problem, with_dir(kForwardProblem, "B"));
  EXPECT_EQ(sink.rows[1].problem, with_dir(kForwardProblem, "W"));
  EXPECT_EQ(sink.rows[0].kernel_config["algorithm"], "GEMM");
  EXPECT_EQ(sink.rows[1].line, 2);
  // Same geometry, so the same flop count as the forward problem.
  double flops = 2.0 * 32 * 128 * 64 * 28 * 28 * 3 * 3;
  EXPECT_NEAR(sink.rows[0].tflops, flops / 3e-3 / 1e12, 1e-9);
}

TEST(MiopenFdb, GroupsSuffix) {
  auto sink = import_fdb(
      "1024-14-14-3x3-1024-14-14-8-1x1-1x1-1x1-0-NCHW-BF16-F_g32="
      "ConvMlirIgemmFwdXdlops:0.2,0,miopenConvolutionFwdAlgoImplicitGEMM\n");
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_THAT(sink.rows[0].problem, HasSubstr("dtype=bf16,layout=NCHW,n=8,c=1024,k=1024,g=32,"));
  EXPECT_EQ(sink.rows[0].kernel_config["algorithm"], "ImplicitGEMM");
  double flops = 2.0 * 8 * 1024 * (1024 / 32) * 14 * 14 * 3 * 3;
  EXPECT_NEAR(sink.rows[0].tflops, flops / 0.2e-3 / 1e12, 1e-9);
}

TEST(MiopenFdb, OldEntryFormat) {
  auto sink = import_fdb(
      "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP16-B="
      "miopenConvolutionBwdDataAlgoImplicitGEMM:ConvMlirIgemmBwd,0.01024,0,"
      "miopenConvolutionBwdDataAlgoImplicitGEMM,<unused>;"
      "miopenConvolutionBwdDataAlgoGEMM:GemmBwdRest,0.02,64,miopenConvolutionBwdDataAlgoGEMM,"
      "<unused>\n");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[0].kernel, "ConvMlirIgemmBwd");
  EXPECT_EQ(sink.rows[0].kernel_config["algorithm"], "ImplicitGEMM");
  EXPECT_DOUBLE_EQ(sink.rows[0].time_ms, 0.01024);
  EXPECT_EQ(sink.rows[1].kernel, "GemmBwdRest");
  // dy is 1x1 with 1 channel: the forward problem reads 2 channels of 3x3 into 1 of 1x1.
  EXPECT_THAT(sink.rows[0].problem, HasSubstr("dir=B,dtype=fp16,layout=NCHW,n=128,c=2,k=1,g=1,"
                                              "di=1,hi=3,wi=3,z=1,y=3,x=3,do=1,ho=1,wo=1,"));
}

TEST(MiopenFdb, ThreeLayoutKeys) {
  auto sink = import_fdb(
      "1024-14-14-1x1-256-14-14-256-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F=S:1,0,A\n"
      "8-2-4-4-1x1x1-8-2-4-4-1-0x0x0-1x1x1-1x1x1-0-NDHWC-NDHWC-NDHWC-INT8-F=S:1,0,A\n"
      "8-4-4-1x1-16-4-4-1-0x0-1x1-1x1-0-NHWC-NCHW-NCHW-FP32-F=S:1,0,A\n"
      "16-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NHWC-NCHW-NCHW-FP32-W=S:1,0,A\n");
  ASSERT_EQ(sink.rows.size(), 4u) << (sink.skips.empty() ? "" : sink.skips[0].reason);
  EXPECT_THAT(sink.rows[0].problem, HasSubstr(",layout=NHWC,"));
  EXPECT_THAT(sink.rows[1].problem, HasSubstr(",dtype=int8,layout=NDHWC,"));
  // Different layouts: input.weights.output in forward terms.
  EXPECT_THAT(sink.rows[2].problem, HasSubstr(",layout=NHWC.NCHW.NCHW,"));
  EXPECT_THAT(sink.rows[3].problem, HasSubstr(",layout=NCHW.NCHW.NHWC,"));
  EXPECT_EQ(sink.rows[0].kernel_config["algorithm"], "A");  // not a MIOpen name: kept as is
}

TEST(MiopenFdb, ZeroAndNegativeTimesAreInvalidRows) {
  auto sink = import_fdb(kForwardKey +
                         "=A:0,0,miopenConvolutionFwdAlgoGEMM;B:-1,0,miopenConvolutionFwdAlgoGEMM;"
                         "C:inf,0,miopenConvolutionFwdAlgoGEMM;D:0.000,0,X\n");
  ASSERT_EQ(sink.rows.size(), 4u);
  for (const auto& row : sink.rows) {
    EXPECT_FALSE(row.valid);
    EXPECT_TRUE(std::isnan(row.tflops));
  }
  EXPECT_EQ(sink.rows[0].reason, "time 0 ms");
  EXPECT_EQ(sink.rows[1].reason, "time -1 ms");
  EXPECT_EQ(sink.rows[2].reason, "time not finite");
  EXPECT_EQ(sink.rows[3].reason, "time 0 ms");  // as the shipped files write it: "0.0"
}

TEST(MiopenFdb, MalformedKeysSkipTheLineNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-0-NCHW-FP32-F", "field 'key'"},  // a field missing
      {"64-56-56-3x3-128-28-28-32-FP32-F", "at least 15 fields"},
      {"6a-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F", "field 'c': not an integer '6a'"},
      {"64-56-56-3x-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F", "field 'filter'"},
      {"64-56-56-3x3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F", "field 'filter'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-X", "field 'dir'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-2-NCHW-FP32-F", "field 'bias'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-NCHW-FP32-F", "field 'layout'"},
      {"64-56-56-3x3-128-28-28-0-1x1-2x2-1x1-0-NCHW-FP32-F", "field 'n': must be at least 1"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-F-P-F", "field 'layout'"},
      {"64-56-56-3x3-128-28-28-99999999999999999999-1x1-2x2-1x1-0-NCHW-FP32-F", "field 'n'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F_g3", "field 'g'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F_gx", "field 'g'"},
      {"64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-F*32-F", "field 'dtype'"},
  };
  for (const auto& [key, expected] : cases) {
    auto sink = import_fdb(key + "=S:1,0,miopenConvolutionFwdAlgoGEMM\n");
    EXPECT_TRUE(sink.rows.empty()) << key;
    ASSERT_EQ(sink.skips.size(), 1u) << key;
    EXPECT_EQ(sink.skips[0].line, 1);
    EXPECT_THAT(sink.skips[0].reason, HasSubstr("key: "));
    EXPECT_THAT(sink.skips[0].reason, HasSubstr(expected)) << key;
  }
}

TEST(MiopenFdb, MalformedEntriesSkipOnlyThatEntry) {
  auto sink = import_fdb(kForwardKey +
                         "=Good:1,0,miopenConvolutionFwdAlgoGEMM;NoColon;Bad:abc,0,X;"
                         "Few:1,0;:1,0,X;Also:2,0,miopenConvolutionFwdAlgoDirect;\n");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[1].kernel, "Also");
  ASSERT_EQ(sink.skips.size(), 4u);
  EXPECT_EQ(sink.skips[0].reason, "entry 2: field 'entry': no ':' after the solver");
  EXPECT_EQ(sink.skips[1].reason, "entry 3: field 'time': not a number 'abc'");
  EXPECT_THAT(sink.skips[2].reason, HasSubstr("entry 4: field 'entry': expected 3"));
  EXPECT_EQ(sink.skips[3].reason, "entry 5: field 'solver': empty");
  // Found by fuzzing: a byte that is not UTF-8 must not reach the kernel's JSON parameters.
  auto bytes = import_fdb(kForwardKey + "=A:1,0,Gemm\x94;B\x94:1,0,X;C d:1,0,X\n");
  EXPECT_TRUE(bytes.rows.empty());
  ASSERT_EQ(bytes.skips.size(), 3u);
  EXPECT_EQ(bytes.skips[0].reason, "entry 1: field 'algorithm': not a plain ASCII name");
  EXPECT_EQ(bytes.skips[1].reason, "entry 2: field 'solver': not a plain ASCII name");
}

TEST(MiopenFdb, TruncatedLinesEmptyLinesAndCrLf) {
  auto sink = import_fdb("\r\n" + kForwardKey + "=A:1,0,X\r\n\n" + kForwardKey + "=A:1,0\n" +
                         kForwardKey + "\n" + kForwardKey.substr(0, 20));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].line, 2);
  EXPECT_EQ(sink.rows[0].kernel_config["algorithm"], "X");
  ASSERT_EQ(sink.skips.size(), 3u);
  EXPECT_EQ(sink.skips[0].line, 4);
  EXPECT_THAT(sink.skips[0].reason, HasSubstr("entry 1"));
  EXPECT_EQ(sink.skips[1].line, 5);
  EXPECT_THAT(sink.skips[1].reason, HasSubstr("no '='"));
  EXPECT_EQ(sink.skips[2].line, 6);
}

TEST(MiopenFdb, EmptyFileHasNoRows) {
  auto sink = import_fdb("");
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_TRUE(sink.skips.empty());
}

TEST(MiopenFdb, BinaryGarbage) {
  std::string with_nul = kForwardKey + "=A:1,0,X\n" + std::string("\x89PNG\0\x01\x02", 7);
  EXPECT_THROW(import_fdb(with_nul), InputError);
  // Without NUL bytes garbage is just lines that do not parse.
  std::string garbage;
  for (int i = 0; i < 3000; ++i) garbage += char((i * 7919) % 255 + 1);
  auto sink = import_fdb(garbage);
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_FALSE(sink.skips.empty());
}

TEST(MiopenFdb, HugeNumbers) {
  auto sink = import_fdb(
      "9000000000000000000-56-56-3x3-9000000000000000000-28-28-9000000000000000000-1x1-2x2-1x1-0-"
      "NCHW-FP32-F=A:1e308,0,X;B:1e-300,0,X\n");
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_TRUE(sink.rows[0].valid);
  EXPECT_TRUE(std::isfinite(sink.rows[0].tflops));
  EXPECT_TRUE(sink.rows[1].valid);
  EXPECT_TRUE(std::isnan(sink.rows[1].tflops));  // overflows: left unknown
  auto too_big = import_fdb(kForwardKey + "=A:1e999,0,X\n");
  ASSERT_EQ(too_big.skips.size(), 1u);
  EXPECT_THAT(too_big.skips[0].reason, HasSubstr("field 'time'"));
}

// The rows are conv problems: the conv op's codec gives every text back unchanged, 3-D keys,
// groups, three layouts and backward directions included.
TEST(MiopenFdb, RowsAreConvProblems) {
  EXPECT_EQ(find_importer("miopen-fdb").op(), "conv");
  const Operation& conv = find_operation("conv");
  for (const char* name : {"groups.txt", "new_3d.txt", "new_2d_fp16.txt", "old_format_bf16.txt",
                           "int8.txt", "three_layouts.txt"}) {
    std::ifstream in(std::string(KSELECT_SOURCE_DIR) + "/fuzz/corpus/miopen-fdb/" + name);
    std::stringstream text;
    text << in.rdbuf();
    auto sink = import_fdb(text.str());
    EXPECT_FALSE(sink.rows.empty()) << name;
    for (const auto& row : sink.rows)
      EXPECT_EQ(conv.canonical_problem(row.problem, name), row.problem) << name;
  }
}

TEST(MiopenFdb, DeviceFromFileNameOrOption) {
  const Importer& importer = find_importer("miopen-fdb");
  EXPECT_EQ(importer.device_from_name("/x/gfx90a68.HIP.fdb.txt.bz2"), "gfx90a68");
  EXPECT_EQ(importer.device_from_name("gfx906_60.HIP.fdb.txt"), "gfx906_60");
  EXPECT_EQ(importer.device_from_name("/x/find.txt"), "");
  auto sink = import_fdb(kForwardKey + "=A:1,0,X\n", "", "MI210");
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].problem.substr(0, 19), "device=MI210,dir=F,");
  auto unnamed = kselect::testing::collect_text("miopen-fdb", kForwardKey + "=A:1,0,X\n", "a.txt");
  // An imported conv problem always names its device (conv::is_imported_text).
  EXPECT_EQ(unnamed.rows[0].problem.substr(0, 21), "device=unknown,dir=F,");
  EXPECT_THROW(import_fdb("", "devcie=x"), InputError);
  EXPECT_THROW(import_fdb("", "", "a b"), InputError);
  EXPECT_THROW(import_fdb("", "device=MI210"), InputError);  // --device, not a setting
}

// The shipped files: counts per direction and dtype go to the log and the format document.
struct ShippedCounts {
  size_t rows = 0, invalid = 0, skips = 0;
  std::set<std::string> problems, lines, solvers, dtypes;
  std::map<std::string, std::array<size_t, 3>> by_dir_dtype;  // rows, problems, invalid
};

std::string shipped_path(const std::string& name) {
  return std::string(KSELECT_SHARED_DATA_DIR) + "/miopen/" + name;
}

// Imports a shipped find-db. The tests skip only when the file is absent: a present file that
// yields no rows fails them.
ShippedCounts import_shipped(const std::string& name, double* seconds) {
  const std::string path = shipped_path(name);
  auto start = std::chrono::steady_clock::now();
  auto sink = kselect::testing::collect_file("miopen-fdb", path);
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ShippedCounts counts;
  counts.rows = sink.rows.size();
  counts.skips = sink.skips.size();
  std::set<std::string> seen_problem_dir;
  for (const auto& row : sink.rows) {
    counts.invalid += !row.valid;
    counts.problems.insert(row.problem);
    counts.lines.insert(std::to_string(row.line));
    counts.solvers.insert(row.kernel);
    auto dtype_at = row.problem.find("dtype=") + 6;
    std::string dtype = row.problem.substr(dtype_at, row.problem.find(',', dtype_at) - dtype_at);
    counts.dtypes.insert(dtype);
    std::string dir = row.problem.substr(row.problem.find("dir=") + 4, 1);
    auto& cell = counts.by_dir_dtype[dir + " " + dtype];
    cell[0] += 1;
    cell[1] += seen_problem_dir.insert(row.problem).second;
    cell[2] += !row.valid;
  }
  std::printf(
      "%s: %zu lines with rows, %zu problems, %zu rows (%zu invalid), %zu skips, "
      "%zu solvers, %.2f s\n  dir dtype   problems     rows  invalid\n",
      name.c_str(), counts.lines.size(), counts.problems.size(), counts.rows, counts.invalid,
      counts.skips, counts.solvers.size(), *seconds);
  for (const auto& [cell, n] : counts.by_dir_dtype)
    std::printf("  %-9s %8zu %8zu %8zu\n", cell.c_str(), n[1], n[0], n[2]);
  return counts;
}

TEST(MiopenFdbShipped, Gfx90a68) {
  double seconds = 0;
  const std::string path = shipped_path("gfx90a68.HIP.fdb.txt.bz2");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto counts = import_shipped("gfx90a68.HIP.fdb.txt.bz2", &seconds);
  ASSERT_GT(counts.rows, 0u) << path << ": the importer returned no rows";
  EXPECT_EQ(counts.lines.size(), 193590u);  // every line yields rows
  EXPECT_EQ(counts.rows, 648924u);
  EXPECT_EQ(counts.invalid, 1179u);  // time 0
  EXPECT_EQ(counts.skips, 0u);
  EXPECT_EQ(counts.solvers.size(), 62u);
  EXPECT_EQ(counts.dtypes, (std::set<std::string>{"bf16", "fp16", "fp32", "int8"}));
  // One problem per line: a 3-D depth-1 form (65,821 lines) is not its 2-D key's problem.
  EXPECT_EQ(counts.problems.size(), 193590u);
  EXPECT_LT(seconds, 60.0) << "importing one find-db must take seconds";
}

TEST(MiopenFdbShipped, Gfx906OldFormat) {
  double seconds = 0;
  const std::string path = shipped_path("gfx906_60.HIP.fdb.txt.bz2");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto counts = import_shipped("gfx906_60.HIP.fdb.txt.bz2", &seconds);
  ASSERT_GT(counts.rows, 0u) << path << ": the importer returned no rows";
  EXPECT_EQ(counts.lines.size(), 120454u);
  EXPECT_EQ(counts.rows, 244451u);
  EXPECT_EQ(counts.invalid, 0u);
  EXPECT_EQ(counts.skips, 0u);
  EXPECT_EQ(counts.solvers.size(), 63u);
  EXPECT_EQ(counts.dtypes, (std::set<std::string>{"bf16", "fp16", "fp32", "int8"}));
}

}  // namespace
}  // namespace kselect::importers
