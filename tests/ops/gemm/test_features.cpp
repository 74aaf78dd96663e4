#include "ops/gemm/features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "../../features/feature_row.h"
#include "../../model/train_fixture.h"
#include "core/error.h"
#include "ops/gemm/rule_sets.h"

namespace kselect::gemm {
namespace {

HardwareProfile test_hardware(int cores = 2) {
  return kselect::testing::fixed_hardware(cores);
}

// Feature values of one pair by name.
using Row = kselect::testing::FeatureRow;

Row features_of(const GemmProblem& p, const GemmConfig& c, const HardwareProfile& hw,
                const std::string& schema = "kselect") {
  GemmFeatureEngine engine(hw);
  std::vector<std::string> kernels = {c.name()};
  auto m = engine.extract(schema, p.to_string(), kernels);
  return {m.names, m.values};
}

GemmConfig sample_config() {
  GemmConfig c;
  c.tile_m = 64, c.tile_n = 128, c.tile_k = 32;
  c.warp_m = 2, c.warp_n = 1, c.warp_k = 1;
  c.warp_tile_m = 8, c.warp_tile_n = 32, c.warp_tile_k = 1;
  c.pipeline = Pipeline::kCompV4;
  c.layout = Layout::kCrr;
  c.pad_m = true, c.pad_n = false, c.pad_k = true;
  return c;
}

// A padded kernel of one warp per block with these block and register tiles (the set-line tests').
GemmConfig padded_kernel(int tile_m, int tile_n, int tile_k, int wtm, int wtn, int wtk,
                         Pipeline pipeline) {
  GemmConfig c;
  c.tile_m = tile_m, c.tile_n = tile_n, c.tile_k = tile_k;
  c.warp_tile_m = wtm, c.warp_tile_n = wtn, c.warp_tile_k = wtk;
  c.pipeline = pipeline;
  c.pad_m = c.pad_n = c.pad_k = true;
  return c;
}

TEST(GemmFeatures, SchemasHaveCkNamesInCkOrder) {
  GemmFeatureEngine engine(test_hardware());
  const auto& ck55 = engine.schema("ck55").features;
  const auto& ck72 = engine.schema("ck72").features;
  const auto& own = engine.schema("kselect").features;
  ASSERT_EQ(ck55.size(), 55u);
  ASSERT_EQ(ck72.size(), 72u);
  EXPECT_EQ(ck55[0], "M");
  EXPECT_EQ(ck55[12], "layout");
  EXPECT_EQ(ck55[22], "pipeline");
  EXPECT_EQ(ck55[33], "lds_usage_ratio");
  EXPECT_EQ(ck55[42], "cu_utilization");
  EXPECT_EQ(ck55[43], "hw_num_cus");
  EXPECT_EQ(ck55[54], "hw_num_xcd");
  EXPECT_EQ(ck72[43], "ratio_M_to_tile_m");
  EXPECT_EQ(ck72[59], "missing_any_required_padding");
  EXPECT_EQ(ck72[60], "hw_num_cus");
  EXPECT_EQ(std::vector<std::string>(own.begin(), own.begin() + 72), ck72);
  EXPECT_EQ(std::set<std::string>(own.begin(), own.end()).size(), own.size());
  EXPECT_EQ(engine.all_features(), own);
  EXPECT_THROW(engine.schema("ck97"), InputError);
}

TEST(GemmFeatures, FormulasMatchHandComputedValues) {
  GemmProblem p = GemmProblem::parse("m=100,n=200,k=300,layout=crr,dtype=fp32");
  Row f = features_of(p, sample_config(), test_hardware());
  EXPECT_FLOAT_EQ(f["log2_M"], float(std::log2(100.0)));
  EXPECT_FLOAT_EQ(f["log2_MNK"], float(std::log2(6e6)));
  // 2*100*200*300 / ((100*300 + 300*200 + 100*200) * 4 bytes)
  EXPECT_FLOAT_EQ(f["arithmetic_intensity"], float(12e6 / 440000.0));
  EXPECT_FLOAT_EQ(f["aspect_ratio_mk"], float(100.0 / 300.0));
  EXPECT_EQ(f["layout"], 2.0f);    // crr
  EXPECT_EQ(f["pipeline"], 1.0f);  // compv4
  EXPECT_EQ(f["num_warps"], 2.0f);
  EXPECT_EQ(f["tile_volume"], 64.0f * 128 * 32);
  EXPECT_EQ(f["lds_usage_estimate"], (64.0f * 32 + 128.0f * 32) * 4);  // 24576 bytes
  EXPECT_EQ(f["lds_usage_ratio"], 1.0f);  // compv4: half of the 48 KiB L1d
  EXPECT_EQ(f["num_tiles_m"], 2.0f);
  EXPECT_EQ(f["num_tiles_k"], 10.0f);
  EXPECT_EQ(f["total_output_tiles"], 4.0f);
  EXPECT_FLOAT_EQ(f["tile_eff_m"], 36.0f / 64);   // 100 mod 64 = 36
  EXPECT_FLOAT_EQ(f["tile_eff_n"], 72.0f / 128);  // 200 mod 128 = 72
  EXPECT_FLOAT_EQ(f["tile_eff_k"], 12.0f / 32);   // 300 mod 32 = 12
  EXPECT_FLOAT_EQ(f["overall_tile_efficiency"], float(0.5625 * 0.5625 * 0.375));
  EXPECT_EQ(f["cu_utilization"], 2.0f);  // 4 tiles / 2 cores
  EXPECT_FLOAT_EQ(f["ratio_K_to_tile_k"], 300.0f / 32);
  EXPECT_EQ(f["problem_smaller_than_tile_n"], 0.0f);
  EXPECT_EQ(f["needs_padding_n"], 1.0f);
  EXPECT_EQ(f["has_padding_when_needed_m"], 1.0f);
  EXPECT_EQ(f["missing_required_padding_n"], 1.0f);  // pad_n is off
  EXPECT_EQ(f["missing_required_padding_k"], 0.0f);
  EXPECT_EQ(f["missing_any_required_padding"], 1.0f);
  EXPECT_EQ(f["hw_num_cus"], 2.0f);
  EXPECT_EQ(f["hw_simds_per_cu"], 2.0f);
  EXPECT_EQ(f["hw_wavefront_size"], 16.0f);
  EXPECT_EQ(f["hw_lds_capacity"], 49152.0f);
  EXPECT_EQ(f["hw_l2_cache_kb"], 1024.0f);
  // kselect's CPU features
  EXPECT_FLOAT_EQ(f["tile_util_m"], 100.0f / 128);
  EXPECT_FLOAT_EQ(f["tile_util_k"], 300.0f / 320);
  EXPECT_EQ(f["micro_tiles_per_block"], 8.0f * 4);
  EXPECT_EQ(f["accumulator_vectors"], 16.0f);  // 8x32 fp32 in 16-lane registers
  EXPECT_EQ(f["a_row_major"], 0.0f);
  EXPECT_EQ(f["b_row_major"], 1.0f);
  EXPECT_FLOAT_EQ(f["l1_panel_ratio"], (8.0f + 32) * 32 * 4 / 49152);
  EXPECT_FLOAT_EQ(f["l2_block_ratio"], 24576.0f / (1024 * 1024));
  // Driver costs: warp blocks 32 x 128, K slices of 32, register tiles 8 x 32. Rows: 3 full
  // blocks of 4 tiles + a 4-row rest (1 tile) = 13; columns: 4 + ceil(72/32) = 7; K: 10 slices.
  EXPECT_FLOAT_EQ(f["log2_micro_calls"], float(std::log2(13.0 * 7 * 10)));
  EXPECT_FLOAT_EQ(f["log2_flops_per_micro_call"], float(std::log2(12e6 / 910)));
  EXPECT_FLOAT_EQ(f["b_panel_l2_ratio"], 300.0f * 128 * 4 / (1024 * 1024));  // whole K x 128
  EXPECT_FLOAT_EQ(f["streamed_slice_l1_ratio"], 32.0f * 32 * 4 / 49152);     // intrawave: A
  // Cycle estimate. Inner loop: 91 register tiles x 300 K steps (9 slices of 32 + 12), each
  // step 8 x 2 vector FMAs against 2 B loads + 8 broadcasts, on two ports: FMA bound, 8 cycles.
  const double inner = 91.0 * 300 * 8;
  // 910 calls, each storing 16 C vectors plus 20 cycles of set-up, and loading them on all
  // but the first of the 10 K slices (91 x 9 calls); 8 tasks.
  const double overhead = 910.0 * 16 + 91.0 * 9 * 16 + 20.0 * 910 + 200.0 * 8;
  // compv4 packs B (300 x 224 padded columns) and A (104 padded rows x 300, per N block: 2).
  const double pack = (300.0 * 224 + 104.0 * 300 * 2) * 4 / 16;
  const double total = inner + pack + overhead;
  EXPECT_FLOAT_EQ(f["log2_est_cycles"], float(std::log2(total)));
  EXPECT_FLOAT_EQ(f["est_flops_per_cycle"], float(12e6 / total));
  EXPECT_FLOAT_EQ(f["est_pack_share"], float(pack / total));
  EXPECT_FLOAT_EQ(f["est_overhead_share"], float(overhead / total));
}

TEST(GemmFeatures, CycleEstimateChargesGathersAndBf16Pairs) {
  GemmConfig c = sample_config();
  c.pipeline = Pipeline::kMem;  // no packing: column-major B is gathered lane by lane
  c.layout = Layout::kRcr;
  GemmProblem fp32 = GemmProblem::parse("m=100,n=200,k=300,layout=rcr,dtype=fp32");
  Row f = features_of(fp32, c, test_hardware());
  const double overhead = 910.0 * 16 + 91.0 * 9 * 16 + 20.0 * 910 + 200.0 * 8;
  // Load bound: 2 vectors x 16 lanes + 8 broadcasts = 40 loads per K step on two ports.
  EXPECT_FLOAT_EQ(f["log2_est_cycles"], float(std::log2(91.0 * 300 * 20 + overhead)));
  EXPECT_EQ(f["est_pack_share"], 0.0f);
  // bf16 compv3 packs B. Without avx512_bf16 it widens to fp32: FMA bound, 300 steps; with
  // it vdpbf16ps takes K in pairs: half the steps.
  c.pipeline = Pipeline::kCompV3;
  c.dtype = DType::kBf16;
  GemmProblem bf16 = GemmProblem::parse("m=100,n=200,k=300,layout=rcr,dtype=bf16");
  const double pack = 300.0 * 224 * 2 / 16;
  HardwareProfile hw = test_hardware();
  EXPECT_FLOAT_EQ(features_of(bf16, c, hw)["log2_est_cycles"],
                  float(std::log2(91.0 * 300 * 8 + pack + overhead)));
  hw.isa.push_back("avx512_bf16");
  EXPECT_FLOAT_EQ(features_of(bf16, c, hw)["log2_est_cycles"],
                  float(std::log2(91.0 * 150 * 8 + pack + overhead)));
}

TEST(GemmFeatures, CycleEstimateStepsOverKNotTheUnrollAndChargesTheShuffleCopy) {
  // K = 5 in one slice with an unroll of 8: the micro-kernel's remainder loop takes 5 steps.
  GemmConfig c = sample_config();
  c.warp_tile_k = 8;
  c.pipeline = Pipeline::kMem;
  c.layout = Layout::kRrr;  // B row-major: no gathers
  GemmProblem p = GemmProblem::parse("m=100,n=200,k=5,layout=rrr,dtype=fp32");
  // 91 register tiles, one K slice: stores only (no C loads), FMA bound at 8 cycles a step.
  const double overhead = 91.0 * 16 + 20.0 * 91 + 200.0 * 8;
  EXPECT_FLOAT_EQ(features_of(p, c, test_hardware())["log2_est_cycles"],
                  float(std::log2(91.0 * 5 * 8 + overhead)));
  // cshuffle copies the 100 x 200 staged floats into C, 16 lanes a cycle.
  c.epilogue = Epilogue::kCShuffle;
  EXPECT_FLOAT_EQ(features_of(p, c, test_hardware())["log2_est_cycles"],
                  float(std::log2(91.0 * 5 * 8 + overhead + 100.0 * 200 / 16)));
}

TEST(GemmFeatures, InterwaveStreamsTheBSlice) {
  GemmProblem p = GemmProblem::parse("m=100,n=200,k=300,layout=crr,dtype=fp32");
  GemmConfig c = sample_config();
  c.scheduler = Scheduler::kInterwave;
  EXPECT_FLOAT_EQ(features_of(p, c, test_hardware())["streamed_slice_l1_ratio"],
                  128.0f * 32 * 4 / 49152);
}

// The lines of C a walk keeps live that share one L1 set (64 sets of 64-byte lines): counted by
// hand for rows exactly 4 KiB apart, and by brute force (every line of every row) for N = 1000.
TEST(GemmFeatures, CWindowSetLinesSeesFourKibRowStrides) {
  GemmConfig c = padded_kernel(64, 768, 256, 8, 48, 2, Pipeline::kCompV4);
  c.scheduler = Scheduler::kIntrawave;
  const HardwareProfile hw = test_hardware();
  auto lines = [&](const char* problem) {
    return features_of(GemmProblem::parse(problem), c, hw)["c_window_set_lines"];
  };
  // Intrawave: 64 rows x 48 floats (3 lines) per register column. Rows 4096 bytes apart all
  // start in set 0; 4160 bytes apart (65 lines) each starts one set further.
  EXPECT_EQ(lines("m=2049,n=1024,k=7"), 64.0f);
  EXPECT_EQ(lines("m=2049,n=1040,k=7"), 3.0f);
  EXPECT_EQ(lines("m=2049,n=1000,k=7"), 5.0f);
  EXPECT_EQ(lines("m=3,n=1024,k=7"), 3.0f);  // only 3 rows
  // Interwave: 8 rows (MR) x 768 floats (48 lines, sets 0-47) per register row.
  c.scheduler = Scheduler::kInterwave;
  EXPECT_EQ(lines("m=2049,n=1024,k=7"), 8.0f);
  // cshuffle writes the staging tile, rows 768 floats (48 lines) apart: rows start in sets 0,
  // 48, 32, 16, 0, ..., so 16 of the 64 rows share each start.
  c.scheduler = Scheduler::kIntrawave;
  c.epilogue = Epilogue::kCShuffle;
  EXPECT_EQ(lines("m=2049,n=1024,k=7"), 16.0f);
}

// The most lines of `rows` rows (`row_bytes` each, `ld_bytes` apart, the first at byte 0) that
// fall into one of the 64 L1 sets, counted line by line.
float most_lines_per_set(long rows, long row_bytes, long ld_bytes) {
  std::vector<int> per_set(64, 0);
  for (long r = 0; r < rows; ++r)
    for (long line = r * ld_bytes / 64; line <= (r * ld_bytes + row_bytes - 1) / 64; ++line)
      ++per_set[line % 64];
  return float(*std::max_element(per_set.begin(), per_set.end()));
}

// The same count by brute force (every line of every live row) for many row strides, both
// schedulers and windows wider than 4 KiB.
TEST(GemmFeatures, CWindowSetLinesMatchesBruteForce) {
  GemmConfig c = padded_kernel(64, 1024, 256, 8, 48, 2, Pipeline::kCompV4);
  const HardwareProfile hw = test_hardware();
  for (Scheduler scheduler : {Scheduler::kIntrawave, Scheduler::kInterwave}) {
    c.scheduler = scheduler;
    const int rows = scheduler == Scheduler::kIntrawave ? 64 : 8;
    for (int n : {1, 47, 200, 511, 512, 513, 1000, 1023, 1024, 1025, 1100, 2047, 2048, 3000}) {
      const int cols = std::min(scheduler == Scheduler::kIntrawave ? 48 : 1024, n);
      const GemmProblem p = GemmProblem::parse("m=500,n=" + std::to_string(n) + ",k=7");
      EXPECT_EQ(features_of(p, c, hw)["c_window_set_lines"],
                most_lines_per_set(rows, cols * 4, long(n) * 4))
          << "n=" << n;
    }
  }
}

// The operand lines streamed at once from an operand read in place that share one L1 set: a
// row-major A feeds MR rows K elements apart (compv3 and mem), a column-major B NR columns K
// elements apart (mem only); packed operands stream nothing.
TEST(GemmFeatures, StreamSetLinesSeeFourKibOperandStrides) {
  GemmConfig c = padded_kernel(192, 64, 512, 12, 16, 4, Pipeline::kCompV3);
  c.dtype = DType::kBf16;
  const HardwareProfile hw = test_hardware();
  auto a_lines = [&](const std::string& problem) {
    return features_of(GemmProblem::parse(problem + ",dtype=bf16"), c, hw)["a_stream_set_lines"];
  };
  // 12 rows 4096 bytes apart all start in set 0; 4094 apart (K = 2047) each starts 2 bytes
  // earlier, so every row's 64 bytes still touch set 0.
  EXPECT_EQ(a_lines("m=2047,n=3,k=2048,layout=rcr"), 12.0f);
  EXPECT_EQ(a_lines("m=2047,n=3,k=2047,layout=rcr"), 12.0f);
  EXPECT_EQ(a_lines("m=5,n=3,k=2048,layout=rcr"), 5.0f);     // only 5 rows
  EXPECT_EQ(a_lines("m=2047,n=3,k=2048,layout=crr"), 1.0f);  // 12 x 2 bytes per K step
  EXPECT_EQ(
      features_of(GemmProblem::parse("m=2047,n=3,k=2048,dtype=bf16"), c, hw)["b_stream_set_lines"],
      0.0f);  // compv3 packs B
  c.pipeline = Pipeline::kCompV4;
  EXPECT_EQ(a_lines("m=2047,n=3,k=2048,layout=rcr"), 0.0f);  // compv4 packs A
  // mem reads a column-major B in place: 16 columns 4096 bytes apart (fp32, K = 1024).
  c.pipeline = Pipeline::kMem;
  c.dtype = DType::kFp32;
  EXPECT_EQ(
      features_of(GemmProblem::parse("m=64,n=64,k=1024,layout=rcr"), c, hw)["b_stream_set_lines"],
      16.0f);
  EXPECT_EQ(
      features_of(GemmProblem::parse("m=64,n=64,k=1024,layout=rrr"), c, hw)["b_stream_set_lines"],
      1.0f);  // a row-major B: one run of 16 floats per K step
}

// The A count by brute force (each row's 64 bytes from its first byte) for many K.
TEST(GemmFeatures, AStreamSetLinesMatchBruteForce) {
  const GemmConfig c = padded_kernel(112, 32, 256, 14, 16, 2, Pipeline::kCompV3);
  const HardwareProfile hw = test_hardware();
  for (int k : {1, 15, 16, 17, 500, 1000, 1023, 1024, 1025, 1100, 2047, 2048, 3000, 4096}) {
    const GemmProblem p = GemmProblem::parse("m=500,n=40,k=" + std::to_string(k));
    EXPECT_EQ(features_of(p, c, hw)["a_stream_set_lines"], most_lines_per_set(14, 64, long(k) * 4))
        << "k=" << k;
  }
}

TEST(GemmFeatures, WaveQuantizationCountsIdleCores) {
  GemmProblem p = GemmProblem::parse("m=100,n=200,k=300");
  Row f = features_of(p, sample_config(), test_hardware(3));  // 4 tiles on 3 cores
  EXPECT_EQ(f["tasks_per_core"], 2.0f);
  EXPECT_FLOAT_EQ(f["wave_quantization_efficiency"], 4.0f / 6);
}

TEST(GemmFeatures, Bf16HalvesOperandBytes) {
  GemmProblem p = GemmProblem::parse("m=100,n=200,k=300,dtype=bf16");
  GemmConfig c = sample_config();
  c.dtype = DType::kBf16;
  Row f = features_of(p, c, test_hardware());
  EXPECT_EQ(f["lds_usage_estimate"], (64.0f * 32 + 128.0f * 32) * 2);
  EXPECT_EQ(f["bytes_per_element"], 2.0f);
}

TEST(GemmFeatures, EdgeShapesGiveFiniteValues) {
  for (const char* text : {"m=1,n=1,k=1", "m=1,n=4096,k=4096", "m=4096,n=1,k=7",
                           "m=7919,n=104729,k=3", "m=65536,n=65536,k=131072,split_k=4"}) {
    GemmProblem p = GemmProblem::parse(text);
    Row f = features_of(p, sample_config(), test_hardware());
    for (size_t i = 0; i < f.values.size(); ++i)
      EXPECT_TRUE(std::isfinite(f.values[i])) << text << " " << f.names[i];
    if (p.m == 1) {
      EXPECT_EQ(f["log2_M"], 0.0f);
      EXPECT_EQ(f["problem_smaller_than_tile_m"], 1.0f);
      EXPECT_FLOAT_EQ(f["tile_eff_m"], 1.0f / 64);
    }
  }
  Row big = features_of(GemmProblem::parse("m=65536,n=65536,k=131072,split_k=4"), sample_config(),
                        test_hardware());
  EXPECT_FLOAT_EQ(big["log2_MNK"], 49.0f);
  EXPECT_EQ(big["tasks"], 1024.0f * 512 * 4);
}

TEST(GemmFeatures, BatchEqualsSingleRowsBitForBit) {
  GemmFeatureEngine engine(test_hardware());
  std::vector<std::string> kernels;
  for (const auto& c : rule_set("full"))
    if (c.dtype == DType::kFp32 && c.layout == Layout::kRcr) kernels.push_back(c.name());
  ASSERT_GT(kernels.size(), 10u);
  std::string problem = "m=129,n=1000,k=513,layout=rcr,dtype=fp32";
  auto batch = engine.extract("kselect", problem, kernels);
  ASSERT_EQ(batch.rows, kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto one = engine.extract("kselect", problem, std::span(&kernels[i], 1));
    ASSERT_EQ(0, std::memcmp(one.values.data(), batch.row(i), batch.cols() * sizeof(float)))
        << kernels[i];
  }
}

TEST(GemmFeatures, EveryConfigOfARuleSetHasADistinctRow) {
  GemmFeatureEngine engine(test_hardware());
  for (const char* schema : {"ck55", "ck72", "kselect"}) {
    for (DType dtype : {DType::kFp32, DType::kBf16}) {
      std::vector<std::string> kernels;
      for (const auto& c : rule_set("full"))
        if (c.dtype == dtype && c.layout == Layout::kRrr) kernels.push_back(c.name());
      if (kernels.empty()) continue;
      GemmProblem p = GemmProblem::parse("m=300,n=500,k=700,layout=rrr");
      p.dtype = dtype;
      auto m = engine.extract(schema, p.to_string(), kernels);
      std::set<std::vector<float>> rows;
      for (size_t i = 0; i < m.rows; ++i) rows.emplace(m.row(i), m.row(i) + m.cols());
      EXPECT_EQ(rows.size(), kernels.size()) << schema;
    }
  }
}

TEST(GemmFeatures, BadInputNamesTheProblem) {
  GemmFeatureEngine engine(test_hardware());
  std::vector<std::string> kernels = {sample_config().name()};
  EXPECT_THROW(engine.extract("kselect", "m=0,n=1,k=1", kernels), InputError);
  std::vector<std::string> bad = {"gemm_universal_nonsense"};
  EXPECT_THROW(engine.extract("kselect", "m=1,n=1,k=1", bad), InputError);
}

TEST(GemmFeatures, GroupKeyIgnoresLayoutAndDtype) {
  GemmFeatureEngine engine(test_hardware());
  EXPECT_EQ(engine.group_key("m=5,n=6,k=7,layout=rcr,dtype=fp32"),
            engine.group_key("m=5,n=6,k=7,layout=ccr,dtype=bf16"));
  EXPECT_NE(engine.group_key("m=5,n=6,k=7"), engine.group_key("m=5,n=6,k=8"));
  EXPECT_EQ(engine.dtype("m=5,n=6,k=7,dtype=bf16"), "bf16");
}

}  // namespace
}  // namespace kselect::gemm
