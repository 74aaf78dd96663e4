#include "model/blend.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "model/neighbours.h"
#include "ops/operation.h"

namespace kselect::model {

void check_blend_member(const FeatureSpec& first, const FeatureSpec& member,
                        const std::string& member_dir) {
  if (!predicts_speed(member.objective))
    throw InputError(member_dir, 0, "objective",
                     "a " + to_string(member.objective) +
                         " model predicts no speeds: a blend adds those of regression or "
                         "efficiency models");
  if (member.op != first.op || member.dtype != first.dtype)
    throw InputError(member_dir, 0, "dtype",
                     "a " + member.op + " " + member.dtype + " model cannot join a blend of " +
                         first.op + " " + first.dtype + " models");
  if (!find_operation(member.op).capabilities().kernels_from_rule_sets)
    throw InputError(
        member_dir, 0, "op",
        "a " + member.op + " model cannot join a blend (its kernels are its vocabulary's)");
  // A blend adds its members' forests; a member's nearest training problems would be dropped.
  if (std::filesystem::exists(std::filesystem::path(member_dir) / NeighbourTable::kFile))
    throw InputError(member_dir, 0, NeighbourTable::kFile,
                     "a blend scores its members by their forests alone: retrain this member "
                     "without --neighbours");
}

void check_blend_out(const std::filesystem::path& out) {
  const auto spec = out / "feature_spec.json";
  if (std::filesystem::exists(spec) && FeatureSpec::load(out).objective != Objective::kBlend)
    throw InputError(spec.string(), 0, "out",
                     "holds a trained model: write the blend into another directory");
}

FeatureSpec write_blend(const std::filesystem::path& out, const std::vector<BlendInput>& members,
                        std::size_t survivors) {
  if (members.size() < 2) throw InputError("", 0, "model", "a blend needs at least two models");
  check_blend_out(out);
  std::vector<FeatureSpec> specs;
  for (const auto& m : members) specs.push_back(FeatureSpec::load(m.model));
  FeatureSpec blend = specs.front();
  blend.objective = Objective::kBlend;
  std::filesystem::create_directories(out);
  const auto base = std::filesystem::absolute(out);
  for (std::size_t i = 0; i < members.size(); ++i) {
    check_blend_member(specs.front(), specs[i], members[i].model.string());
    if (!(members[i].weight > 0 && std::isfinite(members[i].weight)))
      throw InputError(members[i].model.string(), 0, "weight", "must be finite and > 0");
    blend.blend.push_back(
        {std::filesystem::absolute(members[i].model).lexically_relative(base).string(),
         members[i].weight});
  }
  combine_shortlists(blend, specs);
  blend.blend_survivors = survivors;
  blend.params = nlohmann::json::object();
  blend.priors.clear();
  blend.save(out);
  return blend;
}

}  // namespace kselect::model
