#include "eval/transfer.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/key_values.h"

namespace kselect::eval {
namespace {

TEST(ExpectedBestOf, IsExact) {
  // Pairs of {1, 2, 3}: (1,2) -> 2, (1,3) -> 3, (2,3) -> 3.
  EXPECT_NEAR(expected_best_of({3, 1, 2}, 2), 8.0 / 3.0, 1e-12);
  EXPECT_NEAR(expected_best_of({3, 1, 2}, 1), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(expected_best_of({3, 1, 2}, 5), 3.0);
  EXPECT_DOUBLE_EQ(expected_best_of({}, 3), 0.0);
  std::vector<double> many(5000, 0.1);
  many[17] = 1.0;  // one good value among 5,000: P(drawn in 10) = 10/5000
  EXPECT_NEAR(expected_best_of(many, 10), 0.1 + 0.9 * 10.0 / 5000.0, 1e-9);
}

// Three devices share the landscape time = base(device) x (1 + (bx - 64)^2 / 1000 + ...):
// block 64 and tile 4 are best everywhere; one device is 3x slower and one kernel fails there.
std::vector<data::Measurement> three_devices() {
  std::vector<data::Measurement> rows;
  const std::vector<std::pair<std::string, double>> devices = {
      {"gpuA", 1.0}, {"gpuB", 1.4}, {"gpuC", 3.0}};
  for (const auto& [device, speed] : devices)
    for (int bx : {16, 32, 64, 128, 256})
      for (int tile : {1, 2, 4, 8})
        for (int shmem : {0, 1}) {
          data::Measurement m;
          m.op = "generic";
          m.problem = "device=" + device + ",size=4096";
          m.kernel = "bx=" + std::to_string(bx) + ",tile=" + std::to_string(tile) +
                     ",shmem=" + std::to_string(shmem);
          double shape = 1 + (bx - 64) * (bx - 64) / 1000.0 + (tile - 4) * (tile - 4) / 4.0 +
                         (shmem ? 0.0 : 0.5);
          m.median_ms = speed * shape;
          m.valid = !(device == "gpuC" && bx == 64 && tile == 8);
          rows.push_back(m);
        }
  return rows;
}

std::map<std::string, nlohmann::json> configs_of(const std::vector<data::Measurement>& rows) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& m : rows) {
    nlohmann::json c = nlohmann::json::object();
    const KeyValues params = KeyValues::parse(m.kernel);
    for (const auto& [k, v] : params.items()) c[k] = std::stoi(v);
    out[m.kernel] = c;
  }
  return out;
}

TEST(Transfer, ModelFromTwoDevicesRanksTheThird) {
  auto rows = three_devices();
  TransferOptions o;
  o.boosting.trees = 60, o.boosting.eta = 0.3, o.top_k = 5;
  TransferReport r = evaluate_transfer(rows, configs_of(rows), o);
  ASSERT_EQ(r.devices.size(), 3u);
  for (const auto& d : r.devices) {
    EXPECT_EQ(d.trained_on.size(), 2u) << d.device;
    EXPECT_EQ(d.kernels, 40) << d.device;
    EXPECT_GE(d.top1_efficiency, 0.95) << d.device << " picked " << d.picked;
    EXPECT_GE(d.topk_efficiency, d.top1_efficiency) << d.device;
    EXPECT_GT(d.top1_efficiency, d.random_efficiency) << d.device;
    EXPECT_LT(d.random_efficiency, d.random_topk_efficiency) << d.device;
  }
  EXPECT_TRUE(r.to_json()["devices"][0].contains("random_topk_efficiency"));
}

TEST(Transfer, NeedsTwoDevices) {
  auto rows = three_devices();
  std::erase_if(rows, [](const auto& m) { return m.problem.find("gpuA") == std::string::npos; });
  EXPECT_THROW(evaluate_transfer(rows, configs_of(rows), {}), InputError);
  EXPECT_THROW(evaluate_transfer({}, {}, {}), InputError);
}

}  // namespace
}  // namespace kselect::eval
