#include "select/route_scorer.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "model/route.h"

namespace kselect::select {

std::unique_ptr<RouteScorer> RouteScorer::load(
    const std::filesystem::path& dir, model::FeatureSpec spec, const HardwareProfile& hardware,
    const std::map<std::string, nlohmann::json>& kernel_configs) {
  std::vector<Member> members;
  std::set<std::string> stale;
  std::vector<model::FeatureSpec> specs;
  for (const auto& m : spec.route) specs.push_back(model::FeatureSpec::load(dir / m));
  for (std::size_t i = 0; i < spec.route.size(); ++i) {
    const std::filesystem::path member_dir = dir / spec.route[i];
    const model::FeatureSpec& member_spec = specs[i];
    // Checked before the member loads: a member that is itself a route (one naming its own
    // directory, or a cycle) is refused here, so loading never recurses.
    model::check_route_member(specs.front(), member_spec, member_dir.string());
    auto scorer = load_scorer(member_dir, hardware, kernel_configs);
    stale.insert(scorer->stale_features().begin(), scorer->stale_features().end());
    members.push_back({std::move(scorer),
                       data::ProblemWhere(member_spec.where, member_dir.string() + ": where"),
                       spec.route[i]});
  }
  return std::unique_ptr<RouteScorer>(new RouteScorer(
      std::move(spec), std::vector<std::string>(stale.begin(), stale.end()), std::move(members)));
}

RouteScorer::RouteScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
                         std::vector<Member> members)
    : Scorer(std::move(spec), std::move(stale_features)), members_(std::move(members)) {}

const RouteScorer::Member& RouteScorer::pick(std::string_view problem) const {
  for (const Member& m : members_)
    if (m.where.empty() || m.where.matches(problem)) return m;
  std::string filters;
  for (const Member& m : members_) filters += (filters.empty() ? "" : "; ") + m.where.text();
  throw InputError("", 0, "problem",
                   "no member of the route takes " + std::string(problem) +
                       " (its members' filters: " + filters + ")");
}

const Scorer& RouteScorer::member(std::string_view problem) const {
  return *pick(problem).scorer;
}

const std::string& RouteScorer::member_dir(std::string_view problem) const {
  return pick(problem).dir;
}

const features::FeatureEngine& RouteScorer::engine() const {
  return members_.front().scorer->engine();
}

model::Objective RouteScorer::scoring_objective(std::string_view problem) const {
  return member(problem).scoring_objective(problem);
}

std::size_t RouteScorer::num_trees() const {
  std::size_t trees = 0;
  for (const auto& m : members_) trees = std::max(trees, m.scorer->num_trees());
  return trees;
}

void RouteScorer::set_cascade(const Cascade& cascade) {
  for (auto& m : members_) m.scorer->set_cascade(cascade);
}

std::unique_ptr<features::KernelBlock> RouteScorer::prepare(
    std::span<const std::string> kernels) const {
  return members_.front().scorer->prepare(kernels);
}

void RouteScorer::score(std::string_view problem, const features::KernelBlock& kernels,
                        std::vector<double>& out) const {
  member(problem).score(problem, kernels, out);
}

std::vector<Scored> RouteScorer::scored(std::string_view problem,
                                        const features::KernelBlock& kernels,
                                        std::span<const std::string> names) const {
  return member(problem).scored(problem, kernels, names);
}

}  // namespace kselect::select
