#include "data/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kselect::data {

std::vector<ProblemBest> best_per_problem(const std::vector<Measurement>& rows) {
  std::vector<ProblemBest> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<std::vector<double>> times;
  for (const Measurement& m : rows) {
    auto [it, added] = index.emplace(std::pair{m.op, m.problem}, out.size());
    if (added) {
      ProblemBest fresh;
      fresh.op = m.op, fresh.problem = m.problem;
      out.push_back(fresh);
      times.emplace_back();
    }
    ProblemBest& best = out[it->second];
    if (!m.valid) {
      best.invalid += 1;
      continue;
    }
    best.valid += 1;
    times[it->second].push_back(m.median_ms);
    if (best.kernel.empty() || m.median_ms < best.median_ms) {
      best.kernel = m.kernel;
      best.median_ms = m.median_ms, best.tflops = m.tflops, best.bandwidth_gb_s = m.bandwidth_gb_s;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    auto& t = times[i];
    if (t.empty() || out[i].median_ms <= 0) continue;
    std::nth_element(t.begin(), t.begin() + long(t.size() / 2), t.end());
    out[i].speedup_over_median_kernel = t[t.size() / 2] / out[i].median_ms;
  }
  return out;
}

nlohmann::json to_json(const std::vector<ProblemBest>& best) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : best)
    out.push_back({{"op", b.op},
                   {"problem", b.problem},
                   {"kernel", b.kernel},
                   {"median_ms", b.median_ms},
                   {"tflops", b.tflops},
                   {"bandwidth_gb_s", b.bandwidth_gb_s},
                   {"valid", b.valid},
                   {"invalid", b.invalid},
                   {"speedup_over_median_kernel", b.speedup_over_median_kernel}});
  return out;
}

std::string format_table(const std::vector<ProblemBest>& best) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-48s %10s %8s %6s %5s  %s\n", "problem", "best ms", "GFLOP/s",
                "xmed", "ok/x", "fastest kernel");
  out += line;
  for (const auto& b : best) {
    std::snprintf(line, sizeof line, "%-48s %10.4f %8.1f %6.2f %2d/%-2d  %s\n", b.problem.c_str(),
                  b.median_ms, b.tflops * 1e3, b.speedup_over_median_kernel, b.valid, b.invalid,
                  b.kernel.empty() ? "(none valid)" : b.kernel.c_str());
    out += line;
  }
  return out;
}

}  // namespace kselect::data
