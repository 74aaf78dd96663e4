#include <gtest/gtest.h>

#include "core/error.h"
#include "data/import/ck_common.h"
#include "import_collector.h"

namespace kselect::testing {
namespace {

using importers::ck::parse_conv_kernel_name;
using nlohmann::json;

const char* kFwdProblem =
    "n=32,c=256,k=256,g=1,di=1,hi=56,wi=56,z=1,y=3,x=3,do=1,ho=56,wo=56,pad_d=0,pad_h=1,pad_w=1,"
    "stride_d=1,stride_h=1,stride_w=1,dil_d=1,dil_h=1,dil_w=1,dir=F,dtype=bf16";
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

  EXPECT_EQ(sink.rows[2].problem, std::string(kStridedGeometry) + ",dir=B,dtype=fp16");
  EXPECT_TRUE(sink.rows[2].valid);
  EXPECT_EQ(sink.rows[3].problem, std::string(kStridedGeometry) + ",dir=W,dtype=fp32");
  EXPECT_FALSE(sink.rows[3].valid);  // non_zero 0
  EXPECT_NE(sink.rows[3].reason.find("non_zero"), std::string::npos);

  const auto& unknown = sink.rows[4];  // a name that is not CK's: an id, no dir or dtype
  EXPECT_EQ(unknown.kernel, "my_custom_conv_kernel_v2");
  EXPECT_EQ(unknown.kernel_config, json::object());
  EXPECT_EQ(unknown.problem, kStridedGeometry);
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
      "pad_w=1,stride_d=1,stride_h=2,stride_w=2,dil_d=1,dil_h=1,dil_w=1,dir=F,dtype=bf16";
  EXPECT_EQ(sink.rows[0].problem, depthwise);
  EXPECT_FALSE(sink.rows[0].valid);
  EXPECT_EQ(sink.rows[0].reason, "tflops -3");
  EXPECT_EQ(sink.rows[1].problem, depthwise);
  EXPECT_FALSE(sink.rows[1].valid);
  EXPECT_EQ(sink.rows[1].reason, "time -0.5 ms");
  // Both short forms differ only in the scheduler: their parameters must differ too.
  EXPECT_NE(sink.rows[0].kernel_config, sink.rows[1].kernel_config);
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
      {5, "field 'Y': the filter is larger"},
      {6, "field 'stride_h'"},
      {7, "field 'pad_h': not a non-negative integer"},
      {8, "field 'N'"},
      {9, "field 'non_zero'"},
      {10, "field 'kernel': empty"}};
  expect_skips(sink, expected);
}

TEST(CkConvName, LongFormWithSuffixes) {
  auto name = parse_conv_kernel_name(
      "grouped_conv_bwd_data_fp16_nhwgc_2d_compv4_cshuffle_intrawave_64x64x64_2x2x1_32x32x16_"
      "vec8_8_8_dsb_filter1x1stride1pad0_pad111");
  EXPECT_EQ(name.dir, "B");
  EXPECT_EQ(name.dtype, "fp16");
  EXPECT_EQ(name.config, json::parse(R"({"layout":"nhwgc","ndim":2,"pipeline":"compv4",
      "epilogue":"cshuffle","scheduler":"intrawave","tile_m":64,"tile_n":64,"tile_k":64,
      "warp_m":2,"warp_n":2,"warp_k":1,"warp_tile_m":32,"warp_tile_n":32,"warp_tile_k":16,
      "vec_a":8,"vec_b":8,"vec_c":8,"wg":0,"gm":0,"dsb":1,"two_stage":0,
      "specialization":"filter1x1stride1pad0","explicit_gemm":0,"streamk":"none",
      "streamk_persistent":0,"large_tensor":0,"pad_m":1,"pad_n":1,"pad_k":1})"));

  auto all = parse_conv_kernel_name(
      "grouped_conv_bwd_weight_bf16_ndhwgc_3d_compv3_default_interwave_128x64x32_4x1x1_16x16x16_"
      "vec4_2_1_wg2_gm8_dsb_2stage_oddc_explicit_gemm_streamk_linear_persistent_large_tensor_"
      "pad010");
  EXPECT_EQ(all.dir, "W");
  EXPECT_EQ(all.config["ndim"], 3);
  EXPECT_EQ(all.config["wg"], 2);
  EXPECT_EQ(all.config["gm"], 8);
  EXPECT_EQ(all.config["two_stage"], 1);
  EXPECT_EQ(all.config["specialization"], "oddc");
  EXPECT_EQ(all.config["explicit_gemm"], 1);
  EXPECT_EQ(all.config["streamk"], "linear");
  EXPECT_EQ(all.config["streamk_persistent"], 1);
  EXPECT_EQ(all.config["large_tensor"], 1);
  EXPECT_EQ(all.config["pad_n"], 1);
  EXPECT_EQ(all.config["pad_k"], 0);
}

TEST(CkConvName, ShortFormKeepsEverySuffixDistinct) {
  auto plain = parse_conv_kernel_name("grouped_conv_forward_bf16_2d_16x64x64_compv3");
  EXPECT_EQ(plain.dir, "F");
  EXPECT_EQ(plain.config, json::parse(R"({"ndim":2,"tile_m":16,"tile_n":64,"tile_k":64,
      "pipeline":"compv3","scheduler":"default","dsb":0,"si":0})"));
  auto full =
      parse_conv_kernel_name("grouped_conv_forward_bf16_2d_16x64x64_compv3_interwave_dsb_si");
  EXPECT_EQ(full.config["scheduler"], "interwave");
  EXPECT_EQ(full.config["dsb"], 1);
  EXPECT_EQ(full.config["si"], 1);
  EXPECT_EQ(parse_conv_kernel_name("grouped_conv_backward_weight_fp16_2d_16x64x64_mem").dir, "W");
}

TEST(CkConvName, UnparseableNamesAreIds) {
  for (const char* bad :
       {// suffixes out of order, unknown trailing token in the short form, bad tile
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_"
        "dsb_vec8_8_8",
        "grouped_conv_forward_bf16_2d_16x64x64_compv3_si_dsb",
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128_2x2x1_32x32x16",
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_"
        "vec8_8_99999999999999999999"}) {
    auto name = parse_conv_kernel_name(bad);
    EXPECT_EQ(name.config, json::object()) << bad;
    EXPECT_EQ(name.dir, "F") << bad;  // the head is still read
  }
  EXPECT_EQ(parse_conv_kernel_name("grouped_conv_sideways_bf16_2d_16x64x64_compv3").dir, "");
  EXPECT_EQ(parse_conv_kernel_name("").dtype, "");
}

}  // namespace
}  // namespace kselect::testing
