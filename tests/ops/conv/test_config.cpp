#include "ops/conv/config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "ops/conv/ck_names.h"

namespace kselect::conv {
namespace {

ConvConfig sample() {
  ConvConfig c;
  c.dir = Direction::kBackwardWeight;
  c.dtype = "bf16";
  c.ndim = 3;
  c.pipeline = Pipeline::kCompV4;
  c.epilogue = Epilogue::kCShuffle;
  c.scheduler = Scheduler::kInterwave;
  c.tile_m = 96, c.tile_n = 64, c.tile_k = 128;
  c.warp_m = 2, c.warp_n = 1, c.warp_k = 1;
  c.warp_tile_m = 12, c.warp_tile_n = 32, c.warp_tile_k = 1;
  c.vec_a = 8, c.vec_b = 1, c.vec_c = 8;
  c.two_stage = true;
  c.specialization = Specialization::kFilter3x3;
  return c;
}

TEST(ConvConfig, NameIsCksLongGroupedConvForm) {
  EXPECT_EQ(sample().name(),
            "grouped_conv_bwd_weight_bf16_ndhwgc_3d_compv4_cshuffle_interwave_96x64x128_2x1x1_"
            "12x32x1_vec8_1_8_2stage_filter3x3");
  ConvConfig plain;
  EXPECT_EQ(
      plain.name(),
      "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x64_1x1x1_6x16x2_vec1_1_1");
}

TEST(ConvConfig, NamesRoundTrip) {
  ConvConfig c = sample();
  EXPECT_EQ(ConvConfig::parse_name(c.name()), c);
  for (auto spec : {Specialization::kDefault, Specialization::kFilter1x1Pad0,
                    Specialization::kFilter1x1Stride1Pad0, Specialization::kFilter3x3}) {
    c.specialization = spec;
    for (bool two_stage : {false, true}) {
      c.two_stage = two_stage;
      EXPECT_EQ(ConvConfig::parse_name(c.name()), c) << c.name();
    }
  }
  // The fields are CK's: the codec reads them back from the name.
  nlohmann::json fields = c;
  EXPECT_EQ(parse_ck_kernel_name(c.name()).config["specialization"], fields["specialization"]);
}

TEST(ConvConfig, ForeignNamesAreRefusedWithTheReason) {
  std::string why;
  // CK's GPU-only fields, pipelines and dtypes have no CPU kernel.
  for (const char* name :
       {"grouped_conv_fwd_fp16_nhwgc_2d_compv3_default_intrawave_64x64x64_1x1x1_6x16x1_vec1_1_1",
        "grouped_conv_fwd_fp32_nhwgc_2d_compv5_default_intrawave_64x64x64_1x1x1_6x16x1_vec1_1_1",
        "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_64x64x64_1x1x1_6x16x1_vec1_1_1_"
        "explicit_gemm",
        "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_64x64x64_1x1x1_6x16x1_vec1_1_1_"
        "pad111",
        "grouped_conv_fwd_fp32_ndhwgc_2d_compv3_default_intrawave_64x64x64_1x1x1_6x16x1_vec1_1_1",
        "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_64x64x64_1x1x1_6x16x1",
        "grouped_conv_forward_bf16_2d_16x64x64_compv3_intrawave", "gemm_universal_fp32"}) {
    EXPECT_FALSE(ConvConfig::from_name(name, &why)) << name;
    EXPECT_FALSE(why.empty()) << name;
  }
  EXPECT_THROW(ConvConfig::parse_name("grouped_conv_fwd_fp32"), InputError);
}

TEST(ConvConfig, SpecialisationsSayWhyAProblemDoesNotMatch) {
  Problem p = parse_native_problem("n=1,c=8,k=8,hi=8,wi=8,y=3,x=3,pad_h=1,dir=fwd,dtype=fp32");
  ConvConfig c;
  EXPECT_EQ(c.specialization_reason(p), "");
  c.specialization = Specialization::kFilter3x3;
  EXPECT_EQ(c.specialization_reason(p), "");
  c.specialization = Specialization::kFilter1x1Pad0;
  EXPECT_NE(c.specialization_reason(p).find("1x1 filter"), std::string::npos);
  Problem one = parse_native_problem("n=1,c=8,k=8,hi=8,wi=8,y=1,x=1,stride_w=2,dir=fwd,dtype=fp32");
  EXPECT_EQ(c.specialization_reason(one), "");
  c.specialization = Specialization::kFilter1x1Stride1Pad0;
  EXPECT_NE(c.specialization_reason(one).find("stride 1"), std::string::npos);
  Problem padded =
      parse_native_problem("n=1,c=8,k=8,hi=8,wi=8,y=1,x=1,pad_right_w=1,dir=fwd,dtype=fp32");
  EXPECT_NE(c.specialization_reason(padded).find("padding 0"), std::string::npos);
  c.specialization = Specialization::kFilter3x3;
  EXPECT_NE(c.specialization_reason(one).find("3x3"), std::string::npos);
}

}  // namespace
}  // namespace kselect::conv
