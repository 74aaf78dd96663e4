#pragma once
// The importer of each format, one function per format file (src/data/import/<format>.cpp);
// registry.cpp lists them.
#include "data/import/importer.h"

namespace kselect::importers {

const Importer& ck_conv_csv_importer();
const Importer& ck_json_importer();
const Importer& ck_log_importer();
const Importer& csv_importer();
const Importer& kernel_tuner_importer();
const Importer& miopen_fdb_importer();

}  // namespace kselect::importers
