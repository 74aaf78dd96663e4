// `kselect rules check` and `kselect configs` on the real binary, against the GEMM rule sets
// of rules/gemm_cpu.json.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ops/gemm/rule_sets.h"

namespace kselect::gemm {
namespace {

TEST(GemmRulesCli, CheckAndConfigs) {
  std::string cli = KSELECT_CLI_PATH;
  EXPECT_EQ(std::system((cli + " rules check > /dev/null 2>&1").c_str()), 0);
  FILE* pipe = popen((cli + " configs --op gemm --rules tiny --dtype bf16").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::vector<std::string> lines;
  std::array<char, 512> buf;
  while (std::fgets(buf.data(), buf.size(), pipe)) lines.emplace_back(buf.data());
  EXPECT_EQ(pclose(pipe), 0);
  std::size_t bf16 = 0;
  for (const auto& c : rule_set("tiny")) bf16 += c.dtype == DType::kBf16;
  EXPECT_EQ(lines.size(), bf16);
  for (const auto& l : lines) EXPECT_NE(l.find("gemm_universal_bf16_"), std::string::npos) << l;
  EXPECT_NE(std::system((cli + " configs --rules nope > /dev/null 2>&1").c_str()), 0);
  EXPECT_NE(std::system((cli + " rules explain gemm_universal_fp32_rcr_compv4_default_interwave_"
                               "True_True_True_False_64x64x64_1x1x1_14x64x1 > /dev/null")
                            .c_str()),
            0);
}

}  // namespace
}  // namespace kselect::gemm
