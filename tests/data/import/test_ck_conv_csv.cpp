#include <gtest/gtest.h>

#include "core/error.h"
#include "import_collector.h"
#include "ops/operation.h"

namespace kselect::testing {
namespace {

using nlohmann::json;

const char* kFwdProblem =
    "n=32,c=256,k=256,g=1,di=1,hi=56,wi=56,z=1,y=3,x=3,do=1,ho=56,wo=56,pad_d=0,pad_h=1,pad_w=1,"
    "stride_d=1,stride_h=1,stride_w=1,dil_d=1,dil_h=1,dil_w=1,dir=F,dtype=bf16,device=unknown";
const char* kStridedGeometry =
    "n=16,c=64,k=128,g=2,di=1,hi=28,wi=28,z=1,y=1,x=1,do=1,ho=14,wo=14,pad_d=0,pad_h=0,pad_w=0,"
    "stride_d=1,stride_h=2,stride_w=2,dil_d=1,dil_h=1,dil_w=1";

TEST(CkConvCsv, FixtureRowsExactly) {
  auto sink = collect_text("ck-conv-csv", fixture_text("ck/conv_bench.csv"));
  ASSERT_EQ(sink.rows.size(), 5u);
  const auto& fwd = sink.rows[0];
  EXPECT_EQ(fwd.problem, kFwdProblem);
  EXPECT_EQ(fwd.line, 2);
  EXPECT_TRUE(fwd.valid);
  EXPECT_DOUBLE_EQ(fwd.time_ms, 0.412);
  EXPECT_DOUBLE_EQ(fwd.tflops, 287.33);
  EXPECT_EQ(fwd.kernel_config["layout"], "nhwgc");
  EXPECT_EQ(fwd.kernel_config["tile_m"], 128);
  EXPECT_EQ(fwd.kernel_config["warp_tile_k"], 16);
  EXPECT_EQ(fwd.kernel_config["specialization"], "default");

  const auto& short_form = sink.rows[1];
  EXPECT_EQ(short_form.problem, kFwdProblem);  // same problem, other kernel
  double flops = 2.0 * 32 * 256 * 256 * 56 * 56 * 3 * 3;
  EXPECT_NEAR(short_form.tflops, flops / 0.9e-3 / 1e12, 1e-9);  // empty tflops: computed

  EXPECT_EQ(sink.rows[2].problem,
            std::string(kStridedGeometry) + ",dir=B,dtype=fp16,device=unknown");
  EXPECT_TRUE(sink.rows[2].valid);
  EXPECT_EQ(sink.rows[3].problem,
            std::string(kStridedGeometry) + ",dir=W,dtype=fp32,device=unknown");
  EXPECT_FALSE(sink.rows[3].valid);  // non_zero 0
  EXPECT_NE(sink.rows[3].reason.find("non_zero"), std::string::npos);

  const auto& unknown = sink.rows[4];  // a name that is not CK's: an id, no dir or dtype
  EXPECT_EQ(unknown.kernel, "my_custom_conv_kernel_v2");
  EXPECT_EQ(unknown.kernel_config, json::object());
  EXPECT_EQ(unknown.problem, std::string(kStridedGeometry) + ",device=unknown");
  EXPECT_FALSE(unknown.valid);
  EXPECT_EQ(unknown.reason, "time 0 ms");
}

TEST(CkConvCsv, BadLinesAreSkippedNamingTheField) {
  auto sink = collect_text("ck-conv-csv", fixture_text("ck/conv_bench.csv"));
  ASSERT_EQ(sink.skips.size(), 2u);
  EXPECT_EQ(sink.skips[0].line, 7);
  EXPECT_EQ(sink.skips[0].reason, "field 'Y': not a positive integer: 'abc'");
  EXPECT_EQ(sink.skips[1].line, 8);
  EXPECT_EQ(sink.skips[1].reason, "field 'latency_ms': not a number: '1e400'");
}

TEST(CkConvCsv, WithoutProblemIdx) {
  auto sink = collect_text("ck-conv-csv", fixture_text("ck/conv_bench_noidx.csv"));
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_TRUE(sink.skips.empty());
  const char* depthwise =
      "n=8,c=128,k=128,g=128,di=1,hi=14,wi=14,z=1,y=3,x=3,do=1,ho=7,wo=7,pad_d=0,pad_h=1,"
      "pad_w=1,stride_d=1,stride_h=2,stride_w=2,dil_d=1,dil_h=1,dil_w=1,dir=F,dtype=bf16,"
      "device=unknown";
  EXPECT_EQ(sink.rows[0].problem, depthwise);
  EXPECT_FALSE(sink.rows[0].valid);
  EXPECT_EQ(sink.rows[0].reason, "tflops -3");
  EXPECT_EQ(sink.rows[1].problem, depthwise);
  EXPECT_FALSE(sink.rows[1].valid);
  EXPECT_EQ(sink.rows[1].reason, "time -0.5 ms");
  // Both short forms differ only in the scheduler: their parameters must differ too.
  EXPECT_NE(sink.rows[0].kernel_config, sink.rows[1].kernel_config);
}

// The rows are conv problems: the conv op's codec gives each text back unchanged.
TEST(CkConvCsv, RowsAreConvProblems) {
  EXPECT_EQ(importers::find_importer("ck-conv-csv").op(), "conv");
  const Operation& conv = find_operation("conv");
  auto sink = collect_text("ck-conv-csv", fixture_text("ck/conv_bench.csv"), "", "", "gfx942");
  ASSERT_FALSE(sink.rows.empty());
  for (const auto& row : sink.rows) {
    EXPECT_NE(row.problem.find(",device=gfx942"), std::string::npos) << row.problem;
    EXPECT_EQ(conv.canonical_problem(row.problem, "test"), row.problem);
  }
}

// Di, Z, stride_d, pad_d and the dilations are read, so a 3-D row is its own problem; given
// output sizes are checked against the geometry.
TEST(CkConvCsv, DepthAndDilationColumns) {
  const std::string header =
      "kernel,N,C,K,G,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dilation_d,"
      "dilation_h,dilation_w,Do,Ho,Wo,latency_ms\n";
  auto sink = collect_text(
      "ck-conv-csv", header +
                         "grouped_conv_fwd_bf16_ndhwgc_3d_compv3_cshuffle_intrawave_128x128x32_"
                         "2x2x1_32x32x16,2,8,16,1,9,10,10,3,3,3,2,1,1,1,1,1,1,2,2,5,8,8,0.5\n"
                         "k,2,8,16,1,1,10,10,1,3,3,1,1,1,0,1,1,1,1,1,1,10,10,0.5\n"
                         "k,2,8,16,1,,10,10,,3,3,,1,1,,1,1,,,,,10,10,0.5\n"
                         "k,2,8,16,1,1,10,10,1,3,3,1,1,1,0,1,1,1,1,1,1,9,10,0.5\n"
                         "k,2,8,16,1,1,10,10,1,3,3,1,1,1,0,1,1,1,0,1,1,10,10,0.5\n"
                         "k,2,8,16,1,3,10,10,5,3,3,1,1,1,0,1,1,1,1,1,1,10,10,0.5\n");
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_EQ(sink.rows[0].problem,
            "n=2,c=8,k=16,g=1,di=9,hi=10,wi=10,z=3,y=3,x=3,do=5,ho=8,wo=8,pad_d=1,pad_h=1,"
            "pad_w=1,stride_d=2,stride_h=1,stride_w=1,dil_d=1,dil_h=2,dil_w=2,dir=F,dtype=bf16,"
            "device=unknown");
  EXPECT_NEAR(sink.rows[0].tflops, 2.0 * 2 * 16 * 8 * 5 * 8 * 8 * 27 / 0.5e-3 / 1e12, 1e-12);
  const std::string flat =
      "n=2,c=8,k=16,g=1,di=1,hi=10,wi=10,z=1,y=3,x=3,do=1,ho=10,wo=10,pad_d=0,pad_h=1,pad_w=1,"
      "stride_d=1,stride_h=1,stride_w=1,dil_d=1,dil_h=1,dil_w=1,device=unknown";
  EXPECT_EQ(sink.rows[1].problem, flat);
  EXPECT_EQ(sink.rows[2].problem, flat);  // empty optional cells: the 2-D defaults
  EXPECT_NE(sink.rows[0].problem, flat);  // the 3-D row is not merged into a 2-D shape
  expect_skips(sink, {{5, "field 'Ho': is 9 but the geometry gives 10"},
                      {6, "field 'dilation_h': not a positive integer: '0'"},
                      {7, "field 'Z': the dilated filter is larger than the padded input"}});
}

TEST(CkConvCsv, HeaderProblemsAreInputErrors) {
  std::string good = fixture_text("ck/conv_bench_noidx.csv");
  std::string no_pad_w = good;
  no_pad_w.replace(no_pad_w.find(",pad_w"), 6, "");
  std::string semicolons = good;
  for (char& c : semicolons)
    if (c == ',') c = ';';
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "no header"},
           {no_pad_w, "field 'pad_w'"},
           {semicolons, "not comma-separated"},
           {std::string("\x00\x01\xff\xfe\n\x7f,\x80\n", 8), "column missing"}}) {
    try {
      collect_text("ck-conv-csv", text);
      ADD_FAILURE() << "no error for " << expected;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST(CkConvCsv, RowProblems) {
  std::string header =
      "kernel,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,non_zero\n";
  auto sink = collect_text("ck-conv-csv",
                           header +
                               "k,1,8,8,1,4,4,3,3,1,1,0,0,1,1\n"   // fine, tflops computed
                               "k,1,8,8,1,4,4,3,3,1,1,0,0,1\n"     // truncated line
                               "k,1,8,8,3,4,4,3,3,1,1,0,0,1,1\n"   // C not a multiple of G
                               "k,1,8,8,1,2,2,3,3,1,1,0,0,1,1\n"   // filter larger than input
                               "k,1,8,8,1,4,4,3,3,0,1,0,0,1,1\n"   // stride 0
                               "k,1,8,8,1,4,4,3,3,1,1,-1,0,1,1\n"  // negative pad
                               "k,99999999999999999999,8,8,1,4,4,3,3,1,1,0,0,1,1\n"
                               "k,1,8,8,1,4,4,3,3,1,1,0,0,1,maybe\n"
                               ",1,8,8,1,4,4,3,3,1,1,0,0,1,1\n"
                               "\"k,quoted\",1,8,8,1,4,4,3,3,1,1,0,0,inf,1\n"
                               "\n"
                               "k,1,8,8,1,4,4,3,3,1,1,0,0,1,1");  // last line without newline
  ASSERT_EQ(sink.rows.size(), 3u);
  EXPECT_NEAR(sink.rows[0].tflops, 2.0 * 8 * 8 * 2 * 2 * 3 * 3 / 1e9, 1e-18);
  EXPECT_EQ(sink.rows[1].kernel, "k,quoted");
  EXPECT_FALSE(sink.rows[1].valid);
  EXPECT_EQ(sink.rows[1].reason, "time not finite");
  EXPECT_EQ(sink.rows[2].line, 13);
  std::vector<std::pair<long, std::string>> expected = {
      {3, "expected 15 fields, found 14"},
      {4, "field 'G'"},
      {5, "field 'Y': the dilated filter is larger"},
      {6, "field 'stride_h'"},
      {7, "field 'pad_h': not a non-negative integer"},
      {8, "field 'N'"},
      {9, "field 'non_zero'"},
      {10, "field 'kernel': empty"}};
  expect_skips(sink, expected);
}

}  // namespace
}  // namespace kselect::testing
