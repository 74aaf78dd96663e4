#pragma once
// Synthetic imported measurements for the generic-op tests: GEMM-like problems measured with 8
// kernels (tile 16..128 x variant a/b) whose fastest kernel follows a known rule, so a model
// can be held to picking it: the tile nearest m/8 (clamped to 16..128) wins, and variant b is
// 30% faster when k > 1024, 20% slower otherwise. Times only (no TFLOPS), as imported data
// often has; op "generic".
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "data/store.h"

namespace kselect::testing {

inline std::string generic_kernel(int tile, char variant) {
  return "kern_t" + std::to_string(tile) + "_" + variant;
}

inline std::map<std::string, nlohmann::json> generic_configs() {
  std::map<std::string, nlohmann::json> out;
  for (int tile : {16, 32, 64, 128})
    for (char v : {'a', 'b'})
      out[generic_kernel(tile, v)] = {{"tile", tile}, {"variant", std::string(1, v)}, {"warps", 4}};
  return out;
}

inline double generic_time_ms(double m, double n, double k, int tile, char variant) {
  double ideal = std::log2(std::clamp(m / 8, 16.0, 128.0));
  double penalty = 1 + 0.5 * std::fabs(std::log2(double(tile)) - ideal);
  double v = variant == 'b' ? (k > 1024 ? 0.7 : 1.2) : 1.0;
  return 2 * m * n * k / 1e9 * penalty * v;
}

// `problems` problems from `seed`; problem text "m=..,n=..,k=..,dtype=fp32,device=dev0".
inline std::vector<data::Measurement> generic_measurements(int problems, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> log_nk(7, 12);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<data::Measurement> out;
  std::set<std::string> seen;
  for (int i = 0; int(seen.size()) < problems; ++i) {
    // m cycles through 2^6..2^11 x {1, 2, 3} so every tile regime is covered.
    double m = std::ldexp(1.0, 6 + i % 6) * (1 + (i / 6) % 3), n = std::ldexp(1.0, log_nk(rng)),
           k = std::ldexp(1.0, log_nk(rng));
    std::string problem = "m=" + std::to_string(long(m)) + ",n=" + std::to_string(long(n)) +
                          ",k=" + std::to_string(long(k)) + ",dtype=fp32,device=dev0";
    if (!seen.insert(problem).second) continue;
    for (int tile : {16, 32, 64, 128})
      for (char v : {'a', 'b'}) {
        data::Measurement r;
        r.op = "generic";
        r.problem = problem;
        r.kernel = generic_kernel(tile, v);
        r.valid = true;
        r.median_ms = generic_time_ms(m, n, k, tile, v) * std::exp(noise(rng));
        out.push_back(r);
      }
  }
  return out;
}

// Writes measurements to a new store at `path` with `configs` as kernel parameters.
inline void write_generic_store(
    const std::string& path, const std::vector<data::Measurement>& rows,
    const std::string& op = "generic",
    const std::map<std::string, nlohmann::json>& configs = generic_configs()) {
  data::Store store(path);
  long run = store.begin_run(op, {{"device", "dev0"}}, {{"format", "synthetic"}}, "import", 0);
  std::map<std::string, std::vector<data::Measurement>> by_problem;
  for (const auto& m : rows) by_problem[m.problem].push_back(m);
  auto config_of = [&](const std::string& k) {
    auto it = configs.find(k);
    return it == configs.end() ? nlohmann::json::object() : it->second;
  };
  for (auto& [problem, ms] : by_problem)
    store.write_problem(run, "import", op, problem, ms, config_of);
  store.finish_run(run, 0, false, "finished");
}

inline std::vector<const data::Measurement*> pointers(const std::vector<data::Measurement>& rows) {
  std::vector<const data::Measurement*> out;
  for (const auto& m : rows) out.push_back(&m);
  return out;
}

}  // namespace kselect::testing
