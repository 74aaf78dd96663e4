// Correctness of the CPU GEMM kernels against a double reference: a hand-built list covering
// every register tile (both dtypes), pipeline x scheduler x epilogue, layouts, warp splits,
// persistent, K unrolls, split-K, 1 and 2 threads, and every instruction-set level.
#include "ops/gemm/kernel.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/cpu_gemm_core/isa.h"
#include "test_kernel_support.h"

namespace kselect::gemm {
namespace {

using testing::IsaCap;
using testing::Operands;
using testing::Reference;

struct Tile {
  int mr, nr;
};
constexpr Tile kTiles[] = {{1, 16}, {4, 16}, {6, 16}, {8, 16},  {12, 16}, {14, 16}, {1, 32},
                           {4, 32}, {6, 32}, {8, 32}, {12, 32}, {14, 32}, {1, 48},  {4, 48},
                           {6, 48}, {8, 48}, {1, 64}, {4, 64},  {6, 64}};
constexpr int kWarps[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1},
                             {4, 1, 1}, {1, 1, 4}, {2, 1, 2}, {1, 4, 1}};
constexpr int kTileCount = sizeof(kTiles) / sizeof(kTiles[0]);

// Config i: tile i % 19, dtype fp32 for the first 19 and bf16 for the next; pipeline, scheduler
// and epilogue cycle with period 12, so all 12 combinations appear for each dtype.
GemmConfig hand_config(int i) {
  const Tile t = kTiles[i % kTileCount];
  const int* w = kWarps[i % 9];
  GemmConfig c;
  c.dtype = i < kTileCount ? DType::kFp32 : DType::kBf16;
  c.layout = Layout((i / 2) % 4);
  c.pipeline = Pipeline(i % 3 == 2 ? 3 : i % 3);  // compv3, compv4, mem
  c.scheduler = Scheduler((i / 3) % 2);
  c.epilogue = Epilogue((i / 6) % 2);
  c.persistent = (i / 2) % 2;
  c.warp_tile_m = t.mr;
  c.warp_tile_n = t.nr;
  c.warp_tile_k = (c.dtype == DType::kFp32 ? 1 : 2) << ((i / 5) % 3);
  c.warp_m = w[0];
  c.warp_n = w[1];
  c.warp_k = w[2];
  c.tile_m = c.warp_m * t.mr * (1 + i % 2);
  c.tile_n = c.warp_n * t.nr;
  c.tile_k = c.warp_k * c.warp_tile_k * (4 << (i % 2));
  return c;
}

std::vector<GemmConfig> hand_configs() {
  std::vector<GemmConfig> out;
  for (int i = 0; i < 2 * kTileCount; ++i) out.push_back(hand_config(i));
  return out;
}

// Remainders in every dimension, M = 1, N = 1, K = 1, and split-K.
std::vector<GemmProblem> padded_shapes(const GemmConfig& c) {
  std::vector<GemmProblem> out;
  for (auto [m, n, k, split] : std::vector<std::array<int, 4>>{
           {37, 83, 45, 1}, {1, 67, 33, 1}, {29, 1, 20, 1}, {17, 35, 1, 1}, {70, 50, 300, 2}}) {
    GemmProblem p;
    p.m = m, p.n = n, p.k = k, p.split_k = split;
    p.layout = c.layout;
    p.dtype = c.dtype;
    out.push_back(p);
  }
  return out;
}

struct Case {
  Operands operands;
  Reference ref;
};
const Case& cached_case(const GemmProblem& p) {
  static std::map<std::string, Case> cases;
  auto [it, added] = cases.try_emplace(p.to_string());
  if (added) {
    it->second.operands = testing::make_operands(p, unsigned(p.m * 131 + p.n * 17 + p.k));
    it->second.ref = testing::reference(p, it->second.operands);
  }
  return it->second;
}

void check_all_shapes(const GemmKernel& kernel, const std::vector<GemmProblem>& shapes) {
  for (const GemmProblem& p : shapes) {
    ASSERT_EQ(kernel.unsupported_reason(p), "") << kernel.config().name() << " " << p.to_string();
    const Case& cs = cached_case(p);
    for (int threads : {1, 2})
      EXPECT_TRUE(testing::runs_correctly(kernel, p, cs.operands, cs.ref, threads));
  }
}

class HandConfigs : public ::testing::TestWithParam<GemmConfig> {};

TEST_P(HandConfigs, MatchReferenceOnEveryIsa) {
  const GemmConfig& c = GetParam();
  for (const char* isa : {"avx512_bf16", "avx512", "avx2", "scalar"}) {
    IsaCap cap(isa);
    GemmKernel kernel(c);
    SCOPED_TRACE(std::string("KSELECT_ISA=") + isa + " -> " + kernel.isa());
    check_all_shapes(kernel, padded_shapes(c));
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, HandConfigs, ::testing::ValuesIn(hand_configs()),
                         [](const auto& info) { return "c" + std::to_string(info.index); });

// All kernels share one scratchpad (kernels/driver.cpp); a kernel must never take the B panels
// another kernel packed there for its own, even for the same shape, tile and run count.
TEST(GemmKernelWorkspace, KernelsTakingTurnsKeepTheirOwnPackedPanels) {
  for (int i : {0, 1}) {  // compv3 packs B; compv4 packs A and B
    const GemmConfig c = hand_config(i);
    GemmKernel first(c), second(c);
    GemmProblem p;
    // N within one column block: every task of every run wants the same panels (tag).
    p.m = 37, p.n = c.tile_n - 3, p.k = 45, p.split_k = 1;
    p.layout = c.layout;
    p.dtype = c.dtype;
    const Operands one = testing::make_operands(p, 1), two = testing::make_operands(p, 2);
    const Reference ref_one = testing::reference(p, one), ref_two = testing::reference(p, two);
    for (int turn = 0; turn < 2; ++turn) {
      EXPECT_TRUE(testing::runs_correctly(first, p, one, ref_one, 1)) << "turn " << turn;
      EXPECT_TRUE(testing::runs_correctly(second, p, two, ref_two, 1)) << "turn " << turn;
    }
  }
}

// Without padding, a kernel runs multiples of its tile (and has no edge path).
TEST(GemmKernelNoPad, RunsMultiplesOfTheTile) {
  for (int i = 0; i < 2 * kTileCount; i += 3) {
    GemmConfig c = hand_config(i);
    c.pad_m = c.pad_n = c.pad_k = false;
    GemmKernel kernel(c);
    GemmProblem p;
    p.m = 2 * c.tile_m, p.n = 3 * c.tile_n, p.k = 2 * c.tile_k, p.split_k = 1 + i % 2;
    p.layout = c.layout;
    p.dtype = c.dtype;
    check_all_shapes(kernel, {p});
  }
}

TEST(GemmKernelNoPad, ReasonNamesTheDimension) {
  GemmConfig c = hand_config(4);
  c.tile_m = 32, c.tile_n = 64, c.tile_k = 64;
  c.warp_m = c.warp_n = c.warp_k = 1;
  c.warp_tile_m = 8, c.warp_tile_n = 32, c.warp_tile_k = 2;
  GemmProblem p;
  p.m = 64, p.n = 128, p.k = 128, p.layout = c.layout, p.dtype = c.dtype;
  for (auto [field, flag] : {std::pair{'M', &GemmConfig::pad_m}, std::pair{'N', &GemmConfig::pad_n},
                             std::pair{'K', &GemmConfig::pad_k}}) {
    GemmConfig no_pad = c;
    no_pad.*flag = false;
    GemmKernel kernel(no_pad);
    EXPECT_EQ(kernel.unsupported_reason(p), "");
    GemmProblem odd = p;
    (field == 'M' ? odd.m : field == 'N' ? odd.n : odd.k) += 1;
    std::string why = kernel.unsupported_reason(odd);
    EXPECT_NE(why.find(std::string(1, field) + "="), std::string::npos) << why;
    EXPECT_NE(why.find("padding"), std::string::npos) << why;
    std::vector<float> out(odd.m * odd.n);
    EXPECT_THROW(kernel.run(odd, nullptr, nullptr, out.data(), 1), InputError);
    GemmKernel padded(c);
    EXPECT_EQ(padded.unsupported_reason(odd), "");
  }
}

TEST(GemmKernelSupport, RejectsDtypeLayoutAndSplitK) {
  GemmConfig c = hand_config(0);
  GemmKernel kernel(c);
  GemmProblem p;
  p.m = 8, p.n = 8, p.k = 2 * c.tile_k, p.layout = c.layout, p.dtype = c.dtype;
  EXPECT_EQ(kernel.unsupported_reason(p), "");
  GemmProblem other = p;
  other.dtype = DType::kBf16;
  EXPECT_NE(kernel.unsupported_reason(other).find("dtype"), std::string::npos);
  other = p;
  other.layout = Layout((int(p.layout) + 1) % 4);
  EXPECT_NE(kernel.unsupported_reason(other).find("layout"), std::string::npos);
  other = p;
  other.split_k = 3;  // only 2 K tiles
  EXPECT_NE(kernel.unsupported_reason(other).find("split_k"), std::string::npos);
  other.split_k = 2;
  EXPECT_EQ(kernel.unsupported_reason(other), "");
}

TEST(GemmKernelConfig, RejectsWhatIsNotCompiled) {
  GemmConfig ok;
  ok.tile_m = 32, ok.tile_n = 64, ok.tile_k = 16;
  ok.warp_tile_m = 8, ok.warp_tile_n = 32, ok.warp_tile_k = 2;
  auto rejects = [&](auto edit) {
    GemmConfig c = ok;
    edit(c);
    EXPECT_THROW(GemmKernel{c}, InputError) << c.name();
  };
  rejects([](GemmConfig& c) { c.warp_tile_m = 5; });
  rejects([](GemmConfig& c) { c.warp_tile_n = 24; });
  rejects(
      [](GemmConfig& c) { c.warp_tile_m = 8, c.warp_tile_n = 64, c.tile_m = 64, c.tile_n = 64; });
  rejects([](GemmConfig& c) { c.warp_tile_k = 8; });  // fp32 unrolls 1, 2, 4
  rejects([](GemmConfig& c) { c.warp_m = 2, c.warp_n = 2, c.warp_k = 2; });
  rejects([](GemmConfig& c) { c.tile_m += 1; });
  rejects([](GemmConfig& c) { c.tile_n += 16; });
  rejects([](GemmConfig& c) { c.tile_k += 1; });
  EXPECT_NO_THROW(GemmKernel{ok});
}

TEST(GemmKernelIsa, CapFollowsEnvironment) {
  GemmConfig fp32 = hand_config(1), bf16 = hand_config(kTileCount + 1);
  {
    IsaCap cap("scalar");
    EXPECT_EQ(GemmKernel(fp32).isa(), "scalar");
    EXPECT_EQ(GemmKernel(bf16).isa(), "scalar");
  }
  {
    IsaCap cap("avx2");
    EXPECT_NE(GemmKernel(fp32).isa(), "avx512");
  }
  const std::string native(kernels::to_string(kernels::detect_isa()));
  if (native == "avx512_bf16") {
    EXPECT_EQ(GemmKernel(fp32).isa(), "avx512");  // fp32 needs no bf16 instructions
    bf16.pipeline = Pipeline::kCompV4;
    EXPECT_EQ(GemmKernel(bf16).isa(), "avx512_bf16");
  }
  IsaCap bad("sse9");
  EXPECT_THROW(GemmKernel{fp32}, InputError);
}

TEST(GemmKernelRun, RejectsBadThreadCount) {
  GemmKernel kernel(hand_config(0));
  GemmProblem p;
  p.layout = kernel.config().layout;
  float c = 0;
  EXPECT_THROW(kernel.run(p, &c, &c, &c, 0), InputError);
}

}  // namespace
}  // namespace kselect::gemm
