// feature_spec.json's engine_state and data_op (generic models): saved when present, absent
// (and not written) for GEMM models, so older model directories keep loading.
#include <gtest/gtest.h>

#include "model/feature_spec.h"
#include "model/file_io.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

TEST(FeatureSpecEngineState, RoundTripsAndIsOptional) {
  auto dir = kselect::testing::scratch_dir("spec_engine_state");
  std::filesystem::create_directories(dir);
  FeatureSpec s;
  s.op = "generic";
  s.dtype = "fp32";
  s.features = {"p_n", "k_id"};
  s.targets = {"latency"};
  s.engine_state = {{"engine", "generic"}, {"kernels", {{"a", nlohmann::json::object()}}}};
  s.data_op = "gemm";
  s.save(dir);
  FeatureSpec back = FeatureSpec::load(dir);
  EXPECT_EQ(back.engine_state, s.engine_state);
  EXPECT_EQ(back.data_op, "gemm");

  FeatureSpec gemm;
  gemm.op = "gemm";
  gemm.dtype = "fp32";
  gemm.features = {"M"};
  gemm.targets = {"tflops"};
  nlohmann::json j = gemm;
  EXPECT_FALSE(j.contains("engine_state"));
  EXPECT_FALSE(j.contains("data_op"));
  write_json(dir / "feature_spec.json", j);
  FeatureSpec old = FeatureSpec::load(dir);
  EXPECT_TRUE(old.engine_state.is_null());
  EXPECT_EQ(old.data_op, "");
}

}  // namespace
}  // namespace kselect::model
