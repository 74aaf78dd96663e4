#include "ops/conv/ck_names.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace kselect::conv {
namespace {

using nlohmann::json;

TEST(ConvCkNames, LongFormWithSuffixes) {
  auto name = parse_ck_kernel_name(
      "grouped_conv_bwd_data_fp16_nhwgc_2d_compv4_cshuffle_intrawave_64x64x64_2x2x1_32x32x16_"
      "vec8_8_8_dsb_filter1x1stride1pad0_pad111");
  EXPECT_EQ(name.dir, Direction::kBackwardData);
  EXPECT_EQ(name.dtype, "fp16");
  EXPECT_EQ(name.config, json::parse(R"({"layout":"nhwgc","ndim":2,"pipeline":"compv4",
      "epilogue":"cshuffle","scheduler":"intrawave","tile_m":64,"tile_n":64,"tile_k":64,
      "warp_m":2,"warp_n":2,"warp_k":1,"warp_tile_m":32,"warp_tile_n":32,"warp_tile_k":16,
      "vec_a":8,"vec_b":8,"vec_c":8,"wg":0,"gm":0,"dsb":1,"two_stage":0,
      "specialization":"filter1x1stride1pad0","explicit_gemm":0,"streamk":"none",
      "streamk_persistent":0,"large_tensor":0,"pad_m":1,"pad_n":1,"pad_k":1})"));

  auto all = parse_ck_kernel_name(
      "grouped_conv_bwd_weight_bf16_ndhwgc_3d_compv3_default_interwave_128x64x32_4x1x1_16x16x16_"
      "vec4_2_1_wg2_gm8_dsb_2stage_oddc_explicit_gemm_streamk_linear_persistent_large_tensor_"
      "pad010");
  EXPECT_EQ(all.dir, Direction::kBackwardWeight);
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

// si (a pipeline variant's flag, written after dsb as in the short form) is set only when
// present, so names without it parse as before; it may not come after 2stage.
TEST(ConvCkNames, LongFormSiAfterDsb) {
  const std::string head =
      "grouped_conv_fwd_fp16_nhwgc_2d_mem_cshuffle_interwave_64x64x32_2x2x1_32x32x16_vec8_8_8";
  auto si = parse_ck_kernel_name(head + "_dsb_si_filter3x3");
  EXPECT_EQ(si.config["si"], 1);
  EXPECT_EQ(si.config["dsb"], 1);
  EXPECT_EQ(si.config["specialization"], "filter3x3");
  EXPECT_EQ(format_ck_kernel_name(si), head + "_dsb_si_filter3x3");
  EXPECT_FALSE(parse_ck_kernel_name(head + "_dsb").config.contains("si"));
  EXPECT_EQ(parse_ck_kernel_name(head + "_2stage_si").config, json::object());
  EXPECT_EQ(parse_ck_kernel_name(head + "_si_dsb").config, json::object());
}

// CK's basic pipeline, basic_v1, is one field in both forms.
TEST(ConvCkNames, BasicV1Pipeline) {
  const std::string long_form =
      "grouped_conv_bwd_data_bf16_nhwgc_2d_basic_v1_cshuffle_interwave_64x64x32_2x2x1_32x32x16_"
      "vec8_8_8_dsb";
  auto parsed = parse_ck_kernel_name(long_form);
  EXPECT_EQ(parsed.config["pipeline"], "basic_v1");
  EXPECT_EQ(parsed.config["epilogue"], "cshuffle");
  EXPECT_EQ(format_ck_kernel_name(parsed), long_form);
  auto short_form = parse_ck_kernel_name("grouped_conv_forward_fp16_2d_64x64x32_basic_v1_si");
  EXPECT_EQ(short_form.config["pipeline"], "basic_v1");
  EXPECT_EQ(short_form.config["si"], 1);
  EXPECT_EQ(format_ck_kernel_name(short_form), "grouped_conv_forward_fp16_2d_64x64x32_basic_v1_si");
}

TEST(ConvCkNames, ShortFormKeepsEverySuffixDistinct) {
  auto plain = parse_ck_kernel_name("grouped_conv_forward_bf16_2d_16x64x64_compv3");
  EXPECT_EQ(plain.dir, Direction::kForward);
  EXPECT_EQ(plain.config, json::parse(R"({"ndim":2,"tile_m":16,"tile_n":64,"tile_k":64,
      "pipeline":"compv3","scheduler":"default","dsb":0,"si":0})"));
  auto full = parse_ck_kernel_name("grouped_conv_forward_bf16_2d_16x64x64_compv3_interwave_dsb_si");
  EXPECT_EQ(full.config["scheduler"], "interwave");
  EXPECT_EQ(full.config["dsb"], 1);
  EXPECT_EQ(full.config["si"], 1);
  EXPECT_EQ(parse_ck_kernel_name("grouped_conv_backward_weight_fp16_2d_16x64x64_mem").dir,
            Direction::kBackwardWeight);
}

TEST(ConvCkNames, UnparseableNamesAreIds) {
  for (const char* bad :
       {// suffixes out of order, unknown trailing token in the short form, bad tile
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_"
        "dsb_vec8_8_8",
        "grouped_conv_forward_bf16_2d_16x64x64_compv3_si_dsb",
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128_2x2x1_32x32x16",
        "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_"
        "vec8_8_99999999999999999999"}) {
    auto name = parse_ck_kernel_name(bad);
    EXPECT_EQ(name.config, json::object()) << bad;
    EXPECT_EQ(name.dir, Direction::kForward) << bad;  // the head is still read
  }
  EXPECT_FALSE(parse_ck_kernel_name("grouped_conv_sideways_bf16_2d_16x64x64_compv3").dir);
  EXPECT_EQ(parse_ck_kernel_name("").dtype, "");
}

TEST(ConvCkNames, CkSpellsDirectionsItsOwnWay) {
  // Other spellings of parse_direction are not CK's: the name is then only an id.
  for (const char* head :
       {"grouped_conv_F_fp16_2d_16x64x64_compv3", "grouped_conv_wrw_fp16_2d_16x64x64_compv3",
        "grouped_conv_bwd_fp16_2d_16x64x64_compv3",
        "grouped_conv_bwd_DATA_fp16_2d_16x64x64_compv3"}) {
    auto name = parse_ck_kernel_name(head);
    EXPECT_FALSE(name.dir) << head;
    EXPECT_EQ(name.config, json::object()) << head;
  }
}

// Long and short names over many configurations: formatting a parsed name gives the name back,
// and parsing a formatted kernel gives the kernel back.
TEST(ConvCkNames, RoundTripsOverManyConfigs) {
  std::mt19937 rng(7);
  auto pick = [&rng](const std::vector<std::string>& options) {
    return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
  };
  auto chance = [&rng] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  auto size = [&] { return pick({"1", "2", "4", "8", "16", "32", "64", "128", "256"}); };
  auto triple = [&] { return size() + "x" + size() + "x" + size(); };
  const std::vector<std::string> dtypes = {"fp16", "bf16", "fp32", "int8", "fp8"};
  int long_forms = 0, short_forms = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string name;
    if (chance()) {
      name = "grouped_conv_" + pick({"fwd", "bwd_data", "bwd_weight"}) + "_" + pick(dtypes) + "_" +
             pick({"nhwgc", "ndhwgc", "gnhwc"}) + "_" + pick({"1d", "2d", "3d"}) + "_" +
             pick({"compv3", "compv4", "mem", "basic_v1"}) + "_" + pick({"cshuffle", "default"}) +
             "_" + pick({"intrawave", "interwave"}) + "_" + triple() + "_" + triple() + "_" +
             triple();
      if (chance()) name += "_vec" + size() + "_" + size() + "_" + size();
      if (chance()) name += "_wg" + size();
      if (chance()) name += "_gm" + size();
      if (chance()) name += "_dsb";
      if (chance()) name += "_si";
      if (chance()) name += "_2stage";
      if (chance()) name += "_" + pick({"filter1x1pad0", "oddc", "filter3x3"});
      if (chance()) name += "_explicit_gemm";
      if (chance())
        name += "_streamk_" + pick({"tree", "linear"}) + (chance() ? "_persistent" : "");
      if (chance()) name += "_large_tensor";
      if (chance()) name += "_pad" + pick({"001", "010", "100", "111", "110"});
      ++long_forms;
    } else {
      name = "grouped_conv_" + pick({"forward", "backward_data", "backward_weight"}) + "_" +
             pick(dtypes) + "_" + pick({"1d", "2d", "3d"}) + "_" + triple() + "_" +
             pick({"compv3", "compv4", "mem", "basic_v1"});
      if (chance()) name += "_" + pick({"intrawave", "interwave"});
      if (chance()) name += "_dsb";
      if (chance()) name += "_si";
      ++short_forms;
    }
    CkKernelName kernel = parse_ck_kernel_name(name);
    ASSERT_TRUE(kernel.dir) << name;
    ASSERT_NE(kernel.config, json::object()) << name;
    EXPECT_EQ(format_ck_kernel_name(kernel), name);
    EXPECT_EQ(parse_ck_kernel_name(format_ck_kernel_name(kernel)), kernel) << name;
  }
  EXPECT_GT(long_forms, 500);
  EXPECT_GT(short_forms, 500);
}

TEST(ConvCkNames, UnparsedNamesRoundTripTheirHead) {
  CkKernelName head = parse_ck_kernel_name("grouped_conv_bwd_weight_fp16");
  EXPECT_EQ(head.dir, Direction::kBackwardWeight);
  EXPECT_EQ(head.config, json::object());
  EXPECT_EQ(parse_ck_kernel_name(format_ck_kernel_name(head)), head);
}

}  // namespace
}  // namespace kselect::conv
