#include "ops/gemm/ck_names.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ops/gemm/config.h"

namespace kselect::gemm {
namespace {

const char* const kCkMem =
    "gemm_universal_fp16_rcr_mem_cshuffle_interwave_False_False_False_False_64x128x64_1x4x1_"
    "16x16x32";

TEST(GemmCkNames, ParsesEveryField) {
  auto name = parse_ck_kernel_name(kCkMem);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->dtype, "fp16");
  EXPECT_EQ(name->layout, "rcr");
  EXPECT_EQ(name->config["pipeline"], "mem");
  EXPECT_EQ(name->config["scheduler"], "interwave");
  EXPECT_EQ(name->config["pad_m"], 0);  // the name itself; apply_mem_pads fixes it
  EXPECT_EQ(name->config["warp_n"], 4);
  EXPECT_EQ(name->config.size(), 16u);
  for (const char* bad : {"gemm_universal_fp16_rcr",
                          "gemm_fp16_rcr_mem_cshuffle_interwave_False_"
                          "False_False_False_64x128x64_1x4x1_16x16x32",
                          "gemm_universal_fp16_rcr_mem_cshuffle_interwave_Maybe_False_False_False_"
                          "64x128x64_1x4x1_16x16x32",
                          "gemm_universal_fp16_rcr_mem_cshuffle_interwave_False_False_False_False_"
                          "64x128_1x4x1_16x16x32"})
    EXPECT_FALSE(parse_ck_kernel_name(bad)) << bad;
}

TEST(GemmCkNames, MemPipelineAlwaysPads) {
  auto name = parse_ck_kernel_name(kCkMem);
  ASSERT_TRUE(name);
  apply_mem_pads(name->config);
  EXPECT_EQ(name->config["pad_m"], 1);
  EXPECT_EQ(name->config["pad_n"], 1);
  EXPECT_EQ(name->config["pad_k"], 1);
  auto other = parse_ck_kernel_name(
      "gemm_universal_fp16_rcr_compv3_default_intrawave_False_False_False_True_256x128x64_4x1x1_"
      "32x32x8");
  ASSERT_TRUE(other);
  auto before = other->config;
  apply_mem_pads(other->config);
  EXPECT_EQ(other->config, before);
}

// CK's names over many configurations (multi-token dtypes included): formatting a parsed name
// gives the name back, and parsing a formatted kernel gives the kernel back.
TEST(GemmCkNames, RoundTripsOverManyConfigs) {
  std::mt19937 rng(11);
  auto pick = [&rng](const std::vector<std::string>& options) {
    return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
  };
  auto size = [&] { return pick({"1", "2", "4", "8", "16", "32", "64", "128", "256"}); };
  auto triple = [&] { return size() + "x" + size() + "x" + size(); };
  auto flag = [&] { return pick({"True", "False"}); };
  for (int i = 0; i < 2000; ++i) {
    std::string name = "gemm_universal_" + pick({"fp16", "bf16", "fp32", "fp8", "fp8_fp16"}) + "_" +
                       pick({"rcr", "rrr", "crr", "ccr"}) + "_" +
                       pick({"compv3", "compv4", "mem"}) + "_" + pick({"cshuffle", "default"}) +
                       "_" + pick({"intrawave", "interwave"}) + "_" + flag() + "_" + flag() + "_" +
                       flag() + "_" + flag() + "_" + triple() + "_" + triple() + "_" + triple();
    auto kernel = parse_ck_kernel_name(name);
    ASSERT_TRUE(kernel) << name;
    EXPECT_EQ(format_ck_kernel_name(*kernel), name);
    EXPECT_EQ(parse_ck_kernel_name(format_ck_kernel_name(*kernel)), kernel) << name;
  }
}

// The native op's kernels are CK names too: each one reads back with the same fields.
TEST(GemmCkNames, NativeKernelNamesAreCkNames) {
  GemmConfig config;
  config.dtype = DType::kBf16;
  config.layout = Layout::kCrr;
  config.pipeline = Pipeline::kMem;
  config.pad_n = false;
  auto kernel = parse_ck_kernel_name(config.name());
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->dtype, "bf16");
  EXPECT_EQ(kernel->layout, "crr");
  EXPECT_EQ(kernel->config["pipeline"], "mem");
  EXPECT_EQ(kernel->config["pad_n"], 0);
  EXPECT_EQ(kernel->config["tile_k"], config.tile_k);
  EXPECT_EQ(format_ck_kernel_name(*kernel), config.name());
}

}  // namespace
}  // namespace kselect::gemm
