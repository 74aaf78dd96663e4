#include "ops/generic/operation.h"

#include <cctype>
#include <cmath>

#include "core/error.h"
#include "core/text.h"
#include "ops/generic/features.h"
#include "ops/generic/vocabulary.h"

namespace kselect::generic {

namespace {

// Integral numbers print as integers ("1.0" and "1" are the same problem).
std::string canonical_value(const std::string& value) {
  auto number = parse_double(value);
  if (number && std::isfinite(*number) && *number == std::floor(*number) &&
      std::fabs(*number) < 9.0e15 && !parse_int(value))
    return std::to_string(std::int64_t(*number));
  if (auto integer = parse_int(value)) return std::to_string(*integer);
  return value;
}

class GenericOperation : public Operation {
 public:
  std::string_view name() const override { return "generic"; }

  const Capabilities& capabilities() const override {
    static const Capabilities caps{.kernels_from_rule_sets = false,
                                   .always_has_flops = false,
                                   .fits_feature_state = true,
                                   .learns_from_any_op = true,
                                   .default_colsample = 0.8};
    return caps;
  }

  std::unique_ptr<features::FeatureEngine> make_feature_engine(
      const HardwareProfile& hardware, const nlohmann::json& state) const override {
    if (!state.is_object())
      throw InputError("", 0, "engine_state",
                       "a generic model needs the fitted feature state (feature_spec.json "
                       "\"engine_state\"); retrain the model with this kselect");
    return std::make_unique<GenericFeatureEngine>(
        hardware, GenericVocabulary::from_json(state, "engine_state"));
  }

  nlohmann::json fit_feature_state(std::span<const data::Measurement* const> rows,
                                   const std::map<std::string, nlohmann::json>& kernel_configs,
                                   const std::string& encoding = "target") const override {
    return GenericVocabulary::fit(rows, kernel_configs, {.encoding = encoding}).to_json();
  }

  nlohmann::json extend_feature_state(
      const nlohmann::json& state,
      const std::map<std::string, nlohmann::json>& kernel_configs) const override {
    if (!state.is_object() || kernel_configs.empty()) return state;
    auto vocabulary = GenericVocabulary::from_json(state, "engine_state");
    vocabulary.add_kernels(kernel_configs);
    return vocabulary.to_json();
  }

  std::string canonical_problem(std::string_view text, const std::string& source) const override {
    KeyValues in = KeyValues::parse(text, source), out;
    for (const auto& [key, value] : in.items()) {
      std::string k = lower(key);
      if (value.empty()) throw InputError(source, 0, k, "empty value");
      if (value.find('=') != std::string::npos)
        throw InputError(source, 0, k, "'=' inside a value");
      if (out.has(k)) throw InputError(source, 0, k, "given twice");
      out.set(k, canonical_value(value));
    }
    if (out.items().empty()) throw InputError(source, 0, "", "empty problem");
    return out.to_string();
  }

  std::vector<std::string> problem_columns() const override { return {}; }

  std::vector<std::string> kernel_names(std::string_view, const KeyValues&) const override {
    throw InputError("", 0, "rules",
                     "the generic op has no rule sets: its candidates are the kernels a model "
                     "saw in training");
  }

  nlohmann::json kernel_fields(std::string_view kernel) const override {
    return {{"name", std::string(kernel)}};
  }

  std::string unsupported_reason(std::string_view, std::string_view) const override { return ""; }
  // Its kernels are all measured elsewhere: it runs none and learns from them as imported data.
  bool owns_kernel(std::string_view) const override { return false; }

  std::unique_ptr<Workload> make_workload(std::string_view, unsigned) const override {
    throw_cannot_run();
  }
  std::unique_ptr<BoundKernel> bind(std::string_view, Workload&, int) const override {
    throw_cannot_run();
  }

 private:
  [[noreturn]] static void throw_cannot_run() {
    throw InputError("", 0, "op",
                     "kselect cannot run generic kernels; they are measured elsewhere and "
                     "imported (kselect import)");
  }
};

}  // namespace

const Operation& operation() {
  static const GenericOperation op;
  return op;
}

}  // namespace kselect::generic
