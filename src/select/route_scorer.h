#pragma once
// Scores candidates with a route (`kselect route`, model/route.h): each problem by the first
// member model whose training filter (FeatureSpec::where) it matches. The members share the
// op, dtype and feature schema, so the first member's prepared candidates serve every member.
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "data/where.h"
#include "select/scorer.h"

namespace kselect::select {

class RouteScorer final : public Scorer {
 public:
  // The members `spec` names (FeatureSpec::route), each loaded from its directory relative to
  // `dir` (load_scorer) after model::check_route_member accepts its spec.
  static std::unique_ptr<RouteScorer> load(
      const std::filesystem::path& dir, model::FeatureSpec spec, const HardwareProfile& hardware,
      const std::map<std::string, nlohmann::json>& kernel_configs);

  const features::FeatureEngine& engine() const override;
  model::Objective scoring_objective(std::string_view problem) const override;
  // The largest member's trees (a problem is scored by one member).
  std::size_t num_trees() const override;
  void set_cascade(const Cascade& cascade) override;
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const override;
  std::vector<Scored> scored(std::string_view problem, const features::KernelBlock& kernels,
                             std::span<const std::string> names) const override;

  // The member that scores `problem` (canonical text): the first whose filter it matches.
  // InputError listing the members' filters when none does.
  const Scorer& member(std::string_view problem) const;
  // The member's directory, as the route names it.
  const std::string& member_dir(std::string_view problem) const;

 private:
  struct Member {
    std::unique_ptr<Scorer> scorer;
    data::ProblemWhere where;  // empty: every problem
    std::string dir;
  };
  RouteScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
              std::vector<Member> members);
  const Member& pick(std::string_view problem) const;

  std::vector<Member> members_;
};

}  // namespace kselect::select
