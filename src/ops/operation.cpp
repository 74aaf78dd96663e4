// The defaults of the Operation interface, apart from the registry so that code holding one op
// (a fuzz target, a test) links without every registered op.
#include "ops/operation.h"

#include <mutex>

#include "core/error.h"
#include "rules/sets.h"

namespace kselect {

std::unique_ptr<features::FeatureEngine> Operation::make_feature_engine(
    const HardwareProfile&, const nlohmann::json&) const {
  throw InputError("", 0, "op", "the " + std::string(name()) + " op has no feature engine");
}

std::unique_ptr<features::FeatureEngine> Operation::fitted_feature_engine(
    const HardwareProfile& hardware, std::span<const data::Measurement* const> rows,
    const std::map<std::string, nlohmann::json>& kernel_configs,
    const std::string& encoding) const {
  const nlohmann::json state = capabilities().fits_feature_state
                                   ? fit_feature_state(rows, kernel_configs, encoding)
                                   : nlohmann::json();
  return make_feature_engine(hardware, state);
}

const rules::RuleSets* Operation::rule_sets() const {
  if (!capabilities().kernels_from_rule_sets) return nullptr;
  // Generated once per op (well under a second) and kept for the process.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<rules::RuleSets>, std::less<>> generated;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = generated.find(name()); it != generated.end()) return it->second.get();
  // The one file for the native target (files for a GPU declare the same op).
  auto stem = rules::RuleFile::embedded_stem(name(), rules::kNativeTarget);
  if (!stem) return nullptr;
  auto sets = std::make_unique<rules::RuleSets>(rules::RuleFile::embedded(*stem));
  return generated.emplace(std::string(name()), std::move(sets)).first->second.get();
}

std::vector<std::string> Operation::check_target_rules(const rules::RuleSets& sets) const {
  return {sets.rules().source() + ": the " + std::string(name()) +
          " op reads no kernel names of target '" + sets.rules().target() + "'"};
}

KernelCatalogue::KernelCatalogue(std::vector<std::string> names) : names_(std::move(names)) {
  index_.reserve(names_.size());
  for (std::size_t i = 0; i < names_.size(); ++i) index_.emplace(names_[i], i);
}

std::size_t KernelCatalogue::find(std::string_view kernel) const {
  auto it = index_.find(kernel);
  return it == index_.end() ? npos : it->second;
}

std::vector<std::uint32_t> KernelCatalogue::supported(std::string_view problem) const {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < size(); ++i)
    if (unsupported_reason(i, problem).empty()) out.push_back(std::uint32_t(i));
  return out;
}

namespace {

// The base catalogue: the op answers by name.
class NamedKernelCatalogue final : public KernelCatalogue {
 public:
  NamedKernelCatalogue(const Operation& op, std::vector<std::string> names)
      : KernelCatalogue(std::move(names)), op_(op) {}
  std::string unsupported_reason(std::size_t index, std::string_view problem) const override {
    return op_.unsupported_reason(name(index), problem);
  }

 private:
  const Operation& op_;
};

}  // namespace

std::unique_ptr<KernelCatalogue> Operation::catalogue(std::vector<std::string> kernels) const {
  for (const auto& k : kernels) kernel_fields(k);  // InputError for a name the op lacks
  return std::make_unique<NamedKernelCatalogue>(*this, std::move(kernels));
}

std::unique_ptr<Workload> Operation::wrap_buffers(std::string_view, std::span<void* const>) const {
  throw InputError("", 0, "op",
                   "the " + std::string(name()) + " op cannot run on a caller's buffers");
}

std::vector<std::string> Operation::generate_problems(const ShapeRequest&) const {
  throw InputError("", 0, "op",
                   "the " + std::string(name()) + " op has no shape families: give --shapes");
}

}  // namespace kselect
