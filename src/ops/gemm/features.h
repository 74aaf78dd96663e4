#pragma once
// The GEMM feature engine: CK's `ck55` and `ck72` schemas (names, order, formulas and codes as
// CK defines them) and kselect's default `kselect` schema (ck72 plus CPU features, see
// docs/features.md). Layout codes come from the Layout enum (rcr=0, rrr=1, crr=2, ccr=3),
// pipeline codes from the Pipeline enum: one definition for training and selection.
#include <memory>
#include <span>
#include <vector>

#include "features/fixed_schema_engine.h"
#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"

namespace kselect::gemm {

class GemmFeatureEngine : public features::FixedSchemaEngine {
 public:
  explicit GemmFeatureEngine(const HardwareProfile& hardware);

  std::string_view op() const override { return "gemm"; }
  std::map<std::string, int> feature_revisions() const override;
  // est_flops_per_cycle: the cycle estimate's FLOPs per cycle (docs/features.md).
  std::string throughput_prior() const override { return "est_flops_per_cycle"; }
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void extract_rows(std::string_view problem, const features::KernelBlock& kernels,
                    std::span<const int> columns, float* out) const override;
  std::string group_key(std::string_view problem) const override;
  std::string dtype(std::string_view problem) const override;

  // The typed path under extract_rows(): rows of `columns` (indices into all_features()).
  void extract_configs(const GemmProblem& problem, std::span<const GemmConfig> configs,
                       std::span<const int> columns, float* out) const;
};

}  // namespace kselect::gemm
