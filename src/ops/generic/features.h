#pragma once
// The generic feature engine: features fitted from training data (GenericVocabulary) rather
// than a fixed schema. One schema, "generic", whose feature list is the fitted one.
#include <memory>
#include <span>

#include "features/engine.h"
#include "ops/generic/vocabulary.h"

namespace kselect::generic {

class GenericFeatureEngine : public features::FeatureEngine {
 public:
  GenericFeatureEngine(const HardwareProfile& hardware, GenericVocabulary vocabulary);

  std::string_view op() const override { return "generic"; }
  std::vector<std::string> schema_names() const override { return {schema_.name}; }
  const std::string& default_schema() const override { return schema_.name; }
  const features::Schema& schema(std::string_view name) const override;
  const std::vector<std::string>& all_features() const override { return schema_.features; }
  const HardwareProfile& hardware() const override { return hardware_; }
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  void extract_rows(std::string_view problem, const features::KernelBlock& kernels,
                    std::span<const int> columns, float* out) const override;
  // The problem without dtype, dir and layout: cross-validation groups on the geometry (and
  // the device, which is context).
  std::string group_key(std::string_view problem) const override;
  std::string dtype(std::string_view problem) const override;
  std::string context(std::string_view problem) const override;
  std::vector<std::string> candidates(std::string_view problem) const override {
    return vocabulary_.candidates(problem);
  }
  std::vector<std::string> winner_order(std::string_view problem,
                                        std::vector<std::string> kernels) const override {
    return vocabulary_.winner_order(problem, std::move(kernels));
  }
  std::vector<std::string> known_kernels() const override { return vocabulary_.kernels(); }
  std::vector<std::string> problem_features() const override;

  const GenericVocabulary& vocabulary() const { return vocabulary_; }

 private:
  HardwareProfile hardware_;
  GenericVocabulary vocabulary_;
  features::Schema schema_;
};

}  // namespace kselect::generic
