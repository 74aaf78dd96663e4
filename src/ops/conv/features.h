#pragma once
// The conv feature engine: CK's grouped-conv schema `ck97` (names, order and formulas as CK
// defines them, including its forward-style implicit-GEMM mapping for every direction, kept on
// purpose so that its cost can be measured) and kselect's default `kselect` schema (the GEMM
// each direction really runs, every configuration field, CPU features and a cycle estimate;
// docs/features.md, "Conv features"). Category codes come from the enums (Direction, Pipeline,
// Scheduler, Epilogue, Specialization): one definition for training and selection.
#include <memory>
#include <span>
#include <vector>

#include "features/fixed_schema_engine.h"
#include "ops/conv/config.h"
#include "ops/conv/problem.h"

namespace kselect::conv {

class ConvFeatureEngine : public features::FixedSchemaEngine {
 public:
  explicit ConvFeatureEngine(const HardwareProfile& hardware);

  std::string_view op() const override { return "conv"; }
  // est_flops_per_cycle: the shared driver's cycle estimate on the direction's GEMM.
  std::string throughput_prior() const override { return "est_flops_per_cycle"; }
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void extract_rows(std::string_view problem, const features::KernelBlock& kernels,
                    std::span<const int> columns, float* out) const override;
  // The geometry without direction, dtype and layout: the three directions of one layer (and
  // its fp32 and bf16 problems) fall in one fold.
  std::string group_key(std::string_view problem) const override;
  std::string dtype(std::string_view problem) const override;

  // The typed path under extract_rows(): rows of `columns` (indices into all_features()).
  void extract_configs(const Problem& problem, std::span<const ConvConfig> configs,
                       std::span<const int> columns, float* out) const;
};

}  // namespace kselect::conv
