// model::LightGbmModel: parity with LightGBM's own predictions on the shipped fixtures
// (../shared/data/lightgbm-parity, see its README.md), and corrupt or truncated model files
// refused with a StorageError that says where.
#include "model/lightgbm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "core/error.h"
#include "model/file_io.h"
#include "model/forest.h"

namespace kselect::model {
namespace {

namespace fs = std::filesystem;

fs::path parity_dir() {
  return fs::path(KSELECT_SHARED_DATA_DIR) / "lightgbm-parity";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// from_chars rounds correctly; the README warns that many test rows sit exactly on a
// threshold or 1 ulp beside it, so a sloppy parser would change the expected path.
double parse_double(const std::string& word) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || ptr != word.data() + word.size()) {
    ADD_FAILURE() << "bad number '" << word << "'";
  }
  return value;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};

Csv read_test_csv(const fs::path& path) {
  Csv csv;
  std::istringstream in(slurp(path));
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    if (first) {
      csv.header = cells;
      first = false;
      continue;
    }
    std::vector<double> row;
    for (const auto& c : cells) row.push_back(parse_double(c));
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

std::vector<double> read_predictions(const fs::path& path) {
  std::vector<double> values;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) values.push_back(parse_double(line));
  }
  return values;
}

// Predicts every test row with the model and compares with LightGBM's predictions; returns
// the largest error, relative to max(1, |expected|) so values near 0 are held to 1e-12
// absolute.
double max_error_against_lightgbm(const std::string& fixture, const std::string& model_file,
                                  const std::string& predictions_file) {
  const fs::path dir = parity_dir() / fixture;
  const auto model = LightGbmModel::load(dir / model_file);
  const Csv csv = read_test_csv(dir / "test.csv");
  const auto expected = read_predictions(dir / predictions_file);
  EXPECT_EQ(csv.header, model.feature_names()) << fixture << ": test.csv columns";
  EXPECT_EQ(csv.rows.size(), expected.size()) << fixture;
  EXPECT_EQ(model.num_tree_per_iteration(), 1);
  double worst = 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < std::min(csv.rows.size(), expected.size()); ++i) {
    EXPECT_EQ(csv.rows[i].size(), model.num_features()) << fixture << " row " << i;
    if (csv.rows[i].size() != model.num_features()) continue;
    double raw = 0;
    double out = 0;
    model.predict_raw(csv.rows[i].data(), &raw);
    model.predict(csv.rows[i].data(), &out);
    EXPECT_EQ(raw, out) << "regression's output transform is the identity";
    const double error = std::fabs(out - expected[i]) / std::max(1.0, std::fabs(expected[i]));
    worst = std::max(worst, error);
    if (error > 1e-12 && ++wrong <= 5) {
      ADD_FAILURE() << fixture << "/" << model_file << " row " << i << ": predicted " << out
                    << ", LightGBM " << expected[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << fixture << "/" << model_file << ": rows off by more than 1e-12";
  std::cout << "[ parity   ] " << fixture << "/" << model_file << ": " << csv.rows.size()
            << " rows, max relative error " << worst << "\n";
  return worst;
}

#define SKIP_WITHOUT_FIXTURES() \
  if (!fs::is_directory(parity_dir())) GTEST_SKIP() << "no " << parity_dir().string();

TEST(LightGbmParity, NumericRegressionMatchesLightGbm) {
  SKIP_WITHOUT_FIXTURES();
  EXPECT_LE(max_error_against_lightgbm("numeric_regression", "model.txt", "predictions.txt"),
            1e-12);
}

TEST(LightGbmParity, MissingValuesWithNaNMissingTypeMatchesLightGbm) {
  SKIP_WITHOUT_FIXTURES();
  EXPECT_LE(max_error_against_lightgbm("missing_values", "model.txt", "predictions.txt"), 1e-12);
}

TEST(LightGbmParity, MissingValuesWithZeroAsMissingMatchesLightGbm) {
  SKIP_WITHOUT_FIXTURES();
  EXPECT_LE(max_error_against_lightgbm("missing_values", "model_zero_as_missing.txt",
                                       "predictions_zero_as_missing.txt"),
            1e-12);
}

TEST(LightGbmParity, CategoricalBitsetsMatchLightGbm) {
  SKIP_WITHOUT_FIXTURES();
  EXPECT_LE(max_error_against_lightgbm("categorical", "model.txt", "predictions.txt"), 1e-12);
}

TEST(LightGbmParity, CkLikeLogTargetModelMatchesLightGbm) {
  SKIP_WITHOUT_FIXTURES();
  EXPECT_LE(max_error_against_lightgbm("log_target_like_ck", "model.txt", "predictions.txt"),
            1e-12);
}

// ---- The same models compiled into model::Forest ------------------------------------------
// kselect's feature rows are floats, so the compiled forest must decide as LightGBM does on
// every float input: checked on the test rows rounded to float, and on rows that put each
// split's feature at the float threshold and its neighbours (and the zero band, NaN) — against
// LightGbmModel, itself checked against LightGBM above. Where rounding to float leaves a row
// unchanged, LightGBM's own prediction is the expectation too.
struct CompiledParity {
  std::size_t rows = 0, probes = 0, lightgbm_rows = 0;
  double worst = 0;
};

void expect_close(double got, double want, const std::string& what, CompiledParity& p) {
  const double error = std::fabs(got - want) / std::max(1.0, std::fabs(want));
  p.worst = std::max(p.worst, error);
  EXPECT_LE(error, 1e-12) << what << ": compiled " << got << ", expected " << want;
}

double compiled_margin(const Forest& forest, const std::vector<float>& row) {
  double out = 0;
  forest.predict_exact(row.data(), 1, row.size(), 0, forest.num_trees(), &out);
  return out;
}

CompiledParity compiled_against_lightgbm(const std::string& fixture, const std::string& model_file,
                                         const std::string& predictions_file) {
  const fs::path dir = parity_dir() / fixture;
  const auto model = LightGbmModel::load(dir / model_file);
  const Forest forest = Forest::load(dir / model_file);
  EXPECT_EQ(forest.declared_features(), int(model.num_features()));
  const Csv csv = read_test_csv(dir / "test.csv");
  const auto expected = read_predictions(dir / predictions_file);
  CompiledParity p;
  auto check = [&](const std::vector<float>& row, const std::string& what) {
    const std::vector<double> wide(row.begin(), row.end());
    double want = 0;
    model.predict_raw(wide.data(), &want);
    expect_close(compiled_margin(forest, row), want, what, p);
  };
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    const std::vector<float> row(csv.rows[i].begin(), csv.rows[i].end());
    check(row, fixture + " row " + std::to_string(i));
    ++p.rows;
    const bool exact = std::equal(
        row.begin(), row.end(), csv.rows[i].begin(),
        [](float f, double d) { return (std::isnan(f) && std::isnan(d)) || double(f) == d; });
    if (exact && i < expected.size()) {
      expect_close(compiled_margin(forest, row), expected[i],
                   fixture + " LightGBM row " + std::to_string(i), p);
      ++p.lightgbm_rows;
    }
  }
  // Every numerical threshold of every tree, probed at the floats around it.
  std::vector<float> base(csv.rows.front().begin(), csv.rows.front().end());
  for (const auto& tree : model.trees()) {
    for (std::size_t node = 0; node < tree.split_feature.size(); ++node) {
      if (tree.decision_type[node] & kLightGbmCategorical) continue;
      const auto feature = std::size_t(tree.split_feature[node]);
      const float near = float(tree.threshold[node]);
      for (float x : {near, std::nextafter(near, -INFINITY), std::nextafter(near, INFINITY), 0.0f,
                      -0.0f, 1e-35f, -1e-35f, 2e-35f, NAN}) {
        std::vector<float> row = base;
        row[feature] = x;
        check(row, fixture + " threshold probe on feature " + std::to_string(feature));
        ++p.probes;
      }
    }
  }
  std::cout << "[ compiled ] " << fixture << "/" << model_file << ": " << p.rows << " rows ("
            << p.lightgbm_rows << " float-exact, against LightGBM), " << p.probes
            << " threshold probes, max relative error " << p.worst << "\n";
  return p;
}

TEST(CompiledLightGbm, EveryFixtureDecidesAsLightGbmOnFloatInputs) {
  SKIP_WITHOUT_FIXTURES();
  for (const auto& [fixture, model, predictions] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"numeric_regression", "model.txt", "predictions.txt"},
           {"missing_values", "model.txt", "predictions.txt"},
           {"missing_values", "model_zero_as_missing.txt", "predictions_zero_as_missing.txt"},
           {"categorical", "model.txt", "predictions.txt"},
           {"log_target_like_ck", "model.txt", "predictions.txt"}}) {
    const CompiledParity p = compiled_against_lightgbm(fixture, model, predictions);
    EXPECT_GT(p.rows, 0u) << fixture;
    EXPECT_GT(p.probes, 0u) << fixture;
    EXPECT_LE(p.worst, 1e-12) << fixture;
  }
}

TEST(CompiledLightGbm, UnsupportedObjectivesAreRefused) {
  const std::string binary = R"(tree
version=v4
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=0
objective=binary sigmoid:1
feature_names=x
feature_infos=[0:1]
tree_sizes=10

Tree=0
num_leaves=1
num_cat=0
split_feature=
split_gain=
threshold=
decision_type=
left_child=
right_child=
leaf_value=0.5
leaf_weight=
leaf_count=
internal_value=
internal_weight=
internal_count=
is_linear=0
shrinkage=1


end of trees
)";
  const auto model = LightGbmModel::parse(binary, "binary.txt");
  try {
    Forest::from_lightgbm(model, "binary.txt");
    FAIL() << "a binary classifier's margin is not a kernel score";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("objective 'binary'"), std::string::npos) << e.what();
  }
}

TEST(LightGbmModel, ReadsTheHeaderAndTreeFields) {
  SKIP_WITHOUT_FIXTURES();
  const auto model = LightGbmModel::load(parity_dir() / "categorical" / "model.txt");
  EXPECT_EQ(model.num_class(), 1);
  EXPECT_EQ(model.objective().name, "regression");
  EXPECT_EQ(model.feature_names(),
            (std::vector<std::string>{"num0", "cat70", "num1", "cat5", "num2", "cat12", "num3"}));
  ASSERT_EQ(model.trees().size(), 100u);
  const auto& tree0 = model.trees()[0];
  EXPECT_EQ(tree0.num_leaves, 31);
  EXPECT_EQ(tree0.shrinkage, 1.0);
  EXPECT_EQ(model.trees()[1].shrinkage, 0.1);
  ASSERT_EQ(tree0.cat_boundaries.size(), 14u);
  // Words above 2^31 are read as unsigned.
  EXPECT_EQ(tree0.cat_threshold[4], 3438446321u);
  EXPECT_EQ(tree0.threshold[18], 5.5000000000000009);
}

TEST(LightGbmModel, LoadsGzippedModels) {
  SKIP_WITHOUT_FIXTURES();
  const fs::path dir = fs::temp_directory_path() / "kselect_lightgbm_gz";
  fs::create_directories(dir);
  const fs::path source = parity_dir() / "numeric_regression" / "model.txt";
  write_gzip(dir / "model.txt.gz", slurp(source));
  const auto plain = LightGbmModel::load(source);
  const auto gz = LightGbmModel::load(dir / "model.txt.gz");
  const std::vector<double> row(plain.num_features(), 0.5);
  double a = 0;
  double b = 0;
  plain.predict(row.data(), &a);
  gz.predict(row.data(), &b);
  EXPECT_EQ(a, b);
  fs::remove_all(dir);
}

// A small hand-written model: two classes of stumps, to check the per-class accumulation
// and the output transforms that the regression fixtures cannot.
std::string stump_model(const std::string& objective, int num_class, int trees) {
  std::string text = "tree\nversion=v4\nnum_class=" + std::to_string(num_class) +
                     "\nnum_tree_per_iteration=" + std::to_string(num_class) +
                     "\nlabel_index=0\nmax_feature_idx=1\nobjective=" + objective +
                     "\nfeature_names=a b\nfeature_infos=none none\ntree_sizes=";
  for (int i = 0; i < trees; ++i) text += i ? " 1" : "1";
  text += "\n\n";
  for (int i = 0; i < trees; ++i) {
    text += "Tree=" + std::to_string(i) +
            "\nnum_leaves=2\nnum_cat=0\nsplit_feature=" + std::to_string(i % 2) +
            "\nsplit_gain=1\nthreshold=0.5\ndecision_type=2\nleft_child=-1\nright_child=-2\n"
            "leaf_value=" +
            std::to_string(0.25 * (i + 1)) + " " + std::to_string(-0.5 * (i + 1)) +
            "\nleaf_weight=1 1\nleaf_count=1 1\ninternal_value=0\ninternal_weight=0\n"
            "internal_count=2\nis_linear=0\nshrinkage=0.1\n\n\n";
  }
  return text + "end of trees\n\nfeature_importances:\n\nparameters:\nend of parameters\n";
}

TEST(LightGbmModel, MulticlassSumsTreesPerClassAndAppliesSoftmax) {
  const auto model = LightGbmModel::parse(stump_model("multiclass num_class:2", 2, 4), "mc.txt");
  EXPECT_EQ(model.objective().name, "multiclass");
  ASSERT_EQ(model.objective().parameters.size(), 1u);
  EXPECT_EQ(model.objective().parameters[0].second, "2");
  const double row[2] = {0.0, 1.0};  // a goes left, b goes right
  double raw[2];
  model.predict_raw(row, raw);
  // Class 0: trees 0 and 2 split on a (left): 0.25 + 0.75; class 1: trees 1, 3 on b (right).
  EXPECT_EQ(raw[0], 0.25 + 0.75);
  EXPECT_EQ(raw[1], -1.0 + -2.0);
  double prob[2];
  model.predict(row, prob);
  EXPECT_NEAR(prob[0], 1.0 / (1.0 + std::exp(raw[1] - raw[0])), 1e-15);
  EXPECT_NEAR(prob[0] + prob[1], 1.0, 1e-15);
}

TEST(LightGbmModel, BinaryAppliesTheSigmoidParameter) {
  const auto model = LightGbmModel::parse(stump_model("binary sigmoid:2", 1, 1), "bin.txt");
  EXPECT_EQ(model.objective().sigmoid, 2.0);
  const double row[2] = {1.0, 0.0};
  double raw = 0;
  double prob = 0;
  model.predict_raw(row, &raw);
  model.predict(row, &prob);
  EXPECT_EQ(raw, -0.5);
  EXPECT_NEAR(prob, 1.0 / (1.0 + std::exp(-2.0 * raw)), 1e-15);
}

// Expects a StorageError whose message holds each of `parts`.
void expect_storage_error(const std::string& text, const std::vector<std::string>& parts,
                          const std::string& why) {
  try {
    LightGbmModel::parse(text, "model.txt");
    ADD_FAILURE() << why << ": parsed";
  } catch (const StorageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("model.txt", 0), 0u) << why << ": " << what;
    for (const auto& part : parts) {
      EXPECT_NE(what.find(part), std::string::npos) << why << ": '" << part << "' not in " << what;
    }
  }
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

TEST(LightGbmModel, TruncatedFilesAreStorageErrors) {
  SKIP_WITHOUT_FIXTURES();
  for (const char* fixture : {"numeric_regression", "categorical"}) {
    const std::string text = slurp(parity_dir() / fixture / "model.txt");
    const std::size_t end = text.find("end of trees");
    ASSERT_NE(end, std::string::npos);
    // Cuts in the header, inside trees (mid-number and mid-line), and inside the last line.
    std::vector<std::size_t> cuts = {0,       3,         40,       200,     end / 7, end / 3,
                                     end / 2, end - 700, end - 50, end - 1, end + 5};
    for (std::size_t cut = 1000; cut < end; cut += 9973) cuts.push_back(cut);
    for (std::size_t cut : cuts) {
      EXPECT_THROW(LightGbmModel::parse(text.substr(0, cut), "model.txt"), StorageError)
          << fixture << " cut at byte " << cut;
    }
    // The sections after the trees are not needed: a cut after `end of trees` still loads.
    EXPECT_NO_THROW(LightGbmModel::parse(text.substr(0, end + 13), "model.txt")) << fixture;
  }
}

TEST(LightGbmModel, ArraysOfTheWrongLengthNameTheTreeAndField) {
  const std::string text = stump_model("regression", 1, 3);
  expect_storage_error(replace_once(text, "Tree=1\nnum_leaves=2", "Tree=1\nnum_leaves=3"),
                       {"Tree=1", "leaf_value has 2 entries, num_leaves 3 needs 3"},
                       "num_leaves too large");
  expect_storage_error(replace_once(text, "right_child=-2", "right_child=-2 -1"),
                       {"Tree=0", "right_child has 2 entries, num_leaves 2 needs 1"},
                       "extra child");
  expect_storage_error(replace_once(text, "feature_names=a b", "feature_names=a"),
                       {"feature_names has 1 names, max_feature_idx 1 needs 2"}, "names");
  expect_storage_error(replace_once(text, "tree_sizes=1 1 1", "tree_sizes=1 1"),
                       {"tree_sizes lists 2 trees, the file has 3"}, "tree count");
}

// Linear trees' leaves are models of the row: refused, not predicted from their constants.
TEST(LightGbmModel, LinearTreesAreRefused) {
  const std::string text = stump_model("regression", 1, 2);
  expect_storage_error(replace_once(text, "is_linear=0", "is_linear=1"),
                       {"Tree=0", "linear trees (is_linear=1) are not supported"}, "linear");
}

TEST(LightGbmModel, OutOfRangeIndicesAreStorageErrors) {
  const std::string text = stump_model("regression", 1, 2);
  expect_storage_error(replace_once(text, "split_feature=1", "split_feature=2"),
                       {"Tree=1", "split_feature 2 at node 0"}, "feature past max_feature_idx");
  expect_storage_error(replace_once(text, "split_feature=0", "split_feature=-1"),
                       {"Tree=0", "split_feature -1"}, "negative feature");
  expect_storage_error(replace_once(text, "left_child=-1", "left_child=-3"),
                       {"left_child -3 at node 0"}, "leaf past num_leaves");
  expect_storage_error(replace_once(text, "right_child=-2", "right_child=0"),
                       {"right_child 0 at node 0"}, "a node that is its own child");
  expect_storage_error(replace_once(text, "right_child=-2", "right_child=5"), {"right_child 5"},
                       "internal node past the arrays");
  expect_storage_error(replace_once(text, "decision_type=2", "decision_type=14"),
                       {"decision_type 14"}, "missing type 3");
  expect_storage_error(replace_once(text, "threshold=0.5", "threshold=0.5x"),
                       {"threshold: '0.5x' is not a valid number"}, "garbage number");
  expect_storage_error(replace_once(text, "objective=regression", "objective=lambdamart"),
                       {"unknown objective 'lambdamart'"}, "unknown objective");
  expect_storage_error(replace_once(text, "version=v4", "version=v3"), {"v3"}, "old version");
  expect_storage_error(replace_once(text, "Tree=1", "Tree=7"), {"expected 'Tree=1'"},
                       "tree numbering");
}

TEST(LightGbmModel, CategoricalBitsetIndicesAreChecked) {
  const std::string text = replace_once(
      replace_once(stump_model("regression", 1, 1), "decision_type=2", "decision_type=1"),
      "num_cat=0", "num_cat=1\ncat_boundaries=0 2\ncat_threshold=5 4294967295");
  const auto model =
      LightGbmModel::parse(replace_once(text, "threshold=0.5", "threshold=0"), "model.txt");
  double out = 0;
  const double in_set[2] = {2.75, 0};  // category 2: bit 2 of word 0 (5 = 0b101) is set
  model.predict(in_set, &out);
  EXPECT_EQ(out, 0.25);
  const double clear[2] = {1, 0};
  model.predict(clear, &out);
  EXPECT_EQ(out, -0.5);
  const double second_word[2] = {40, 0};  // every bit of word 1 is set
  model.predict(second_word, &out);
  EXPECT_EQ(out, 0.25);
  const double past_bitset[2] = {64, 0};
  model.predict(past_bitset, &out);
  EXPECT_EQ(out, -0.5);
  const double huge[2] = {1e300, 0};
  model.predict(huge, &out);
  EXPECT_EQ(out, -0.5);

  expect_storage_error(replace_once(text, "threshold=0.5", "threshold=1"),
                       {"categorical threshold 1", "num_cat 1"}, "bitset index past num_cat");
  expect_storage_error(replace_once(replace_once(text, "threshold=0.5", "threshold=0"),
                                    "cat_boundaries=0 2", "cat_boundaries=0 3"),
                       {"cat_threshold has 2 entries, cat_boundaries ends at 3"},
                       "boundaries past the words");
  expect_storage_error(replace_once(replace_once(text, "threshold=0.5", "threshold=0"),
                                    "cat_boundaries=0 2", "cat_boundaries=0"),
                       {"cat_boundaries has 1 entries, num_cat 1 needs 2"}, "short boundaries");
}

TEST(LightGbmModel, FlippedIndicesInAFixtureAreStorageErrors) {
  SKIP_WITHOUT_FIXTURES();
  const std::string text = slurp(parity_dir() / "categorical" / "model.txt");
  // Tree 0's first split_feature is 3; max_feature_idx is 6.
  expect_storage_error(replace_once(text, "split_feature=3 1 1", "split_feature=7 1 1"),
                       {"Tree=0", "split_feature 7 at node 0"}, "feature index");
  expect_storage_error(replace_once(text, "left_child=1 4 6", "left_child=1 4 60"),
                       {"Tree=0", "left_child 60 at node 2"}, "child index");
  expect_storage_error(replace_once(text, "cat_boundaries=0 1 4 7", "cat_boundaries=0 1 40 7"),
                       {"Tree=0", "cat_boundaries decreases"}, "cat_boundaries");
}

TEST(LightGbmModel, MissingFileIsAStorageError) {
  EXPECT_THROW(LightGbmModel::load("/nonexistent/model.txt"), StorageError);
}

}  // namespace
}  // namespace kselect::model
