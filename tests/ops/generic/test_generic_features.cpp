// The generic operation and its fitted feature engine: canonical problems, the fitted feature
// list, save/load, one extraction path, unseen categories and the derived conv/GEMM features.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "../../model/train_fixture.h"
#include "core/error.h"
#include "features/engine.h"
#include "generic_synthetic.h"
#include "ops/generic/derived.h"
#include "ops/generic/features.h"
#include "ops/operation.h"

namespace kselect {
namespace {

using generic::GenericVocabulary;

GenericVocabulary fitted(const std::vector<data::Measurement>& rows,
                         const std::string& encoding = "target") {
  auto ptrs = testing::pointers(rows);
  return GenericVocabulary::fit(ptrs, testing::generic_configs(), {.encoding = encoding});
}

std::unique_ptr<features::FeatureEngine> engine_for(const GenericVocabulary& v) {
  return find_operation("generic").make_feature_engine(testing::fixed_hardware(), v.to_json());
}

double feature(const features::FeatureMatrix& m, std::size_t row, const std::string& name) {
  for (std::size_t c = 0; c < m.cols(); ++c)
    if (m.names[c] == name) return m.at(row, c);
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

TEST(GenericOperation, CanonicalProblemKeepsOrderAndLowerCasesKeys) {
  const Operation& op = find_operation("generic");
  EXPECT_EQ(op.canonical_problem("N=2, C=8,dir=F,x=1.0,dtype=fp16", "t"),
            "n=2,c=8,dir=F,x=1,dtype=fp16");
  EXPECT_THROW(op.canonical_problem("n=", "t"), InputError);
  EXPECT_THROW(op.canonical_problem("n=a=b", "t"), InputError);
  EXPECT_THROW(op.canonical_problem("=3", "t"), InputError);
  EXPECT_THROW(op.canonical_problem("N=1,n=2", "t"), InputError);
  try {
    op.canonical_problem("m=4,layout=", "shapes.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layout"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(op.problem_columns().empty());
  EXPECT_EQ(op.unsupported_reason("any", "m=1"), "");
  EXPECT_THROW(op.kernel_names("default", {}), InputError);
  EXPECT_THROW(op.make_workload("m=1", 0), InputError);
}

TEST(GenericVocabulary, FitsFeatureListFromTheData) {
  auto v = fitted(testing::generic_measurements(12, 1));
  const auto& f = v.features();
  // dtype and warps are constant, device is context: none of them is a feature.
  std::vector<std::string> expected = {"p_m",
                                       "p_log_m",
                                       "p_n",
                                       "p_log_n",
                                       "p_k",
                                       "p_log_k",
                                       "d_log_flops",
                                       "d_log_bytes",
                                       "d_intensity",
                                       "d_log_ratio_mn",
                                       "d_log_ratio_mk",
                                       "d_log_ratio_nk",
                                       "d_pow2_m",
                                       "d_pow2_n",
                                       "d_pow2_k",
                                       "k_tile",
                                       "k_log_tile",
                                       "k_variant"};
  EXPECT_EQ(f, expected);
  EXPECT_EQ(v.categorical(), std::vector<std::string>{"k_variant"});
  EXPECT_EQ(v.candidates("m=1,n=1,k=1,dtype=fp32,device=other").size(), 8u);
  EXPECT_THROW(v.candidates("m=1,n=1,k=1,dtype=bf16"), InputError);
}

TEST(GenericVocabulary, SaveLoadRoundTripGivesTheSameRows) {
  auto rows = testing::generic_measurements(12, 2);
  auto v = fitted(rows);
  auto reloaded = GenericVocabulary::from_json(nlohmann::json::parse(v.to_json().dump()), "t");
  EXPECT_EQ(reloaded.to_json(), v.to_json());
  auto a = engine_for(v), b = engine_for(reloaded);
  auto kernels = v.kernels();
  auto ma = a->extract("generic", rows[0].problem, kernels);
  auto mb = b->extract("generic", rows[0].problem, kernels);
  EXPECT_EQ(ma.values, mb.values);
  nlohmann::json broken = v.to_json();
  broken["features"].push_back("p_extra");
  EXPECT_THROW(GenericVocabulary::from_json(broken, "t"), InputError);
  EXPECT_THROW(GenericVocabulary::from_json({{"encoding", "target"}}, "t"), InputError);
}

TEST(GenericFeatures, EveryKernelHasADistinctRowAndBatchEqualsSingle) {
  auto rows = testing::generic_measurements(10, 3);
  auto engine = engine_for(fitted(rows));
  std::vector<std::string> kernels;
  for (const auto& [name, config] : testing::generic_configs()) kernels.push_back(name);
  auto batch = engine->extract("generic", rows[5].problem, kernels);
  std::set<std::vector<float>> distinct;
  for (std::size_t r = 0; r < batch.rows; ++r) {
    distinct.emplace(batch.row(r), batch.row(r) + batch.cols());
    auto single = engine->extract("generic", rows[5].problem, {&kernels[r], 1});
    ASSERT_EQ(single.rows, 1u);
    EXPECT_EQ(std::memcmp(single.row(0), batch.row(r), batch.cols() * sizeof(float)), 0) << r;
  }
  EXPECT_EQ(distinct.size(), kernels.size());
}

TEST(GenericFeatures, UnseenCategoriesAreMissing) {
  auto rows = testing::generic_measurements(10, 4);
  auto engine = engine_for(fitted(rows));
  // A kernel not seen in training: parameters from a key=value name, else all missing.
  std::vector<std::string> kernels = {"tile=64,variant=zzz", "mystery_kernel"};
  auto m = engine->extract("generic", rows[0].problem, kernels);
  EXPECT_EQ(feature(m, 0, "k_tile"), 64);
  EXPECT_TRUE(std::isnan(feature(m, 0, "k_variant")));
  EXPECT_TRUE(std::isnan(feature(m, 1, "k_tile")));
  // A problem field the training data did not have a number for.
  auto p = engine->extract("generic", "m=x,n=64,k=64,dtype=fp32", {kernels.data(), 1});
  EXPECT_TRUE(std::isnan(feature(p, 0, "p_m")));
}

TEST(GenericFeatures, TargetEncodingOrdersCategoriesByEfficiency) {
  // Variant b wins on large k only; over this data a is more efficient on average or not,
  // but the codes must follow the mean efficiency, and alphabetical codes the names.
  auto rows = testing::generic_measurements(20, 5);
  for (auto& r : rows)  // make b clearly worse everywhere
    if (r.kernel.back() == 'b') r.median_ms *= 3;
  auto target = engine_for(fitted(rows, "target"));
  auto alpha = engine_for(fitted(rows, "alphabetical"));
  std::vector<std::string> kernels = {testing::generic_kernel(16, 'a'),
                                      testing::generic_kernel(16, 'b')};
  auto t = target->extract("generic", rows[0].problem, kernels);
  auto a = alpha->extract("generic", rows[0].problem, kernels);
  EXPECT_EQ(feature(t, 0, "k_variant"), 1);  // a: the more efficient, the higher code
  EXPECT_EQ(feature(t, 1, "k_variant"), 0);
  EXPECT_EQ(feature(a, 0, "k_variant"), 0);
  EXPECT_EQ(feature(a, 1, "k_variant"), 1);
}

TEST(GenericFeatures, KernelIdWhenKernelsHaveNoNumericParameters) {
  std::vector<data::Measurement> rows;
  std::map<std::string, nlohmann::json> configs = {{"SolverA", {{"algorithm", "gemm"}}},
                                                   {"SolverB", {{"algorithm", "direct"}}},
                                                   {"SolverC", {{"algorithm", "direct"}}}};
  for (int i = 0; i < 6; ++i)
    for (const auto& [name, config] : configs) {
      data::Measurement m;
      m.op = "generic";
      m.problem = "n=" + std::to_string(i + 1) + ",dir=" + (i % 2 ? "F" : "B") + ",device=gfx";
      m.kernel = name;
      m.valid = true;
      m.median_ms = 1 + (name == "SolverB" ? 0 : i);
      rows.push_back(m);
    }
  auto v = GenericVocabulary::fit(testing::pointers(rows), configs);
  EXPECT_EQ(v.features(),
            (std::vector<std::string>{"p_n", "p_log_n", "p_dir", "k_algorithm", "k_id"}));
  // SolverB wins every problem: the most frequent winner comes first.
  auto order = v.winner_order("n=9,dir=F,device=gfx", {"SolverA", "SolverC", "SolverB"});
  EXPECT_EQ(order.front(), "SolverB");
  auto engine =
      find_operation("generic").make_feature_engine(testing::fixed_hardware(), v.to_json());
  EXPECT_EQ(engine->group_key("n=3,dir=F,dtype=fp16,layout=NCHW,device=gfx"), "n=3,device=gfx");
  EXPECT_EQ(engine->dtype("n=3,dtype=fp16"), "fp16");
  EXPECT_EQ(engine->dtype("n=3"), "");
}

TEST(GenericFeatures, EngineWithoutStateIsAnError) {
  EXPECT_THROW(find_operation("generic").make_feature_engine(testing::fixed_hardware()),
               InputError);
  EXPECT_THROW(
      find_operation("generic").make_feature_engine(testing::fixed_hardware(), nlohmann::json()),
      InputError);
}

TEST(GenericDerived, ConvFeaturesMatchHandComputedValues) {
  const std::string base =
      "n=2,c=8,k=16,g=1,di=1,hi=10,wi=10,z=1,y=3,x=3,do=1,ho=8,wo=8,pad_d=0,pad_h=0,pad_w=0,"
      "stride_d=1,stride_h=1,stride_w=1,dil_d=1,dil_h=1,dil_w=1,dtype=fp16";
  auto run = [](const std::string& text) {
    std::vector<double> v(generic::conv_feature_names().size());
    KeyValues kv = KeyValues::parse(text);
    EXPECT_TRUE(generic::has_conv_fields(kv));
    generic::conv_features(kv, v.data());
    return v;
  };
  auto lg = [](double x) { return std::log2(1 + x); };
  const double flops = 2.0 * 2 * 16 * 8 * 64 * 9;                       // 147456
  const double bytes = 2.0 * (2 * 8 * 100 + 16 * 8 * 9 + 2 * 16 * 64);  // fp16
  auto f = run(base + ",dir=F");
  EXPECT_DOUBLE_EQ(f[0], lg(flops));
  EXPECT_DOUBLE_EQ(f[1], lg(2 * 64));  // M = n*ho*wo
  EXPECT_DOUBLE_EQ(f[2], lg(16));      // N = k
  EXPECT_DOUBLE_EQ(f[3], lg(8 * 9));   // K = c*y*x/g
  EXPECT_DOUBLE_EQ(f[4], lg(bytes));
  EXPECT_DOUBLE_EQ(f[5], flops / bytes);
  EXPECT_EQ(f[6], 0);  // not 1x1
  EXPECT_EQ(f[7], 0);  // not strided
  EXPECT_EQ(f[8], 0);  // not grouped
  // Power-of-two divisibility: n=2 -> 1, c=8 -> 3, k=16 -> 4, M=128 -> 7, N=16 -> 4, K=72 -> 3,
  // ho*wo=64 -> 6.
  EXPECT_EQ(std::vector<double>(f.begin() + 12, f.end()),
            (std::vector<double>{1, 3, 4, 7, 4, 3, 6}));
  auto b = run(base + ",dir=B");
  EXPECT_DOUBLE_EQ(b[1], lg(2 * 100));  // M = n*hi*wi
  EXPECT_DOUBLE_EQ(b[2], lg(8));        // N = c
  EXPECT_DOUBLE_EQ(b[3], lg(16 * 9));   // K = k*y*x/g
  auto w = run(base + ",dir=W");
  EXPECT_DOUBLE_EQ(w[1], lg(16));      // M = k
  EXPECT_DOUBLE_EQ(w[2], lg(8 * 9));   // N = c*y*x/g
  EXPECT_DOUBLE_EQ(w[3], lg(2 * 64));  // K = n*ho*wo
  auto dw = run("n=1,c=32,k=32,g=32,hi=8,wi=8,y=1,x=1,ho=4,wo=4,stride_h=2,stride_w=2");
  EXPECT_EQ(dw[6], 1);  // 1x1
  EXPECT_EQ(dw[7], 1);  // strided
  EXPECT_EQ(dw[8], 1);  // grouped
  EXPECT_EQ(dw[9], 1);  // depthwise
}

TEST(GenericDerived, GemmFeaturesMatchHandComputedValues) {
  std::vector<double> v(generic::gemm_feature_names().size());
  generic::gemm_features(KeyValues::parse("m=64,n=256,k=32,dtype=bf16"), v.data());
  const double flops = 2.0 * 64 * 256 * 32, bytes = 2.0 * (64 * 32 + 32 * 256 + 64 * 256);
  EXPECT_DOUBLE_EQ(v[0], std::log2(1 + flops));
  EXPECT_DOUBLE_EQ(v[1], std::log2(1 + bytes));
  EXPECT_DOUBLE_EQ(v[2], flops / bytes);
  EXPECT_DOUBLE_EQ(v[3], -2);  // log2(64/256)
  EXPECT_DOUBLE_EQ(v[4], 1);   // log2(64/32)
  EXPECT_DOUBLE_EQ(v[5], 3);   // log2(256/32)
}

}  // namespace
}  // namespace kselect
