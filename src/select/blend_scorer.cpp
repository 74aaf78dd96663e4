#include "select/blend_scorer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

#include "model/blend.h"

namespace kselect::select {

namespace {

// Keeps the `survivors` best of `scored` by `scores` (in index order) and moves every other
// candidate after them with the cut penalty.
void keep_survivors(std::size_t survivors, std::vector<std::size_t>& scored,
                    std::vector<double>& scores) {
  const std::size_t n = scores.size();
  std::nth_element(scored.begin(), scored.begin() + std::ptrdiff_t(survivors), scored.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  scored.resize(survivors);
  std::sort(scored.begin(), scored.end());
  std::vector<bool> kept(n, false);
  for (std::size_t i : scored) kept[i] = true;
  for (std::size_t i = 0; i < n; ++i)
    if (!kept[i]) scores[i] -= Cascade::kCutPenalty;
}

// Where a member's decoded prediction goes in the detailed ranking.
double& detail_field(const ForestScorer& member, Scored& d) {
  const std::string& target = member.ordering_target();
  return member.spec().objective == model::Objective::kEfficiency ? d.efficiency
         : target == "tflops"                                     ? d.tflops
         : target == "latency"                                    ? d.latency_ms
                                                                  : d.bandwidth_gb_s;
}

}  // namespace

std::unique_ptr<BlendScorer> BlendScorer::load(
    const std::filesystem::path& dir, model::FeatureSpec spec, const HardwareProfile& hardware,
    const std::map<std::string, nlohmann::json>& kernel_configs) {
  std::vector<Member> members;
  std::set<std::string> stale;
  for (const auto& m : spec.blend) {
    const std::filesystem::path member_dir = dir / m.model;
    // The member's spec is checked before the member loads: a member that is itself a blend
    // (one naming its own directory, or a cycle of blends) is refused here, so loading never
    // recurses.
    model::check_blend_member(spec, model::FeatureSpec::load(member_dir), member_dir.string());
    std::unique_ptr<Scorer> member = load_scorer(member_dir, hardware, kernel_configs);
    // A member that predicts speeds is a forest: check_blend_member refused every other.
    std::unique_ptr<ForestScorer> forest(dynamic_cast<ForestScorer*>(member.get()));
    if (!forest) throw std::logic_error("BlendScorer::load: a member that is not a forest");
    member.release();  // now owned by `forest`
    stale.insert(forest->stale_features().begin(), forest->stale_features().end());
    const bool shares_rows =
        !members.empty() &&
        forest->engine().all_features() == members.front().scorer->engine().all_features();
    members.push_back({std::move(forest), m.weight, shares_rows});
  }
  return std::unique_ptr<BlendScorer>(new BlendScorer(
      std::move(spec), std::vector<std::string>(stale.begin(), stale.end()), std::move(members)));
}

BlendScorer::BlendScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
                         std::vector<Member> members)
    : Scorer(std::move(spec), std::move(stale_features)), members_(std::move(members)) {}

const features::FeatureEngine& BlendScorer::engine() const {
  return members_.front().scorer->engine();
}

std::size_t BlendScorer::num_trees() const {
  std::size_t trees = 0;
  for (const auto& m : members_) trees += m.scorer->num_trees();
  return trees;
}

void BlendScorer::set_cascade(const Cascade& cascade) {
  for (auto& m : members_) m.scorer->set_cascade(cascade);
}

std::unique_ptr<features::KernelBlock> BlendScorer::prepare(
    std::span<const std::string> kernels) const {
  return members_.front().scorer->prepare(kernels);
}

void BlendScorer::score(std::string_view problem, const features::KernelBlock& kernels,
                        std::vector<double>& out) const {
  blend(problem, kernels, out, nullptr);
}

std::vector<Scored> BlendScorer::scored(std::string_view problem,
                                        const features::KernelBlock& kernels,
                                        std::span<const std::string> names) const {
  std::vector<Scored> out(names.size());
  std::vector<double> scores;
  blend(problem, kernels, scores, &out);
  for (std::size_t i = 0; i < names.size(); ++i) {
    out[i].kernel = names[i];
    out[i].score = scores[i];
    // A kernel beyond the survivors (or cut by a cascade) has no whole score: no speed, so the
    // default guard never compares against it (DefaultGuard::keeps_default).
    out[i].speed = Cascade::is_cut(scores[i]) ? std::nan("") : std::exp(scores[i]);
  }
  return out;
}

void BlendScorer::member_margins(std::size_t k, std::string_view problem,
                                 const features::KernelBlock& kernels,
                                 std::span<const std::size_t> scored,
                                 std::vector<double>& out) const {
  const Member& member = members_[k];
  if (k > 0 && member.shares_rows) {  // the first member's score() extracted every row
    const ForestScorer& first = *members_.front().scorer;
    if (scored.size() == kernels.size()) {  // all of them: through the member's own cascade
      member.scorer->ordering_margins(first.extracted_rows(), scored.size(), out);
      return;
    }
    thread_local std::vector<const float*> rows;
    rows.clear();
    for (std::size_t i : scored) rows.push_back(first.extracted_rows() + i * first.row_width());
    member.scorer->full_margins(rows, out);
    return;
  }
  thread_local std::vector<double> all;
  member.scorer->score(problem, kernels, all);
  out.resize(scored.size());
  for (std::size_t j = 0; j < scored.size(); ++j) out[j] = all[scored[j]];
}

// Each member's relative log speed, log(speed) minus that of the member's own pick (0 for it),
// weighted and summed. A member's speeds come from its ordering forest's margins (the fast
// path: no names, no sorting); a kernel its cascade cut keeps the cut penalty. `detail`, when
// given, receives each kernel's decoded prediction from the first member that predicts it.
void BlendScorer::blend(std::string_view problem, const features::KernelBlock& kernels,
                        std::vector<double>& out, std::vector<Scored>* detail) const {
  const std::size_t n = kernels.size();
  out.assign(n, 0.0);
  std::vector<std::size_t> scored(n);
  std::iota(scored.begin(), scored.end(), std::size_t(0));
  std::vector<double> margins, logs;
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const std::size_t survivors = spec().blend_survivors;
    if (k == 1 && survivors > 0 && survivors < n)  // out holds the first member's scores
      keep_survivors(survivors, scored, out);
    member_margins(k, problem, kernels, scored, margins);
    const ForestScorer& member = *members_[k].scorer;
    double top = -std::numeric_limits<double>::infinity();
    logs.assign(scored.size(), std::nan(""));
    for (std::size_t j = 0; j < scored.size(); ++j) {
      if (Cascade::is_cut(margins[j])) continue;
      const double value = member.decoded(margins[j]);
      logs[j] = std::log(std::max(member.speed(value), 1e-300));
      top = std::max(top, logs[j]);
      if (!detail) continue;
      double& field = detail_field(member, (*detail)[scored[j]]);
      if (std::isnan(field)) field = value;
    }
    for (std::size_t j = 0; j < scored.size(); ++j)
      out[scored[j]] +=
          std::isnan(logs[j]) ? -Cascade::kCutPenalty : members_[k].weight * (logs[j] - top);
  }
}

}  // namespace kselect::select
