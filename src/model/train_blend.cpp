#include "model/train_blend.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/error.h"
#include "model/blend.h"
#include "ops/operation.h"

namespace kselect::model {
namespace {

// Every reason the options cannot make a near-best blend, checked before the first member
// trains so that a bad command costs no training time.
void check_near_blend_options(const TrainOptions& o, double min_efficiency) {
  const std::string field = "blend-near";
  if (!(min_efficiency > 0 && min_efficiency < 1))
    throw InputError("", 0, field,
                     "the near-best member needs a fraction in (0, 1), such as 0.8 (rows at "
                     "least 80% as fast as their problem's best)");
  if (o.objective != Objective::kRegression)
    throw InputError("", 0, field,
                     "its first member is a regression; --objective " + to_string(o.objective) +
                         " cannot train it");
  if (!find_operation(o.op).capabilities().kernels_from_rule_sets)
    throw InputError("", 0, field,
                     o.op + " models cannot join a blend (their kernels are their vocabulary's)");
  if (!o.warm_start.empty())
    throw InputError("", 0, field,
                     "a warm start continues one model: warm-start the members (<blend>/regression "
                     "with the default objective, <blend>/near with --objective efficiency) and "
                     "blend them with kselect blend");
  if (o.min_efficiency > 0)
    throw InputError("", 0, field,
                     "--min-efficiency would drop rows from the regression member too; "
                     "--blend-near sets it for the near-best member alone");
  if (!o.targets.empty() &&
      std::find(o.targets.begin(), o.targets.end(), "tflops") == o.targets.end())
    throw InputError("", 0, field, "the members rank by TFLOPS: train the tflops target");
  check_blend_out(o.out_dir);
}

}  // namespace

nlohmann::json NearBlendResult::to_json() const {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : blend.blend) members.push_back({{"model", m.model}, {"weight", m.weight}});
  return {{"dir", dir.string()},
          {"blend", {{"members", members}, {"survivors", blend.blend_survivors}}},
          {"members", {regression.to_json(), near.to_json()}}};
}

NearBlendResult train_near_blend(const std::vector<data::Measurement>& measurements,
                                 const TrainOptions& options, double min_efficiency) {
  check_near_blend_options(options, min_efficiency);
  // Both members train into <member>.partial and replace the earlier ones only once both have
  // trained: a failed run leaves an earlier blend and its members as they were.
  TrainOptions regression = options;
  regression.out_dir = options.out_dir / "regression.partial";
  TrainOptions near = options;
  near.out_dir = options.out_dir / "near.partial";
  near.objective = Objective::kEfficiency;
  near.targets = {"tflops"};
  near.min_efficiency = min_efficiency;
  NearBlendResult result;
  result.dir = options.out_dir;
  try {
    if (options.progress) std::cerr << "blend member 1 of 2: regression\n";
    result.regression = train(measurements, regression);
    if (options.progress)
      std::cerr << "blend member 2 of 2: efficiency of the rows within " << min_efficiency
                << " of their problem's best\n";
    result.near = train(measurements, near);
  } catch (...) {
    std::filesystem::remove_all(regression.out_dir);
    std::filesystem::remove_all(near.out_dir);
    throw;
  }
  const std::filesystem::path members[] = {options.out_dir / "regression",
                                           options.out_dir / "near"};
  std::filesystem::remove_all(members[0]);
  std::filesystem::rename(regression.out_dir, members[0]);
  std::filesystem::remove_all(members[1]);
  std::filesystem::rename(near.out_dir, members[1]);
  result.regression.dir = members[0];
  result.near.dir = members[1];
  result.blend = write_blend(options.out_dir, {{members[0], 1.0}, {members[1], 1.0}});
  return result;
}

}  // namespace kselect::model
