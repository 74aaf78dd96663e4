#include "ops/conv/features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "../../features/feature_row.h"
#include "../../model/train_fixture.h"
#include "core/error.h"
#include "ops/conv/cpu/driver.h"
#include "ops/conv/rule_sets.h"
#include "ops/operation.h"

namespace kselect::conv {
namespace {

HardwareProfile test_hardware() {
  return kselect::testing::fixed_hardware(2);
}

using Row = kselect::testing::FeatureRow;

// n=2, c=8, k=16, g=2, a 6x6 image, a 3x3 filter, padding 1, stride 2: a 3x3 output, so the
// three directions' GEMMs (and CK's single mapping) all differ.
std::string problem_text(std::string_view dir, int c = 8) {
  return "n=2,c=" + std::to_string(c) +
         ",k=16,g=2,hi=6,wi=6,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,stride_w=2,dir=" +
         std::string(dir) + ",dtype=fp32";
}

ConvConfig config_for(Direction dir) {
  ConvConfig c;
  c.dir = dir;
  c.tile_m = 16, c.tile_n = 16, c.tile_k = 64;
  return c;
}

Row row_of(std::string_view dir, const ConvConfig& c, const std::string& schema = "kselect") {
  ConvFeatureEngine engine(test_hardware());
  std::vector<std::string> kernels = {c.name()};
  auto m = engine.extract(schema, problem_text(dir), kernels);
  return {m.names, m.values};
}

TEST(ConvFeatures, Ck97HasCksNamesInCksOrder) {
  ConvFeatureEngine engine(test_hardware());
  const auto& s = engine.schema("ck97");
  ASSERT_EQ(s.features.size(), 97u);
  EXPECT_EQ(s.features[0], "N");
  EXPECT_EQ(s.features[37], "dilation_w");
  EXPECT_EQ(s.features[38], "log2_channels_per_group");
  EXPECT_EQ(s.features[46], "block_size");
  EXPECT_EQ(s.features[66], "is_mem");
  EXPECT_EQ(s.features[67], "gemm_m_output");
  EXPECT_EQ(s.features[84], "problem_smaller_than_tile_k");
  EXPECT_EQ(s.features[85], "hw_num_cus");
  EXPECT_EQ(s.features[96], "hw_num_xcd");
  EXPECT_EQ(s.categorical, std::vector<std::string>{"pipeline"});
  EXPECT_EQ(std::set<std::string>(s.features.begin(), s.features.end()).size(), 97u);
}

TEST(ConvFeatures, SchemasAreSubsetsOfTheFullListAndKselectIsTheDefault) {
  ConvFeatureEngine engine(test_hardware());
  EXPECT_EQ(engine.default_schema(), "kselect");
  EXPECT_EQ(engine.schema("kselect").features.size(), 153u);  // docs/features.md
  EXPECT_EQ(engine.schema_names(), (std::vector<std::string>{"kselect", "ck97"}));
  const auto& all = engine.all_features();
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
  for (const auto& name : engine.schema_names()) {
    const auto& s = engine.schema(name);
    EXPECT_NO_THROW(engine.columns_of(s.features, name));
    for (const auto& c : s.categorical)
      EXPECT_NE(std::find(s.features.begin(), s.features.end(), c), s.features.end()) << c;
  }
  const auto& k = engine.schema("kselect").features;
  EXPECT_NE(std::find(k.begin(), k.end(), engine.throughput_prior()), k.end());
  EXPECT_THROW(engine.schema("ck55"), InputError);
}

TEST(ConvFeatures, CkMapsEveryDirectionLikeForward) {
  for (auto [dir, name] : {std::pair{Direction::kForward, "fwd"},
                           {Direction::kBackwardData, "bwd_data"},
                           {Direction::kBackwardWeight, "bwd_weight"}}) {
    Row r = row_of(name, config_for(dir), "ck97");
    EXPECT_EQ(r["gemm_m_output"], 2 * 3 * 3) << name;  // N * Ho * Wo
    EXPECT_EQ(r["gemm_n_output"], 16) << name;         // K, not K/G
    EXPECT_EQ(r["gemm_k_output"], 4 * 9) << name;      // C/G * Y * X
    EXPECT_EQ(r["num_tiles_m"], 2) << name;            // ceil(18 / 16)
    EXPECT_EQ(r["tile_eff_n"], 1.0f) << name;          // 16 % 16 == 0
    EXPECT_EQ(r["block_size"], 64) << name;            // tile_k
    EXPECT_FLOAT_EQ(r["tile_eff_k"], 36.0f / 64) << name;
    EXPECT_EQ(r["Ho"], 3);
    EXPECT_EQ(r["is_3x3_conv"], 1);
    EXPECT_EQ(r["is_depthwise"], 0);
    EXPECT_EQ(r["channels_product_per_group"], 4 * 8);
    EXPECT_EQ(r["is_small_batch_grouped"], 1);  // N < 8, G > 1
    // 2 * N * K * out * C/G * taps over (input + weights + output) bytes
    EXPECT_FLOAT_EQ(r["arithmetic_intensity"],
                    2.0f * 2 * 16 * 9 * 4 * 9 / ((2 * 8 * 36 + 16 * 4 * 9 + 2 * 16 * 9) * 4.0f));
  }
}

TEST(ConvFeatures, KselectMapsEachDirectionToTheGemmItRuns) {
  Row fwd = row_of("fwd", config_for(Direction::kForward));
  EXPECT_EQ(fwd["gemm_m"], 2 * 3 * 3);  // N * Ho * Wo
  EXPECT_EQ(fwd["gemm_n"], 8);          // K / G
  EXPECT_EQ(fwd["gemm_k"], 4 * 9);      // C/G * Y * X
  EXPECT_EQ(fwd["gemm_tiles_m"], 2);
  EXPECT_EQ(fwd["gemm_output_tiles"], 2 * 2 * 1);  // G * tiles_m * tiles_n
  EXPECT_FLOAT_EQ(fwd["gemm_tile_eff_n"], 0.5f);
  EXPECT_EQ(fwd["gathered_run"], 4);  // C/G
  EXPECT_EQ(fwd["direction"], 0);
  EXPECT_EQ(fwd["a_gathered"], 1);
  EXPECT_EQ(fwd["b_packed"], 1);

  Row data = row_of("bwd_data", config_for(Direction::kBackwardData));
  EXPECT_EQ(data["gemm_m"], 2 * 6 * 6);  // N * Hi * Wi
  EXPECT_EQ(data["gemm_n"], 4);          // C / G
  EXPECT_EQ(data["gemm_k"], 8 * 9);      // K/G * Y * X
  EXPECT_EQ(data["gemm_tiles_k"], 2);    // ceil(72 / 64)
  EXPECT_EQ(data["gathered_run"], 8);    // K/G
  EXPECT_EQ(data["direction"], 1);
  EXPECT_EQ(data["kernel_direction"], 1);
  EXPECT_EQ(data["b_gathered"], 0);  // the weights are packed once per bound kernel
  EXPECT_EQ(data["b_packed"], 1);

  Row weight = row_of("bwd_weight", config_for(Direction::kBackwardWeight));
  EXPECT_EQ(weight["gemm_m"], 8);          // K / G
  EXPECT_EQ(weight["gemm_n"], 4 * 9);      // C/G * Y * X
  EXPECT_EQ(weight["gemm_k"], 2 * 3 * 3);  // N * Ho * Wo
  EXPECT_EQ(weight["gemm_tiles_n"], 3);
  EXPECT_FLOAT_EQ(weight["gemm_tile_eff_n"], 4.0f / 16);
  EXPECT_EQ(weight["direction"], 2);
  EXPECT_EQ(weight["a_gathered"], 0);
  EXPECT_EQ(weight["b_gathered"], 1);
  EXPECT_EQ(weight["k_parts"], 1);

  // The two-stage split: one K range per core (2), at most one per K tile (1 here).
  ConvConfig two = config_for(Direction::kBackwardWeight);
  two.two_stage = true;
  EXPECT_EQ(row_of("bwd_weight", two)["k_parts"], 1);
  two.tile_k = 8;  // ceil(18 / 8) = 3 K tiles: two ranges
  EXPECT_EQ(row_of("bwd_weight", two)["k_parts"], 2);
  EXPECT_EQ(row_of("bwd_weight", two)["two_stage"], 1);
}

// The path flags are the driver's own decision (cpu::problem_paths), one per problem kind.
TEST(ConvFeatures, PathFlagsAreTheDriversDecision) {
  ConvFeatureEngine engine(test_hardware());
  auto flags = [&](const std::string& problem, const ConvConfig& c) {
    std::vector<std::string> kernels = {c.name()};
    Row r{engine.extract("kselect", problem, kernels).names,
          engine.extract("kselect", problem, kernels).values};
    const cpu::ProblemPaths paths = cpu::problem_paths(c, parse_native_problem(problem));
    EXPECT_EQ(r["col2im"], paths.col2im) << problem;
    EXPECT_EQ(r["direct_a"], paths.direct_a) << problem;
    EXPECT_EQ(r["direct_b"], paths.direct_b) << problem;
    EXPECT_EQ(r["dense_b"], paths.dense_b) << problem;
    EXPECT_EQ(r["k_outer"], paths.k_outer) << problem;
    return paths;
  };
  const std::string stem = "n=1,c=3,k=64,hi=28,wi=28,y=7,x=7,pad_h=3,pad_w=3,stride_h=2,stride_w=2";
  const std::string wide = "n=1,c=32,k=32,hi=8,wi=8,y=3,x=3,pad_h=1,pad_w=1";
  ConvConfig c = config_for(Direction::kBackwardData);
  EXPECT_TRUE(flags(stem + ",dir=bwd_data,dtype=fp32", c).col2im);  // 3 channels, K of 64
  c.pipeline = Pipeline::kCompV4;  // packs y's gradient: never by columns
  EXPECT_FALSE(flags(stem + ",dir=bwd_data,dtype=fp32", c).col2im);
  c = config_for(Direction::kBackwardData);
  EXPECT_TRUE(flags(wide + ",dir=bwd_data,dtype=fp32", c).direct_a);  // stride 1, K/G of 32
  c = config_for(Direction::kForward);
  EXPECT_TRUE(flags(wide + ",dir=fwd,dtype=fp32", c).direct_a);  // a filter row: 96 values
  // The image in place is fp32 only.
  c.dtype = "bf16";
  EXPECT_FALSE(flags(wide + ",dir=fwd,dtype=bf16", c).direct_a);
  c = config_for(Direction::kBackwardWeight);
  c.warp_tile_m = 6, c.warp_tile_n = 32, c.tile_m = 24, c.tile_n = 64;
  EXPECT_TRUE(flags(stem + ",dir=bwd_weight,dtype=fp32", c).dense_b);  // 21 < 32 columns
  c = config_for(Direction::kBackwardWeight);
  const cpu::ProblemPaths narrow = flags(stem + ",dir=bwd_weight,dtype=fp32", c);
  EXPECT_TRUE(narrow.direct_b && !narrow.dense_b);  // 21 >= 16 columns
  // K (output pixels) deep, the result small: K outermost.
  EXPECT_TRUE(flags("n=64,c=32,k=32,hi=32,wi=32,y=1,x=1,dir=bwd_weight,dtype=fp32", c).k_outer);
  EXPECT_FALSE(flags(wide + ",dir=bwd_weight,dtype=fp32", c).k_outer);
}

// The image read in place cuts the micro-kernel calls at output-row and channel-run ends; the
// counts below are worked by hand from the problem and the register tile.
TEST(ConvFeatures, PathCallsCountTheCutsOfTheImageReadInPlace) {
  ConvFeatureEngine engine(test_hardware());
  auto row = [&](const std::string& problem, const ConvConfig& c) {
    std::vector<std::string> kernels = {c.name()};
    auto m = engine.extract("kselect", problem, kernels);
    return Row{m.names, m.values};
  };
  // Forward, A read in place: M = 64 output pixels in rows of 8, cut at every 6 (the register
  // tile) and every 8: 16 calls; K = 3x3x32 = 288 in filter rows of 3x32 = 96, cut at every 64
  // and every 96: 6 calls; N = 32 in two 16-wide tiles. The blocks alone make 5 K slices.
  const std::string wide = "n=1,c=32,k=32,hi=8,wi=8,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32";
  ConvConfig c = config_for(Direction::kForward);
  Row fwd = row(wide, c);
  ASSERT_EQ(fwd["direct_a"], 1.0f);
  EXPECT_FLOAT_EQ(fwd["path_call_depth"], 288.0f / 6);
  EXPECT_FLOAT_EQ(fwd["path_call_fill"], 64.0f * 32 / (16 * 6 * 2 * 16));
  EXPECT_FLOAT_EQ(fwd["log2_path_micro_calls"], std::log2(16.0f * 2 * 6));
  EXPECT_GT(fwd["path_call_ratio"], 1.0f);
  // Backward weight's stem, B read in place: K = 14x14 output pixels cut at every 64 and at
  // the 13 output-row ends: 17 pieces where the blocks make 4.
  const std::string stem =
      "n=1,c=3,k=64,hi=28,wi=28,y=7,x=7,pad_h=3,pad_w=3,stride_h=2,stride_w=2,dir=bwd_weight,"
      "dtype=fp32";
  c = config_for(Direction::kBackwardWeight);
  Row narrow = row(stem, c);
  ASSERT_EQ(narrow["direct_b"], 1.0f);
  EXPECT_FLOAT_EQ(narrow["path_call_depth"], 196.0f / 17);
  EXPECT_GT(narrow["path_call_ratio"], 17.0f / 4 - 1e-4f);
  // Backward data's stem by columns: the column product's calls, 14x14 output pixels in 33
  // register rows, 7x7 taps x 3 channels in 10 panels of 16, K / G = 64 in one slice.
  c = config_for(Direction::kBackwardData);
  Row columns =
      row("n=1,c=3,k=64,hi=28,wi=28,y=7,x=7,pad_h=3,pad_w=3,stride_h=2,stride_w=2,dir=bwd_data,"
          "dtype=fp32",
          c);
  ASSERT_EQ(columns["col2im"], 1.0f);
  EXPECT_FLOAT_EQ(columns["log2_path_micro_calls"], std::log2(33.0f * 10));
  EXPECT_FLOAT_EQ(columns["path_call_depth"], 64.0f);
  EXPECT_FLOAT_EQ(columns["path_call_fill"], 196.0f * 147 / (33 * 6 * 10 * 16));
  // B copied dense: the blocks' own calls.
  c = config_for(Direction::kBackwardWeight);
  c.warp_tile_m = 6, c.warp_tile_n = 32, c.tile_m = 24, c.tile_n = 64;
  Row dense = row(stem, c);
  ASSERT_EQ(dense["dense_b"], 1.0f);
  EXPECT_FLOAT_EQ(dense["path_call_depth"], 196.0f / 4);
  EXPECT_FLOAT_EQ(dense["path_call_ratio"], 1.0f);
}

TEST(ConvFeatures, CycleEstimateIsAThroughputOfTheDirectionsGemm) {
  for (auto [dir, name] : {std::pair{Direction::kForward, "fwd"},
                           {Direction::kBackwardData, "bwd_data"},
                           {Direction::kBackwardWeight, "bwd_weight"}}) {
    Row r = row_of(name, config_for(dir));
    const float rate = r["est_flops_per_cycle"];
    EXPECT_TRUE(std::isfinite(rate) && rate > 0) << name;
    // At most the core's peak: 16 lanes x 2 FMA pipes x 2 FLOPs.
    EXPECT_LE(rate, 64.0f) << name;
    EXPECT_GT(r["est_copy_share"], 0) << name;
    EXPECT_LT(r["est_copy_share"] + r["est_overhead_share"], 1) << name;
  }
  // A scalar gather costs more than an 8-wide one.
  ConvConfig wide = config_for(Direction::kForward), narrow = wide;
  wide.vec_a = 8;
  ConvFeatureEngine engine(test_hardware());
  std::vector<std::string> kernels = {narrow.name(), wide.name()};
  auto m = engine.extract("kselect", problem_text("fwd", 16), kernels);
  const int est =
      int(std::find(m.names.begin(), m.names.end(), "est_copy_share") - m.names.begin());
  EXPECT_GT(m.at(0, est), m.at(1, est));
}

// Every configuration of `full` (all directions, dtypes and dimensions) has its own name and
// its own kselect row on one problem: the aliasing CK's conv features had (up to 16 kernels on
// one row) cannot happen. ck97 reproduces CK: many configurations share a row.
TEST(ConvFeatures, EveryFullConfigurationHasItsOwnRow) {
  const auto& full = rule_set("full");
  std::vector<std::string> names;
  for (const auto& c : full) names.push_back(c.name());
  ASSERT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  ConvFeatureEngine engine(test_hardware());
  for (const std::string schema : {"kselect", "ck97"}) {
    auto m = engine.extract(schema, problem_text("fwd"), names);
    std::set<std::vector<float>> rows;
    for (size_t r = 0; r < m.rows; ++r) rows.emplace(m.row(r), m.row(r) + m.cols());
    if (schema == "kselect")
      EXPECT_EQ(rows.size(), names.size());
    else
      EXPECT_LT(rows.size(), names.size() / 4);
  }
}

// Batch and single-row extraction are one code path: rows of a batch, of one kernel at a time
// and of a prepared block's subset agree bit for bit.
TEST(ConvFeatures, BatchAndSingleRowsAgree) {
  ConvFeatureEngine engine(test_hardware());
  for (const char* dir : {"fwd", "bwd_data", "bwd_weight"}) {
    std::vector<std::string> names;
    for (const auto& c : rule_set("tiny"))
      if (ck_direction(c.dir) == dir && c.dtype == "fp32" && c.ndim == 2) names.push_back(c.name());
    ASSERT_GE(names.size(), 2u);
    const std::string problem = problem_text(dir);
    auto batch = engine.extract("kselect", problem, names);
    auto block = engine.prepare(names);
    const std::vector<std::uint32_t> reversed = {std::uint32_t(names.size() - 1), 0};
    auto sub = block->subset(reversed);
    const auto columns = engine.columns_of(engine.schema("kselect").features, "test");
    std::vector<float> sub_rows(2 * columns.size());
    engine.extract_rows(problem, *sub, columns, sub_rows.data());
    for (size_t i = 0; i < names.size(); ++i) {
      std::vector<std::string> one = {names[i]};
      auto single = engine.extract("kselect", problem, one);
      EXPECT_TRUE(std::equal(single.values.begin(), single.values.end(), batch.row(i)))
          << dir << " " << names[i];
    }
    EXPECT_TRUE(std::equal(sub_rows.begin(), sub_rows.begin() + long(columns.size()),
                           batch.row(names.size() - 1)));
    EXPECT_TRUE(std::equal(sub_rows.begin() + long(columns.size()), sub_rows.end(), batch.row(0)));
  }
}

TEST(ConvFeatures, GroupKeyJoinsDirectionsAndDtypesOfOneGeometry) {
  ConvFeatureEngine engine(test_hardware());
  EXPECT_EQ(engine.group_key(problem_text("fwd")), engine.group_key(problem_text("bwd_weight")));
  std::string bf16 = problem_text("fwd");
  bf16.replace(bf16.find("fp32"), 4, "bf16");
  EXPECT_EQ(engine.group_key(problem_text("fwd")), engine.group_key(bf16));
  EXPECT_EQ(engine.dtype(bf16), "bf16");
  EXPECT_NE(engine.group_key(problem_text("fwd")),
            engine.group_key("n=2,c=8,k=16,g=2,hi=6,wi=6,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,"
                             "dtype=fp32"));
  EXPECT_THROW(engine.extract("kselect", "n=2,c=3", std::vector<std::string>{}), InputError);
}

TEST(ConvFeatures, TheOperationMakesTheEngineAndReportGroups) {
  const Operation& op = find_operation("conv");
  auto engine = op.make_feature_engine(test_hardware());
  EXPECT_EQ(engine->op(), "conv");
  ConvConfig c = config_for(Direction::kBackwardWeight);
  const ReportGroups groups = op.report_groups(problem_text("bwd_weight"), c.name(), 64);
  auto slice = [&](const std::string& name) {
    for (const auto& [key, value] : groups.slices)
      if (key == name) return value;
    return std::string("missing");
  };
  EXPECT_EQ(slice("direction"), "bwd_weight");
  EXPECT_EQ(slice("ndim"), "2d");
  EXPECT_EQ(slice("gemm_m"), "tiny");     // K/G = 8
  EXPECT_EQ(slice("gemm_k"), "shallow");  // N * Ho * Wo = 18
  EXPECT_EQ(slice("pipeline"), "compv3");
  EXPECT_EQ(groups.strata,
            (std::vector<std::string>{"all", "grouped", "fewer_tiles_than_cores"}));  // 2*1*3 < 64
}

}  // namespace
}  // namespace kselect::conv
