#include "model/train_blend.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "eval/oof_file.h"
#include "model/blend.h"
#include "model/feature_spec.h"
#include "model/file_io.h"
#include "synthetic.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

using kselect::testing::quick_options;
using kselect::testing::synthetic_measurements;

std::string blend_error(const std::vector<data::Measurement>& data, const TrainOptions& o,
                        double min_efficiency) {
  try {
    train_near_blend(data, o, min_efficiency);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// One call writes what the three commands of experiments/blend/README.md write: the same regression,
// the same near-best efficiency model, and their blend over them.
TEST(TrainNearBlend, WritesBothMembersAndTheirBlendAsTheSeparateCommandsWould) {
  const auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_near_blend");
  o.folds = 2;
  const NearBlendResult r = train_near_blend(data, o, 0.8);
  EXPECT_EQ(r.dir, o.out_dir);

  const FeatureSpec blend = FeatureSpec::load(o.out_dir);
  EXPECT_EQ(blend.objective, Objective::kBlend);
  ASSERT_EQ(blend.blend.size(), 2u);
  EXPECT_EQ(blend.blend[0].model, "regression");
  EXPECT_EQ(blend.blend[1].model, "near");
  EXPECT_EQ(blend.blend[0].weight, 1.0);
  EXPECT_EQ(blend.blend[1].weight, 1.0);
  EXPECT_EQ(blend.blend_survivors, kDefaultBlendSurvivors);
  const FeatureSpec near = FeatureSpec::load(o.out_dir / "near");
  EXPECT_EQ(near.objective, Objective::kEfficiency);
  EXPECT_EQ(near.params["min_efficiency"], 0.8);
  EXPECT_EQ(FeatureSpec::load(o.out_dir / "regression").objective, Objective::kRegression);
  // Both members were cross-validated, so the blend can be scored out of fold.
  for (const char* member : {"regression", "near"})
    EXPECT_EQ(eval::read_oof_csv((o.out_dir / member / "oof_tflops.csv").string()).size(),
              data.size())
        << member;

  TrainOptions alone = o;
  alone.out_dir = testing::scratch_dir("train_near_blend_regression");
  train(data, alone);
  EXPECT_EQ(read_file(alone.out_dir / "model_tflops.json"),
            read_file(o.out_dir / "regression" / "model_tflops.json"));
  alone.out_dir = testing::scratch_dir("train_near_blend_near");
  alone.objective = Objective::kEfficiency, alone.min_efficiency = 0.8;
  train(data, alone);
  EXPECT_EQ(read_file(alone.out_dir / "model_tflops.json"),
            read_file(o.out_dir / "near" / "model_tflops.json"));
  EXPECT_EQ(r.to_json()["members"].size(), 2u);
}

// Options that cannot make the blend fail before anything trains, naming --blend-near.
TEST(TrainNearBlend, RefusesOptionsThatCannotMakeTheBlend) {
  const auto data = synthetic_measurements();
  TrainOptions o = quick_options("train_near_blend_bad");
  for (double bad : {0.0, 1.0, -0.5})
    EXPECT_NE(blend_error(data, o, bad).find("blend-near"), std::string::npos) << bad;
  TrainOptions ranking = o;
  ranking.objective = Objective::kRanking;
  EXPECT_NE(blend_error(data, ranking, 0.8).find("objective"), std::string::npos);
  TrainOptions warm = o;
  warm.warm_start = "some/model";
  EXPECT_NE(blend_error(data, warm, 0.8).find("warm"), std::string::npos);
  TrainOptions latency = o;
  latency.targets = {"latency"};
  EXPECT_NE(blend_error(data, latency, 0.8).find("tflops"), std::string::npos);
  TrainOptions dropped = o;
  dropped.min_efficiency = 0.5;
  EXPECT_NE(blend_error(data, dropped, 0.8).find("min-efficiency"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(o.out_dir / "regression"));

  // A trained model in the output directory is never written over.
  TrainOptions plain = o;
  plain.folds = 0;
  train(data, plain);
  const std::string model = read_file(o.out_dir / "model_tflops.json");
  EXPECT_NE(blend_error(data, o, 0.8).find("holds a trained model"), std::string::npos);
  EXPECT_EQ(read_file(o.out_dir / "model_tflops.json"), model);
  EXPECT_FALSE(std::filesystem::exists(o.out_dir / "regression"));
}

}  // namespace
}  // namespace kselect::model
