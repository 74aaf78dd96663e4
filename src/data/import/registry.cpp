#include "core/error.h"
#include "core/text.h"
#include "data/import/formats.h"
#include "data/import/importer.h"

namespace kselect::importers {

namespace {
// One line per format, in the order `kselect import --list-formats` prints them.
const std::vector<const Importer*>& registry() {
  static const std::vector<const Importer*> all = {
      &ck_conv_csv_importer(),   //
      &ck_json_importer(),       //
      &ck_log_importer(),        //
      &csv_importer(),           //
      &kernel_tuner_importer(),  //
      &miopen_fdb_importer(),    //
  };
  return all;
}
}  // namespace

std::string_view Importer::op() const {
  return {};
}

std::vector<const Importer*> importers() {
  return registry();
}

const Importer& find_importer(std::string_view format) {
  for (const Importer* importer : registry())
    if (importer->format() == format) return *importer;
  const std::string known =
      join(registry(), [](const Importer* importer) { return std::string(importer->format()); });
  throw InputError("", 0, "format",
                   "unknown import format '" + std::string(format) + "' (known: " + known + ")");
}

}  // namespace kselect::importers
