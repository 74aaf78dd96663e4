#include "features/engine.h"

#include <unordered_map>

#include "core/error.h"
#include "core/text.h"

namespace kselect::features {

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
