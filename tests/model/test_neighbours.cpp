#include "model/neighbours.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "train_fixture.h"

namespace kselect::model {
namespace {

// Columns: "size" (the problem's own, 1 to 64: compared in log2), "tile" (the kernel's: it
// varies within a problem) and "arch" (the same everywhere: it tells no problem apart).
const std::vector<std::string> kNames = {"size", "tile", "arch"};

struct Fixture {
  std::vector<std::string> problems = {"p1", "p2", "p64"};
  std::vector<int> folds = {0, 1, 1};
  std::vector<NeighbourRow> rows = {
      {0, "a", 1.0}, {0, "b", 0.5}, {1, "a", 0.25}, {1, "b", 1.0}, {2, "a", 1.0}};
  std::vector<float> features;
  Fixture() {
    const float sizes[] = {1, 2, 64};
    for (const NeighbourRow& r : rows)
      features.insert(features.end(), {sizes[r.problem], r.kernel == "a" ? 16.0f : 32.0f, 7.0f});
  }
  NeighbourTable build(int count = 1, double weight = 0.8, double gate = 0,
                       double power = 0) const {
    return NeighbourTable::build(kNames, features, rows, problems, folds, count, weight, gate,
                                 power);
  }
};

TEST(NeighbourTable, PositionsAreTheProblemsOwnColumnsStandardizedInLog2WhenWide) {
  const NeighbourTable t = Fixture().build();
  ASSERT_EQ(t.columns(), std::vector<std::string>{"size"});
  // log2 sizes 0, 1, 6: mean 7/3, population sd sqrt(62/9).
  const double sd = std::sqrt(62.0 / 9.0);
  ASSERT_NE(t.position_of("p2"), nullptr);
  EXPECT_NEAR((*t.position_of("p2"))[0], (1 - 7.0 / 3) / sd, 1e-12);
  EXPECT_NEAR(t.position(std::vector<double>{8})[0], (3 - 7.0 / 3) / sd, 1e-12);
  EXPECT_EQ(t.position_of("p3"), nullptr);
  EXPECT_EQ(t.fold_of("p64"), 1);
  EXPECT_EQ(t.fold_of("p3"), -1);
}

TEST(NeighbourTable, EachKernelAveragesItsNearestProblemsThatMeasuredIt) {
  const NeighbourTable one = Fixture().build(1), two = Fixture().build(2);
  const std::vector<std::string> kernels = {"a", "b", "never"};
  std::vector<double> out;
  // At size 1 (p1 itself): its own measurements; without a gate, the model's share is the weight.
  EXPECT_DOUBLE_EQ(one.scores(*one.position_of("p1"), kernels, out), 0.8);
  EXPECT_DOUBLE_EQ(out[0], 0.0);
  EXPECT_DOUBLE_EQ(out[1], std::log(0.5));
  EXPECT_DOUBLE_EQ(out[2], NeighbourTable::kMissing);
  // Without p1, b's nearest is p2; a's nearest is p2 and then p64, which only a measured.
  one.scores(*one.position_of("p1"), kernels, out, -1, "p1");
  EXPECT_DOUBLE_EQ(out[0], std::log(0.25));
  EXPECT_DOUBLE_EQ(out[1], 0.0);
  two.scores(*two.position_of("p1"), kernels, out, -1, "p1");
  EXPECT_DOUBLE_EQ(out[0], std::log(0.25) / 2);
  EXPECT_DOUBLE_EQ(out[1], 0.0);  // only p2 measured b
  // Skipping fold 1 (p2 and p64) leaves p1 alone.
  two.scores(*two.position_of("p64"), kernels, out, 1);
  EXPECT_DOUBLE_EQ(out[0], 0.0);
  EXPECT_DOUBLE_EQ(out[1], std::log(0.5));
  EXPECT_DOUBLE_EQ(NeighbourTable::blend(0.8, std::log(2.0), std::log(0.5)),
                   0.8 * std::log(2.0) + 0.2 * std::log(0.5));
}

TEST(NeighbourTable, DistanceWeightsLetTheNearestCountMost) {
  // From p1 without itself, kernel a's two nearest are p2 (1 sd away, efficiency 0.25) and p64
  // (6 sds, efficiency 1): equal weights average the logs, power 2 weighs 1 / (d^2 + 0.1).
  const double sd = std::sqrt(62.0 / 9.0);
  const NeighbourTable equal = Fixture().build(2), squared = Fixture().build(2, 0.8, 0, 2);
  EXPECT_EQ(squared.power(), 2.0);
  const std::vector<std::string> kernels = {"a"};
  std::vector<double> out;
  equal.scores(*equal.position_of("p1"), kernels, out, -1, "p1");
  EXPECT_DOUBLE_EQ(out[0], std::log(0.25) / 2);
  squared.scores(*squared.position_of("p1"), kernels, out, -1, "p1");
  const double near = 1 / (1 / (sd * sd) + 0.1), far = 1 / (36 / (sd * sd) + 0.1);
  EXPECT_NEAR(out[0], near * std::log(0.25) / (near + far), 1e-12);
  EXPECT_THROW(Fixture().build(2, 0.8, 0, -1), InputError);
  EXPECT_THROW(Fixture().build(2, 0.8, 0, 9), InputError);
}

TEST(NeighbourTable, TheGateLeavesFarProblemsToTheModel) {
  // Standardized log2 sizes 0, 1, 6: each problem's nearest other lies 1, 1 and 5 sds away.
  const double sd = std::sqrt(62.0 / 9.0);
  const NeighbourTable median = Fixture().build(1, 0.8, 0.5), top = Fixture().build(1, 0.8, 1.0);
  EXPECT_DOUBLE_EQ(median.gate(), 0.5);
  EXPECT_NEAR(median.gate_distance(), 1 / sd, 1e-12);
  EXPECT_NEAR(top.gate_distance(), 5 / sd, 1e-12);
  EXPECT_EQ(Fixture().build().gate_distance(), 0.0);
  const std::vector<std::string> kernels = {"a", "b"};
  std::vector<double> out;
  // p1 without itself: p2 is 1 sd away, within the gate: the blend keeps its weight.
  EXPECT_DOUBLE_EQ(median.scores(*median.position_of("p1"), kernels, out, -1, "p1"), 0.8);
  // p64 without itself: p2 is 5 sds away, beyond the median gate: the model alone. The scores
  // are still filled (explain shows them).
  EXPECT_DOUBLE_EQ(median.scores(*median.position_of("p64"), kernels, out, -1, "p64"), 1.0);
  EXPECT_DOUBLE_EQ(out[0], std::log(0.25));
  // At the top quantile no training problem is beyond the gate.
  EXPECT_DOUBLE_EQ(top.scores(*top.position_of("p64"), kernels, out, -1, "p64"), 0.8);
  EXPECT_DOUBLE_EQ(NeighbourTable::blend(1.0, std::log(2.0), std::log(0.5)), std::log(2.0));
}

TEST(NeighbourTable, SavesAndLoadsTheSameTable) {
  const NeighbourTable t = Fixture().build(2, 0.7, 0.5, 2);
  const auto dir = testing::scratch_dir("neighbours_round_trip");
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(NeighbourTable::load(dir).has_value());
  t.save(dir);
  const auto loaded = NeighbourTable::load(dir);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->count(), 2);
  EXPECT_DOUBLE_EQ(loaded->weight(), 0.7);
  EXPECT_DOUBLE_EQ(loaded->gate(), 0.5);
  EXPECT_DOUBLE_EQ(loaded->gate_distance(), t.gate_distance());
  EXPECT_DOUBLE_EQ(loaded->power(), 2.0);
  EXPECT_EQ(loaded->columns(), t.columns());
  const std::vector<std::string> kernels = {"b", "a"};
  std::vector<double> before, after;
  const std::vector<double> at = t.position(std::vector<double>{3});
  t.scores(at, kernels, before, 0);
  loaded->scores(loaded->position(std::vector<double>{3}), kernels, after, 0);
  EXPECT_EQ(before, after);
}

TEST(NeighbourTable, RefusesBadSettingsAndCorruptFiles) {
  const Fixture f;
  EXPECT_THROW(f.build(0), InputError);
  EXPECT_THROW(f.build(1, 1.0), InputError);
  EXPECT_THROW(f.build(1, -0.1), InputError);
  EXPECT_THROW(f.build(1, 0.8, 1.5), InputError);
  EXPECT_THROW(f.build(1, 0.8, -0.1), InputError);
  // One problem: no column tells problems apart.
  Fixture single;
  single.problems = {"p1"}, single.folds = {0};
  single.rows = {{0, "a", 1.0}, {0, "b", 0.5}};
  single.features = {1, 16, 7, 1, 32, 7};
  EXPECT_THROW(single.build(), InputError);

  const auto dir = testing::scratch_dir("neighbours_corrupt");
  std::filesystem::create_directories(dir);
  f.build().save(dir);
  std::ofstream(dir / NeighbourTable::kFile) << R"({"count": 2, "weight": 0.8})";
  try {
    (void)NeighbourTable::load(dir);
    FAIL() << "a table without columns loaded";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("neighbours.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("columns"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kselect::model
