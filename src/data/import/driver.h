#pragma once
// The import driver behind `kselect import`: reads one file (decompressing gzip/bzip2) with a
// registered Importer, stages its rows on disk (bounded memory whatever the file size),
// merges duplicate (problem, kernel) measurements by their median time and writes the result to
// the store as one run in a single transaction. Lines the importer cannot use are recorded
// with their file, line and reason.
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"

namespace kselect::importers {

class Importer;

struct ImportRunOptions {
  // The GPU/CPU the data was measured on: given to the importer (ImportOptions::device) and
  // recorded with the run; "" = what the importer reads from the file, else "unknown".
  std::string device;
  KeyValues settings;           // importer settings (--map, --mapping)
  bool strict = false;          // the first skipped line is an InputError; nothing is written
  long show_skipped = 20;       // kept in ImportSummary::first_skipped for printing
  std::string skipped_log;      // when set, every skipped line is written there
  bool progress = true;         // progress line with ETA on `log`
  std::ostream* log = nullptr;  // progress output; nullptr = std::cerr
};

struct SkippedLine {
  std::string file;
  long line = 0;
  std::string reason;
  std::string to_string() const;  // "file:line: reason"
};

struct ImportSummary {
  std::string file, format, device, compression, settings_key;
  long records = 0;                // rows + skipped lines: everything the importer reported
  long rows = 0;                   // measurements read (before merging duplicates)
  long valid = 0, invalid = 0;     // measurements after merging
  long duplicates = 0;             // rows merged into another row of the same (problem, kernel)
  long problems = 0, kernels = 0;  // distinct in the file
  long added = 0, already_present = 0;  // measurements new to the store / stored before
  long run_id = 0;                      // 0 when nothing was added
  long skipped = 0;
  // Skip reasons grouped: quoted values and numbers are blanked so that "not a number 'x'" and
  // "not a number 'y'" count as one reason (see reason_category).
  std::map<std::string, long> skipped_by_reason;
  std::vector<SkippedLine> first_skipped;  // the first ImportRunOptions::show_skipped
  double seconds = 0;

  nlohmann::json to_json() const;
};

// Imports `path` in `format` into the store at `db_path` (created when absent). Throws
// InputError for an unknown format, an unreadable or corrupt file, a file that is not the
// format at all, or (strict) the first skipped line; the store is then left as it was.
ImportSummary import_file(const std::string& path, std::string_view format,
                          const std::string& db_path, const ImportRunOptions& options);
// The same with the importer itself (one that registry.cpp does not list, in tests).
ImportSummary import_file(const std::string& path, const Importer& importer,
                          const std::string& db_path, const ImportRunOptions& options);

// Importer settings from a mapping file: a JSON object such as {"problem": ["M", "N", "K"],
// "kernel": "name", "time": "ms", "parse_name": true}; arrays are joined with ';', numbers and
// booleans written as text. Throws InputError naming the file.
KeyValues read_mapping_file(const std::string& path);

// "field 'time': not a number 'abc'" -> "field 'time': not a number '…'": the text used to
// count skip reasons. Keeps the quoted name after "field ", blanks other quoted text and
// replaces standalone digit runs outside quotes by "N" ("UTF-8" and "fp16" stay).
std::string reason_category(std::string_view reason);

}  // namespace kselect::importers
