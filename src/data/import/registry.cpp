#include <algorithm>

#include "core/error.h"
#include "core/text.h"
#include "data/import/importer.h"

namespace kselect::importers {

namespace {
std::vector<std::unique_ptr<Importer>>& registry() {
  static std::vector<std::unique_ptr<Importer>> all;
  return all;
}
}  // namespace

RegisterImporter::RegisterImporter(std::unique_ptr<Importer> importer) {
  registry().push_back(std::move(importer));
}

std::vector<const Importer*> importers() {
  std::vector<const Importer*> out;
  for (const auto& importer : registry()) out.push_back(importer.get());
  return out;
}

const Importer& find_importer(std::string_view format) {
  for (const auto& importer : registry())
    if (importer->format() == format) return *importer;
  const std::string known =
      join(registry(), [](const auto& importer) { return std::string(importer->format()); });
  throw InputError("", 0, "format",
                   "unknown import format '" + std::string(format) + "' (known: " + known + ")");
}

}  // namespace kselect::importers
