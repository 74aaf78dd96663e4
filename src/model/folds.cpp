#include "model/folds.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "core/stats.h"

namespace kselect::model {

std::vector<int> group_k_fold(const std::vector<std::string>& groups, int folds) {
  if (folds < 2) throw InputError("", 0, "folds", "need at least 2 folds");
  std::map<std::string, std::size_t> sizes;
  for (const auto& g : groups) ++sizes[g];
  if (sizes.size() < std::size_t(folds))
    throw InputError("", 0, "folds",
                     "only " + std::to_string(sizes.size()) +
                         " distinct problem shapes, fewer than " + std::to_string(folds) +
                         " folds: measure more shapes or lower --folds");
  std::vector<std::pair<std::string, std::size_t>> order(sizes.begin(), sizes.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::size_t> load(folds, 0);
  std::unordered_map<std::string, int> fold_of;
  for (const auto& [group, size] : order) {
    int f = int(std::min_element(load.begin(), load.end()) - load.begin());
    fold_of[group] = f;
    load[f] += size;
  }
  std::vector<int> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.push_back(fold_of[g]);
  return out;
}

std::vector<double> pick_efficiencies(const std::vector<std::string>& problems,
                                      const std::vector<double>& score,
                                      const std::vector<double>& measured, bool higher_is_better) {
  struct Best {
    std::size_t pick = 0;
    double oracle = 0;
    bool seen = false;
  };
  std::map<std::string, Best> per_problem;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Best& b = per_problem[problems[i]];
    bool better_oracle = higher_is_better ? measured[i] > b.oracle : measured[i] < b.oracle;
    if (!b.seen || score[i] > score[b.pick]) b.pick = i;
    if (!b.seen || better_oracle) b.oracle = measured[i];
    b.seen = true;
  }
  std::vector<double> out;
  for (const auto& [problem, b] : per_problem) {
    double picked = measured[b.pick];
    if (b.oracle <= 0 || picked <= 0) continue;
    out.push_back(higher_is_better ? picked / b.oracle : b.oracle / picked);
  }
  return out;
}

PickStats pick_stats(const std::vector<double>& efficiencies) {
  if (efficiencies.empty()) return {std::nan(""), std::nan(""), std::nan("")};
  double sum = 0, best = 0;
  for (double e : efficiencies) sum += e, best += e >= 1.0;
  const double n = double(efficiencies.size());
  return {sum / n, percentile(efficiencies, 10), best / n};
}

}  // namespace kselect::model
