#pragma once
// Scores candidates with a blend (`kselect blend`, docs/model-format.md, model/blend.h): the
// weighted sum of its member forests' log predicted speeds, each relative to that member's own
// pick. The first member scores every candidate; the later ones only its best
// FeatureSpec::blend_survivors (the rest rank after them, in the first member's order), from
// the first member's feature rows when their engines' columns agree.
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "select/forest_scorer.h"
#include "select/scorer.h"

namespace kselect::select {

class BlendScorer final : public Scorer {
 public:
  // The members `spec` names (FeatureSpec::blend), each loaded from its directory relative to
  // `dir` (load_scorer) and checked by model::check_blend_member: regression or efficiency
  // forests of the blend's op and dtype, whose relative log speeds are what adds up.
  static std::unique_ptr<BlendScorer> load(
      const std::filesystem::path& dir, model::FeatureSpec spec, const HardwareProfile& hardware,
      const std::map<std::string, nlohmann::json>& kernel_configs);

  const features::FeatureEngine& engine() const override;
  // Every member's trees.
  std::size_t num_trees() const override;
  // Each member's own cascade.
  void set_cascade(const Cascade& cascade) override;
  // The first member's block: the members are of one op, so they read the same block.
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const override;
  // The scores, their exp as `speed`, and each kernel's decoded TFLOPS, latency, bandwidth or
  // efficiency from the first member that predicts it.
  std::vector<Scored> scored(std::string_view problem, const features::KernelBlock& kernels,
                             std::span<const std::string> names) const override;

 private:
  struct Member {
    std::unique_ptr<ForestScorer> scorer;
    double weight;
    // The member's feature rows are laid out as the first member's (the same engine features),
    // so it scores the first member's extracted rows instead of extracting its own.
    bool shares_rows = false;
  };
  BlendScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
              std::vector<Member> members);

  void blend(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out, std::vector<Scored>* detail) const;
  // Member k's margins for the candidates `scored` (indices into `kernels`), in that order.
  void member_margins(std::size_t k, std::string_view problem, const features::KernelBlock& kernels,
                      std::span<const std::size_t> scored, std::vector<double>& out) const;

  std::vector<Member> members_;
};

}  // namespace kselect::select
