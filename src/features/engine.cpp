#include "features/engine.h"

#include <unordered_map>

#include "core/error.h"
#include "core/text.h"
#include "ops/gemm/features.h"
#include "ops/generic/features.h"

namespace kselect::features {

std::unique_ptr<FeatureEngine> make_engine(std::string_view op, const HardwareProfile& hardware,
                                           const nlohmann::json& engine_state) {
  // One line per operation with a feature engine.
  if (op == "gemm") return std::make_unique<gemm::GemmFeatureEngine>(hardware);
  if (op == "generic") {
    if (!engine_state.is_object())
      throw InputError("", 0, "engine_state",
                       "a generic model needs the fitted feature state (feature_spec.json "
                       "\"engine_state\"); retrain the model with this kselect");
    return std::make_unique<generic::GenericFeatureEngine>(
        hardware, generic::GenericVocabulary::from_json(engine_state, "engine_state"));
  }
  throw InputError(
      "", 0, "op",
      "no feature engine for operation '" + std::string(op) + "' (known: gemm, generic)");
}

nlohmann::json fit_engine_state(std::string_view op, std::span<const data::Measurement* const> rows,
                                const std::map<std::string, nlohmann::json>& kernel_configs,
                                const std::string& encoding) {
  if (op != "generic") return nullptr;
  return generic::GenericVocabulary::fit(rows, kernel_configs, {.encoding = encoding}).to_json();
}

nlohmann::json extend_engine_state(std::string_view op, const nlohmann::json& engine_state,
                                   const std::map<std::string, nlohmann::json>& kernel_configs) {
  if (op != "generic" || !engine_state.is_object() || kernel_configs.empty()) return engine_state;
  auto vocabulary = generic::GenericVocabulary::from_json(engine_state, "engine_state");
  vocabulary.add_kernels(kernel_configs);
  return vocabulary.to_json();
}

std::vector<int> map_columns(const std::vector<std::string>& wanted,
                             const std::vector<std::string>& available,
                             const std::string& context) {
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < available.size(); ++i) index.emplace(available[i], int(i));
  std::vector<int> columns;
  std::vector<std::string> missing;
  for (const auto& name : wanted) {
    auto it = index.find(name);
    if (it == index.end()) {
      missing.push_back(name);
      columns.push_back(-1);
    } else {
      columns.push_back(it->second);
    }
  }
  if (!missing.empty())
    throw InputError(context + " needs features this engine does not produce: " + join(missing));
  return columns;
}

FeatureMatrix FeatureEngine::extract(std::string_view schema_name, std::string_view problem,
                                     std::span<const std::string> kernels) const {
  const Schema& s = schema(schema_name);
  std::vector<int> columns = columns_of(s.features, "schema " + s.name);
  auto block = prepare(kernels);
  FeatureMatrix m;
  m.names = s.features;
  m.rows = block->size();
  m.values.resize(m.rows * m.cols());
  extract_rows(problem, *block, columns, m.values.data());
  return m;
}

std::vector<int> FeatureEngine::columns_of(const std::vector<std::string>& names,
                                           const std::string& context) const {
  return map_columns(names, all_features(), context);
}

}  // namespace kselect::features
