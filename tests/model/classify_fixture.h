#pragma once
// Data for the classifier tests: the synthetic imported problems of generic_synthetic.h (one
// context, dtype=fp32, whose fastest kernel follows a known rule), plus a second context
// (dir=W) where one kernel always wins.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../ops/generic/generic_synthetic.h"
#include "core/key_values.h"
#include "data/measurement.h"

namespace kselect::testing {

// The rule's fastest kernel of a synthetic problem: its noise-free times' minimum.
inline std::string rule_winner(const std::string& problem) {
  KeyValues kv = KeyValues::parse(problem);
  double m = kv.require_double("m"), n = kv.require_double("n"), k = kv.require_double("k");
  std::string best;
  double best_ms = std::numeric_limits<double>::infinity();
  for (int tile : {16, 32, 64, 128})
    for (char v : {'a', 'b'})
      if (double ms = generic_time_ms(m, n, k, tile, v); ms < best_ms)
        best_ms = ms, best = generic_kernel(tile, v);
  return best;
}

// `problems` problems of the dir=W context, where kern_t128_b is always twice as fast as the
// rest.
inline std::vector<data::Measurement> one_winner_context(int problems, unsigned seed) {
  auto rows = generic_measurements(problems, seed);
  for (auto& m : rows) {
    m.problem += ",dir=W";
    if (m.kernel == generic_kernel(128, 'b')) m.median_ms = 1e-6;
  }
  return rows;
}

// The fastest measured kernel of each problem of `rows`.
inline std::map<std::string, std::string> measured_winners(
    const std::vector<data::Measurement>& rows) {
  std::map<std::string, const data::Measurement*> best;
  for (const auto& m : rows) {
    auto [it, fresh] = best.emplace(m.problem, &m);
    if (!fresh && m.median_ms < it->second->median_ms) it->second = &m;
  }
  std::map<std::string, std::string> out;
  for (const auto& [problem, m] : best) out[problem] = m->kernel;
  return out;
}

}  // namespace kselect::testing
