// The defaults of the Operation interface, apart from the registry so that code holding one op
// (a fuzz target, a test) links without every registered op.
#include "ops/operation.h"

#include "core/error.h"

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

std::vector<std::string> Operation::generate_problems(const ShapeRequest&) const {
  throw InputError("", 0, "op",
                   "the " + std::string(name()) + " op has no shape families: give --shapes");
}

}  // namespace kselect
