#include "model/route.h"

#include "core/error.h"
#include "core/text.h"
#include "ops/operation.h"

namespace kselect::model {

void check_route_member(const FeatureSpec& first, const FeatureSpec& member,
                        const std::string& member_dir) {
  if (member.objective == Objective::kRoute)
    throw InputError(member_dir, 0, "objective",
                     "a route cannot be a member of a route: give its members instead");
  // Objectives may differ (a blend beside regressions): a problem's candidates are all scored
  // by one member, so no two members' scores are ever compared.
  if (member.targets != first.targets)
    throw InputError(member_dir, 0, "targets",
                     "a model of targets " + join(member.targets, ", ") +
                         " cannot join a route of models of targets " + join(first.targets, ", ") +
                         ": a route's members predict alike");
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
    widen_ranges(route.training_ranges, s.training_ranges);
    route.route.push_back(std::filesystem::absolute(members[i]).lexically_relative(base).string());
  }
  combine_shortlists(route, specs);
  route.save(out);
  return route;
}

}  // namespace kselect::model
