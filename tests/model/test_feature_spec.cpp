#include "model/feature_spec.h"
#include "ops/operation.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "features/engine.h"
#include "model/file_io.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

FeatureSpec sample_spec() {
  FeatureSpec s;
  s.op = "gemm";
  s.dtype = "bf16";
  s.hardware = kselect::testing::fixed_hardware();
  s.schema = "ck55";
  s.features = {"M", "N", "tile_m", "layout"};
  s.categorical = {"layout"};
  s.targets = {"tflops", "latency"};
  s.log_targets = {"tflops"};
  s.params = {{"eta", 0.05}};
  return s;
}

TEST(FeatureSpec, RoundTripsThroughTheModelDirectory) {
  auto dir = kselect::testing::scratch_dir("spec_round_trip");
  std::filesystem::create_directories(dir);
  FeatureSpec s = sample_spec();
  s.save(dir);
  FeatureSpec back = FeatureSpec::load(dir);
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(s));
  EXPECT_TRUE(back.is_log("tflops"));
  EXPECT_FALSE(back.is_log("latency"));
  EXPECT_EQ(back.hardware.l2_kib, 1024);
}

TEST(FeatureSpec, RevisionsRoundTripAndNameTheFeaturesWhoseFormulaMoved) {
  auto dir = kselect::testing::scratch_dir("spec_revisions");
  std::filesystem::create_directories(dir);
  FeatureSpec s = sample_spec();
  s.features = {"M", "log2_est_cycles", "est_pack_share"};
  s.categorical.clear();
  const std::map<std::string, int> engine = {
      {"log2_est_cycles", 2}, {"est_pack_share", 3}, {"unused_feature", 2}};
  s.feature_revisions = revisions_of(s.features, engine);  // what training records
  EXPECT_EQ(s.feature_revisions,
            (std::map<std::string, int>{{"log2_est_cycles", 2}, {"est_pack_share", 3}}));
  s.save(dir);
  EXPECT_EQ(FeatureSpec::load(dir).feature_revisions, s.feature_revisions);
  EXPECT_TRUE(stale_features(s, engine).empty());
  // A model from before the change: every feature at revision 1.
  FeatureSpec old = s;
  old.feature_revisions.clear();
  EXPECT_EQ(stale_features(old, engine),
            (std::vector<std::string>{"log2_est_cycles", "est_pack_share"}));
  // A model newer than the engine is stale too (the engine went back a formula).
  EXPECT_EQ(stale_features(s, {{"log2_est_cycles", 2}}),
            std::vector<std::string>{"est_pack_share"});
}

TEST(FeatureSpec, MissingNewerOrMalformedSpecsAreStorageErrors) {
  auto dir = kselect::testing::scratch_dir("spec_bad");
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  std::filesystem::create_directories(dir);
  write_file(dir / "feature_spec.json", "{\"op\": 3");
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  write_file(dir / "feature_spec.json", "{\"op\": 5.4E6165}");  // a number JSON cannot hold
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  write_file(dir / "feature_spec.json", R"({"format_version": 1, "op": "gemm"})");
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  nlohmann::json newer = sample_spec();
  newer["format_version"] = kModelFormatVersion + 1;
  write_json(dir / "feature_spec.json", newer);
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  nlohmann::json statistic = sample_spec();
  statistic["time_statistic"] = "mean";
  write_json(dir / "feature_spec.json", statistic);
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
  statistic.erase("time_statistic");  // written before it was recorded: the median
  write_json(dir / "feature_spec.json", statistic);
  EXPECT_EQ(FeatureSpec::load(dir).time_statistic, "median");
  nlohmann::json objective = sample_spec();
  objective["objective"] = "likelihood";
  write_json(dir / "feature_spec.json", objective);
  try {
    FeatureSpec::load(dir);
    FAIL() << "an unknown objective loaded";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("regression, ranking"), std::string::npos) << e.what();
  }
  objective.erase("objective");  // written before objectives were recorded: a regression
  write_json(dir / "feature_spec.json", objective);
  EXPECT_EQ(FeatureSpec::load(dir).objective, Objective::kRegression);
}

// Every list of names is checked when a spec loads: a duplicated feature would shift every
// later column, a categorical feature or log target must be one of the listed ones.
TEST(FeatureSpec, ListsOfNamesAreCheckedOnLoad) {
  auto dir = kselect::testing::scratch_dir("spec_names");
  std::filesystem::create_directories(dir);
  const nlohmann::json good = sample_spec();
  auto refused = [&](const char* field, const nlohmann::json& value, const char* says) {
    nlohmann::json j = good;
    j[field] = value;
    write_json(dir / "feature_spec.json", j);
    try {
      FeatureSpec::load(dir);
      ADD_FAILURE() << field << " = " << value << " loaded";
    } catch (const StorageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("feature_names", {"M", "N", "tile_m", "M"}, "feature_names lists 'M' twice");
  refused("feature_names", {"M", "", "tile_m", "layout"}, "feature_names[1] is empty");
  refused("categorical_features", {"dtype"}, "'dtype', which is not in feature_names");
  refused("targets", {"tflops", "tflops"}, "targets lists 'tflops' twice");
  refused("targets", nlohmann::json::array(), "targets is empty");
  refused("log_targets", {"bandwidth"}, "'bandwidth', which is not in targets");
  write_json(dir / "feature_spec.json", good);
  EXPECT_EQ(FeatureSpec::load(dir).features.size(), 4u);
}

// Older kselect versions read format 1: only a classify model, which they would misread,
// needs format 2, only a model with a prior, which they would predict without, format 3, and
// only a blend format 4.
TEST(FeatureSpec, OnlyClassifyModelsNeedFormatTwoPriorsThreeAndBlendsFour) {
  FeatureSpec s = sample_spec();
  EXPECT_EQ(nlohmann::json(s)["format_version"], 1);
  s.objective = Objective::kClassify;
  EXPECT_EQ(nlohmann::json(s)["format_version"], 2);
  EXPECT_LE(required_format_version(s), kModelFormatVersion);
  s.objective = Objective::kRegression;
  s.priors["tflops"] = {"tile_m", 1.5};
  EXPECT_EQ(nlohmann::json(s)["format_version"], 3);
  EXPECT_LE(required_format_version(s), kModelFormatVersion);
  // A blend, which they would load as its first member's model files (there are none), 4.
  s.objective = Objective::kBlend;
  s.blend = {{"../a", 1.0}, {"../b", 2.0}};
  EXPECT_EQ(nlohmann::json(s)["format_version"], 4);
  EXPECT_LE(required_format_version(s), kModelFormatVersion);
  auto dir = kselect::testing::scratch_dir("spec_blend");
  std::filesystem::create_directories(dir);
  s.save(dir);
  const FeatureSpec back = FeatureSpec::load(dir);
  ASSERT_EQ(back.blend.size(), 2u);
  EXPECT_EQ(back.blend[1].model, "../b");
  EXPECT_EQ(back.blend[1].weight, 2.0);
}

TEST(FeatureSpec, PriorsRoundTripAndAreCheckedOnLoad) {
  auto dir = kselect::testing::scratch_dir("spec_prior");
  std::filesystem::create_directories(dir);
  FeatureSpec s = sample_spec();
  s.priors["tflops"] = {"tile_m", 1.83};
  s.save(dir);
  FeatureSpec back = FeatureSpec::load(dir);
  ASSERT_NE(back.prior("tflops"), nullptr);
  EXPECT_EQ(back.prior("tflops")->feature, "tile_m");
  EXPECT_EQ(back.prior("tflops")->scale, 1.83);
  EXPECT_EQ(back.prior("latency"), nullptr);

  nlohmann::json j = s;
  j["priors"]["tflops"]["feature"] = "est_flops_per_cycle";  // not a column of the model
  write_json(dir / "feature_spec.json", j);
  try {
    FeatureSpec::load(dir);
    FAIL() << "a prior on a feature the model lacks";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("est_flops_per_cycle"), std::string::npos) << e.what();
  }
  for (double bad : {0.0, -2.0}) {
    j["priors"]["tflops"] = {{"feature", "tile_m"}, {"scale", bad}};
    write_json(dir / "feature_spec.json", j);
    EXPECT_THROW(FeatureSpec::load(dir), StorageError) << bad;
  }
  j["priors"]["tflops"] = {{"feature", "tile_m"}};  // no scale
  write_json(dir / "feature_spec.json", j);
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
}

// A shortlist needs no newer format: a reader that ignores it ranks every candidate.
TEST(FeatureSpec, ShortlistRoundTripsWithoutANewFormat) {
  auto dir = kselect::testing::scratch_dir("spec_shortlist");
  std::filesystem::create_directories(dir);
  FeatureSpec s = sample_spec();
  EXPECT_FALSE(nlohmann::json(s).contains("shortlist"));
  s.shortlist = {"a", "b"};
  s.shortlist_tolerance = 0.01;
  EXPECT_EQ(nlohmann::json(s)["format_version"], 1);
  s.save(dir);
  FeatureSpec back = FeatureSpec::load(dir);
  EXPECT_EQ(back.shortlist, s.shortlist);
  EXPECT_EQ(back.shortlist_tolerance, 0.01);

  nlohmann::json j = s;
  for (double bad : {-0.5, 1.0}) {
    j["shortlist"]["tolerance"] = bad;
    write_json(dir / "feature_spec.json", j);
    EXPECT_THROW(FeatureSpec::load(dir), StorageError) << bad;
  }
  j["shortlist"] = {{"tolerance", 0.01}, {"kernels", "not a list"}};
  write_json(dir / "feature_spec.json", j);
  EXPECT_THROW(FeatureSpec::load(dir), StorageError);
}

TEST(FeatureSpec, TrainingRangesRoundTripWithoutANewFormatAndFlagExtrapolation) {
  auto dir = kselect::testing::scratch_dir("spec_ranges");
  std::filesystem::create_directories(dir);
  FeatureSpec s = sample_spec();
  EXPECT_FALSE(nlohmann::json(s).contains("training_ranges"));
  widen_training_ranges(s.training_ranges, {"m=8,n=64,layout=rcr", "m=512,n=32,layout=rrr"});
  ASSERT_EQ(s.training_ranges.size(), 2u);  // layout is not a number
  EXPECT_EQ(s.training_ranges["m"].min, 8);
  EXPECT_EQ(s.training_ranges["m"].max, 512);
  EXPECT_EQ(nlohmann::json(s)["format_version"], 1);
  s.save(dir);
  FeatureSpec back = FeatureSpec::load(dir);
  EXPECT_EQ(back.training_ranges["n"].min, 32);
  EXPECT_EQ(back.training_ranges["n"].max, 64);

  // A warm start widens the ranges it continues.
  widen_training_ranges(back.training_ranges, {"m=4096,n=48,layout=rcr"});
  EXPECT_EQ(back.training_ranges["m"].max, 4096);
  EXPECT_EQ(back.training_ranges["n"].min, 32);

  const auto outside = outside_training_ranges(s, "m=600,n=40,layout=ccr");
  ASSERT_EQ(outside.size(), 1u);
  EXPECT_EQ(outside[0].field, "m");
  EXPECT_EQ(outside[0].value, 600);
  EXPECT_TRUE(outside_training_ranges(s, "m=512,n=32,layout=ccr").empty());
  EXPECT_TRUE(outside_training_ranges(sample_spec(), "m=600,n=40").empty());  // none recorded
}

TEST(FeatureSpec, ScoreSignIsNegativeOnlyForRegressionOnLatency) {
  EXPECT_EQ(score_sign(Objective::kRegression, "tflops"), 1.0);
  EXPECT_EQ(score_sign(Objective::kRegression, "bandwidth"), 1.0);
  EXPECT_EQ(score_sign(Objective::kRegression, "latency"), -1.0);
  for (Objective objective : {Objective::kRanking, Objective::kEfficiency})
    for (const char* target : {"tflops", "latency", "bandwidth"})
      EXPECT_EQ(score_sign(objective, target), 1.0) << to_string(objective) << " " << target;
}

TEST(FeatureMapping, ReorderedAndSubsetListsMapByName) {
  auto engine = find_operation("gemm").make_feature_engine(kselect::testing::fixed_hardware());
  const auto& all = engine->all_features();
  std::vector<std::string> wanted = {"tile_k", "M", "hw_num_cus"};
  auto columns = engine->columns_of(wanted, "model");
  ASSERT_EQ(columns.size(), 3u);
  for (size_t i = 0; i < wanted.size(); ++i) EXPECT_EQ(all[columns[i]], wanted[i]);
}

TEST(FeatureMapping, UnknownFeaturesFailListingEveryMissingName) {
  auto engine = find_operation("gemm").make_feature_engine(kselect::testing::fixed_hardware());
  try {
    engine->columns_of({"M", "wave_mode", "has_dsb"}, "model x");
    FAIL();
  } catch (const InputError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("wave_mode, has_dsb"), std::string::npos) << what;
    EXPECT_NE(what.find("model x"), std::string::npos) << what;
  }
  // A GEMM model's features are not conv's: the conv engine names what it lacks.
  auto conv = find_operation("conv").make_feature_engine(kselect::testing::fixed_hardware());
  try {
    conv->columns_of({"N", "M", "warp_tile_m", "pad_m"}, "model y");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("M, pad_m"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kselect::model
