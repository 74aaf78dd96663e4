#include <unistd.h>
#include "model/forest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/error.h"
#include "model/file_io.h"
#include "model/xgboost.h"

namespace kselect::model {
namespace {

struct Fixture {
  std::vector<float> x;
  std::vector<float> y;
  size_t rows = 3000, cols = 9;
};

// Random rows with NaNs, integer-valued columns (thresholds hit exactly) and a nonlinear label.
Fixture make_data(unsigned seed) {
  Fixture f;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3, 3);
  std::uniform_int_distribution<int> cat(0, 3);
  for (size_t r = 0; r < f.rows; ++r) {
    for (size_t c = 0; c < f.cols; ++c) {
      float v = c % 3 == 0 ? float(cat(rng)) : u(rng);
      if ((r + c) % 11 == 0) v = NAN;
      f.x.push_back(v);
    }
    const float* row = &f.x[r * f.cols];
    float a = std::isnan(row[1]) ? 0.5f : row[1];
    f.y.push_back(std::sin(a) * 2 + (std::isnan(row[0]) ? -1 : row[0]) + 0.3f * u(rng));
  }
  return f;
}

std::string train_model(const Fixture& f, int rounds, std::vector<float>* xgb_predictions) {
  xgb::Matrix m(f.x.data(), f.rows, f.cols, 1);
  m.set_labels(f.y);
  xgb::Booster b({&m});
  b.set_param("tree_method", "hist");
  b.set_param("max_depth", "6");
  b.set_param("eta", "0.3");
  b.set_param("nthread", "1");
  for (int i = 0; i < rounds; ++i) b.update(i, m);
  *xgb_predictions = b.predict(m);
  return b.save_json();
}

std::vector<float> forest_predict(const Forest& forest, const Fixture& f) {
  std::vector<float> out(f.rows);
  forest.predict(f.x.data(), f.rows, f.cols, out.data());
  return out;
}

TEST(Forest, MatchesXgboostPredictionsIncludingMissingValues) {
  Fixture f = make_data(1);
  std::vector<float> expected;
  std::string json = train_model(f, 40, &expected);
  Forest forest = Forest::from_xgboost_json(nlohmann::json::parse(json), "test");
  EXPECT_EQ(forest.num_trees(), 40u);
  EXPECT_LE(forest.num_features(), int(f.cols));
  EXPECT_EQ(forest.declared_features(), int(f.cols));
  auto got = forest_predict(forest, f);
  double worst = 0;
  for (size_t i = 0; i < f.rows; ++i)
    worst = std::max(worst, double(std::fabs(got[i] - expected[i])));
  EXPECT_LE(worst, 1e-6);
  // A wholly missing row follows every default branch.
  std::vector<float> nan_row(f.cols, NAN);
  float nan_prediction = 0;
  forest.predict(nan_row.data(), 1, f.cols, &nan_prediction);
  EXPECT_TRUE(std::isfinite(nan_prediction));
}

// predict_exact sums the same leaves as predict() in double: equal to float rounding. Rows that
// share columns (a problem's candidates) resolve those splits once; each row's margin is the
// same double as when it is scored alone (no resolution), bit for bit.
TEST(Forest, ExactMarginsMatchAndResolvingSharedColumnsChangesNothing) {
  Fixture f = make_data(5);
  std::vector<float> xgb_pred;
  Forest forest =
      Forest::from_xgboost_json(nlohmann::json::parse(train_model(f, 40, &xgb_pred)), "m");
  // Columns 0-3 take row 0's values in every row: the block is "one problem's candidates".
  for (size_t r = 1; r < f.rows; ++r)
    for (size_t c = 0; c < 4; ++c) f.x[r * f.cols + c] = f.x[c];
  const auto floats = forest_predict(forest, f);
  std::vector<double> block(f.rows);
  forest.predict_exact(f.x.data(), f.rows, f.cols, 0, forest.num_trees(), block.data());
  const auto stats = Forest::last_exact_stats();
  EXPECT_GT(stats.resolved_nodes, 0u) << "splits on the shared columns are resolved";
  for (size_t r = 0; r < f.rows; ++r) {
    double alone = 0;
    forest.predict_exact(&f.x[r * f.cols], 1, f.cols, 0, forest.num_trees(), &alone);
    ASSERT_EQ(block[r], alone) << "row " << r;
    ASSERT_NEAR(block[r], floats[r], 1e-5 * std::max(1.0, std::abs(double(floats[r])))) << r;
  }
  // A prefix of trees, then the rest, is the whole forest's margin bit for bit.
  std::vector<double> split(f.rows);
  forest.predict_exact(f.x.data(), f.rows, f.cols, 0, 7, split.data());
  forest.predict_exact(f.x.data(), f.rows, f.cols, 7, forest.num_trees(), split.data());
  EXPECT_EQ(split, block);
}

TEST(Forest, LoadsGzipCompressedModelsAsIs) {
  Fixture f = make_data(2);
  std::vector<float> expected;
  std::string json = train_model(f, 10, &expected);
  auto dir =
      std::filesystem::temp_directory_path() / ("kselect_forest_gz_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  write_gzip(dir / "model.json.gz", json);
  write_file(dir / "model.json", json);
  auto a = forest_predict(Forest::load(dir / "model.json.gz"), f);
  auto b = forest_predict(Forest::load(dir / "model.json"), f);
  EXPECT_EQ(a, b);
  std::filesystem::remove_all(dir);
}

// The fixture's rows with model column c moved to input column cols-1-c behind an extra
// column, and the mapping that tells a forest so.
struct Reordered {
  std::vector<int> mapping;
  std::vector<float> wide;  // rows of cols + 1
};

Reordered reversed_behind_extra_column(const Fixture& f) {
  Reordered out;
  for (size_t c = 0; c < f.cols; ++c) out.mapping.push_back(int(f.cols - c));
  for (size_t r = 0; r < f.rows; ++r) {
    out.wide.push_back(-99);
    for (size_t c = 0; c < f.cols; ++c) out.wide.push_back(f.x[r * f.cols + f.cols - 1 - c]);
  }
  return out;
}

TEST(Forest, RemappedColumnsGiveTheSamePredictions) {
  Fixture f = make_data(3);
  std::vector<float> expected;
  Forest forest =
      Forest::from_xgboost_json(nlohmann::json::parse(train_model(f, 15, &expected)), "t");
  const Reordered input = reversed_behind_extra_column(f);
  forest.remap_features(input.mapping);
  const std::vector<float>& wide = input.wide;
  std::vector<float> got(f.rows);
  forest.predict(wide.data(), f.rows, f.cols + 1, got.data());
  for (size_t i = 0; i < f.rows; ++i) ASSERT_NEAR(got[i], expected[i], 1e-6);
}

// XGBoost given a per-row base_margin and a Forest given the same prior: equal margins, also
// after the prior's column moved with remap_features.
TEST(Forest, PriorStartsEachRowAsXgboostsBaseMargin) {
  Fixture f = make_data(6);
  const int prior_column = 4;  // uniform in -3..3: negative and NaN values start at 0
  const double scale = 2.5;
  std::vector<float> margins;
  for (size_t r = 0; r < f.rows; ++r)
    margins.push_back(prior_margin(scale, f.x[r * f.cols + prior_column]));
  xgb::Matrix m(f.x.data(), f.rows, f.cols, 1);
  m.set_labels(f.y);
  m.set_base_margin(margins);
  xgb::Booster b({&m});
  b.set_param("tree_method", "hist");
  b.set_param("nthread", "1");
  for (int i = 0; i < 12; ++i) b.update(i, m);
  const std::vector<float> expected = b.predict(m);

  Forest forest = Forest::from_xgboost_json(nlohmann::json::parse(b.save_json()), "prior");
  auto without = forest_predict(forest, f);
  forest.set_prior(prior_column, scale, "prior");
  auto got = forest_predict(forest, f);
  double moved = 0;
  for (size_t i = 0; i < f.rows; ++i) {
    ASSERT_NEAR(got[i], expected[i], 1e-5) << "row " << i;
    moved = std::max(moved, double(std::fabs(got[i] - without[i])));
  }
  EXPECT_GT(moved, 0.5) << "the prior changes predictions";

  const Reordered input = reversed_behind_extra_column(f);
  forest.remap_features(input.mapping);
  const std::vector<float>& wide = input.wide;
  std::vector<float> remapped(f.rows);
  forest.predict(wide.data(), f.rows, f.cols + 1, remapped.data());
  EXPECT_EQ(remapped, got);
  EXPECT_EQ(forest.start_margin(wide.data()), margins[0]);
}

TEST(Forest, CorruptModelsAreStorageErrors) {
  auto dir =
      std::filesystem::temp_directory_path() / ("kselect_forest_bad_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  write_file(dir / "truncated.json", R"({"learner": {"objective": )");
  EXPECT_THROW(Forest::load(dir / "truncated.json"), StorageError);
  write_file(dir / "empty.json", "{}");
  EXPECT_THROW(Forest::load(dir / "empty.json"), StorageError);
  write_file(dir / "bad.json.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  EXPECT_THROW(Forest::load(dir / "bad.json.gz"), StorageError);
  EXPECT_THROW(Forest::load(dir / "absent.json"), StorageError);
  std::filesystem::remove_all(dir);
}

// A model that declares fewer inputs than a split reads is corrupt: it would read past a row.
TEST(Forest, SplitsBeyondTheDeclaredInputsAreStorageErrors) {
  Fixture f = make_data(2);
  std::vector<float> ignored;
  nlohmann::json model = nlohmann::json::parse(train_model(f, 5, &ignored));
  Forest forest = Forest::from_xgboost_json(model, "test");
  model["learner"]["learner_model_param"]["num_feature"] =
      std::to_string(forest.num_features() - 1);
  try {
    Forest::from_xgboost_json(model, "m.json");
    FAIL() << "a split beyond num_feature loaded";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: a split reads input"), std::string::npos)
        << e.what();
  }
}

// Three classes from two columns (quadrants, one class wins two of them), with missing values:
// a multi:softprob model through our XGBoost wrapper.
struct MultiClassModel {
  Fixture data;
  std::string json;
  std::vector<float> margins, probabilities;  // XGBoost's, n x 3
};

MultiClassModel train_multi_class(int rounds) {
  MultiClassModel m;
  m.data = make_data(4);
  m.data.rows = 600;
  m.data.x.resize(m.data.rows * m.data.cols);
  m.data.y.clear();
  for (size_t r = 0; r < m.data.rows; ++r) {
    const float* row = &m.data.x[r * m.data.cols];
    bool a = !std::isnan(row[1]) && row[1] > 0, b = !std::isnan(row[2]) && row[2] > 0.5f;
    m.data.y.push_back(a && b ? 0.0f : a ? 1.0f : 2.0f);
  }
  xgb::Matrix matrix(m.data.x.data(), m.data.rows, m.data.cols, 1);
  matrix.set_labels(m.data.y);
  xgb::Booster b({&matrix});
  b.set_param("objective", "multi:softprob");
  b.set_param("num_class", "3");
  b.set_param("tree_method", "hist");
  b.set_param("max_depth", "4");
  b.set_param("nthread", "1");
  for (int i = 0; i < rounds; ++i) b.update(i, matrix);
  m.margins = b.predict(matrix, 0, true);
  m.probabilities = b.predict(matrix);
  m.json = b.save_json();
  return m;
}

TEST(Forest, MultiClassMarginsAndSoftmaxMatchXgboost) {
  MultiClassModel m = train_multi_class(12);
  Forest forest = Forest::from_xgboost_json(nlohmann::json::parse(m.json), "multi");
  ASSERT_EQ(forest.num_outputs(), 3u);
  EXPECT_EQ(forest.num_trees(), 36u);  // one tree per class and round
  const size_t n = m.data.rows;
  ASSERT_EQ(m.margins.size(), n * 3);
  std::vector<float> got(n * 3);
  forest.predict_margins(m.data.x.data(), n, m.data.cols, got.data());
  for (size_t i = 0; i < n * 3; ++i) ASSERT_NEAR(got[i], m.margins[i], 1e-6) << "value " << i;
  for (size_t r = 0; r < n; ++r) {
    const float* z = &got[r * 3];
    double top = std::max({z[0], z[1], z[2]}), sum = 0;
    for (int g = 0; g < 3; ++g) sum += std::exp(z[g] - top);
    for (int g = 0; g < 3; ++g)
      ASSERT_NEAR(std::exp(z[g] - top) / sum, m.probabilities[r * 3 + g], 1e-6);
  }
  // The one-output paths refuse: they would add every class's trees into one margin.
  float one = 0;
  EXPECT_THROW(forest.predict(m.data.x.data(), 1, m.data.cols, &one), std::logic_error);
  EXPECT_THROW(forest.set_prior(0, 1.0, "multi"), StorageError);
}

TEST(Forest, OneOutputMarginsEqualPredict) {
  Fixture f = make_data(5);
  std::vector<float> expected;
  Forest forest =
      Forest::from_xgboost_json(nlohmann::json::parse(train_model(f, 8, &expected)), "t");
  EXPECT_EQ(forest.num_outputs(), 1u);
  std::vector<float> margins(f.rows);
  forest.predict_margins(f.x.data(), f.rows, f.cols, margins.data());
  EXPECT_EQ(margins, forest_predict(forest, f));
}

TEST(Forest, MultiClassModelWithBadTreeInfoIsAStorageError) {
  nlohmann::json model = nlohmann::json::parse(train_multi_class(2).json);
  auto& info = model["learner"]["gradient_booster"]["model"]["tree_info"];
  info[0] = 7;
  EXPECT_THROW(Forest::from_xgboost_json(model, "bad group"), StorageError);
  info.erase(info.begin());
  EXPECT_THROW(Forest::from_xgboost_json(model, "short tree_info"), StorageError);
}

}  // namespace
}  // namespace kselect::model
