#include "model/route.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "ops/operation.h"

namespace kselect::model {

void check_route_member(const FeatureSpec& first, const FeatureSpec& member,
                        const std::string& member_dir) {
  if (member.objective == Objective::kRoute)
    throw InputError(member_dir, 0, "objective",
                     "a route cannot be a member of a route: give its members instead");
  if (member.objective != first.objective || member.targets != first.targets)
    throw InputError(member_dir, 0, "objective",
                     "a " + to_string(member.objective) + " model cannot join a route of " +
                         to_string(first.objective) +
                         " models of other targets: a route's members score alike");
  if (member.op != first.op || member.dtype != first.dtype || member.schema != first.schema)
    throw InputError(member_dir, 0, "schema",
                     "a " + member.op + " " + member.dtype + " model of schema '" + member.schema +
                         "' cannot join a route of " + first.op + " " + first.dtype +
                         " models of schema '" + first.schema + "'");
  if (!find_operation(member.op).capabilities().kernels_from_rule_sets)
    throw InputError(member_dir, 0, "op",
                     "a " + member.op +
                         " model cannot join a route (its kernels are its "
                         "vocabulary's, so the members could not share the prepared candidates)");
}

FeatureSpec write_route(const std::filesystem::path& out,
                        const std::vector<std::filesystem::path>& members) {
  if (members.size() < 2) throw InputError("", 0, "model", "a route needs at least two models");
  const auto existing = out / "feature_spec.json";
  if (std::filesystem::exists(existing) && FeatureSpec::load(out).objective != Objective::kRoute)
    throw InputError(existing.string(), 0, "out",
                     "holds a trained model: write the route into another directory");
  std::vector<FeatureSpec> specs;
  for (const auto& m : members) specs.push_back(FeatureSpec::load(m));
  FeatureSpec route = specs.front();
  route.objective = Objective::kRoute;
  route.where.clear();
  route.blend.clear();
  route.blend_survivors = 0;
  route.params = nlohmann::json::object();
  route.priors.clear();
  route.classifier = nullptr;
  const bool ranks_all = std::any_of(specs.begin(), specs.end(),
                                     [](const FeatureSpec& s) { return s.shortlist.empty(); });
  std::set<std::string> shortlist;
  route.training_ranges.clear();
  std::filesystem::create_directories(out);
  const auto base = std::filesystem::absolute(out);
  for (std::size_t i = 0; i < members.size(); ++i) {
    const FeatureSpec& s = specs[i];
    check_route_member(specs.front(), s, members[i].string());
    if (s.where.empty() && i + 1 < members.size())
      throw InputError(members[i].string(), 0, "where",
                       "was trained on every problem, so it would take every problem from the "
                       "members after it: give it last (or train it with --where)");
    if (!ranks_all) shortlist.insert(s.shortlist.begin(), s.shortlist.end());
    route.shortlist_tolerance = std::max(route.shortlist_tolerance, s.shortlist_tolerance);
    for (const auto& [field, range] : s.training_ranges) {
      auto [it, added] = route.training_ranges.emplace(field, range);
      if (!added)
        it->second = {std::min(it->second.min, range.min), std::max(it->second.max, range.max)};
    }
    route.route.push_back(std::filesystem::absolute(members[i]).lexically_relative(base).string());
  }
  route.shortlist.assign(shortlist.begin(), shortlist.end());
  if (ranks_all) route.shortlist_tolerance = 0;
  route.save(out);
  return route;
}

}  // namespace kselect::model
