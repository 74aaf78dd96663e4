// A model directory as CK Tile's dispatcher writes it: its feature_spec.json ({op_type, dtype,
// arch, feature_names, ...}, ck55 names) and a LightGBM text model of log1p(TFLOPS). The ranker
// loads it and ranks kselect's GEMM candidates; a feature name kselect does not compute is an
// error that lists it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "../model/synthetic.h"
#include "../model/train_fixture.h"
#include "core/error.h"
#include "ops/operation.h"
#include "select/ranker.h"

namespace kselect::select {
namespace {

using kselect::testing::fixed_hardware;

std::vector<std::string> ck55_names() {
  return find_operation("gemm").make_feature_engine(fixed_hardware())->schema("ck55").features;
}

std::size_t index_of(const std::vector<std::string>& names, const std::string& name) {
  return std::size_t(std::find(names.begin(), names.end(), name) - names.begin());
}

// A two-tree LightGBM regression: M <= 100.5 adds 0.1 (else 0.2), tile_m <= 64 adds 0.3
// (else 0.4).
std::string lightgbm_model(const std::vector<std::string>& names) {
  std::ostringstream m;
  m << "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
    << "max_feature_idx=" << names.size() - 1 << "\nobjective=regression\nfeature_names=";
  for (std::size_t i = 0; i < names.size(); ++i) m << (i ? " " : "") << names[i];
  m << "\n\n";
  auto tree = [&](int number, std::size_t feature, double threshold, double left, double right) {
    m << "Tree=" << number << "\nnum_leaves=2\nnum_cat=0\nsplit_feature=" << feature
      << "\nsplit_gain=1\nthreshold=" << threshold << "\ndecision_type=2\nleft_child=-1\n"
      << "right_child=-2\nleaf_value=" << left << " " << right << "\nleaf_weight=1 1\n"
      << "leaf_count=1 1\ninternal_value=0\ninternal_weight=2\ninternal_count=2\nis_linear=0\n"
      << "shrinkage=1\n\n\n";
  };
  tree(0, index_of(names, "M"), 100.5, 0.1, 0.2);
  tree(1, index_of(names, "tile_m"), 64, 0.3, 0.4);
  m << "end of trees\n";
  return m.str();
}

std::filesystem::path ck_model_dir(const std::string& name, std::vector<std::string> names) {
  auto dir = kselect::testing::scratch_dir(name);
  std::filesystem::create_directories(dir);
  nlohmann::json spec = {{"op_type", "gemm_universal"},
                         {"dtype", "fp32"},
                         {"arch", "gfx942"},
                         {"feature_names", names},
                         {"categorical_features", nlohmann::json::array()},
                         {"targets", {"tflops"}},
                         {"log_targets", {"tflops"}},
                         {"params", {{"num_leaves", 127}}}};
  std::ofstream(dir / "feature_spec.json") << spec.dump(2);
  std::ofstream(dir / "model_tflops.txt") << lightgbm_model(names);
  return dir;
}

TEST(CkModels, ACkLightGbmModelRanksKselectsCandidates) {
  const auto dir = ck_model_dir("ck_model", ck55_names());
  const auto ranker = Ranker::load(dir, fixed_hardware());
  EXPECT_EQ(ranker.spec().op, "gemm");
  EXPECT_EQ(ranker.spec().params.value("ck_arch", ""), "gfx942");
  std::vector<std::string> names;
  for (const auto& c : kselect::testing::synthetic_configs()) names.push_back(c.name());
  for (const char* problem :
       {"m=33,n=4096,k=333,layout=rcr,dtype=fp32", "m=3000,n=256,k=512,layout=rcr,dtype=fp32"}) {
    const auto ranked = ranker.rank(problem, names);
    ASSERT_EQ(ranked.size(), names.size());
    const double m = gemm::GemmProblem::parse(problem).m;
    for (const auto& s : ranked) {
      const double tile_m = gemm::GemmConfig::parse_name(s.kernel).tile_m;
      const double margin = (m <= 100.5 ? 0.1 : 0.2) + (tile_m <= 64 ? 0.3 : 0.4);
      EXPECT_NEAR(s.score, margin, 1e-12) << s.kernel;
      EXPECT_NEAR(s.tflops, std::expm1(margin), 1e-12) << "log1p(TFLOPS), CK's target";
    }
    EXPECT_GT(gemm::GemmConfig::parse_name(ranked.front().kernel).tile_m, 64);
  }
}

TEST(CkModels, AFeatureKselectDoesNotComputeIsAnErrorListingIt) {
  auto names = ck55_names();
  names.push_back("lds_bank_conflicts_per_wave");
  names.push_back("xcd_affinity");
  const auto dir = ck_model_dir("ck_model_unknown", names);
  try {
    Ranker::load(dir, fixed_hardware());
    FAIL() << "a model reading features kselect cannot compute must not load";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("lds_bank_conflicts_per_wave"), std::string::npos) << what;
    EXPECT_NE(what.find("xcd_affinity"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace kselect::select
