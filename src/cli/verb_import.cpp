// kselect import: measurements from other projects' files into a store (docs/importers.md).
#include <cmath>
#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/error.h"
#include "data/import/driver.h"
#include "data/import/importer.h"

namespace kselect::cli {
namespace {

struct Args {
  std::string format, db, device, mapping, skipped_log;
  std::vector<std::string> files, maps;
  long show_skipped = 20;
  bool strict = false, json = false, list_formats = false, quiet = false;
};

void list_formats() {
  for (const auto* importer : importers::importers())
    std::cout << importer->format() << "\t" << importer->description() << "\n";
}

importers::ImportRunOptions run_options(const Args& a) {
  importers::ImportRunOptions options;
  if (!a.mapping.empty()) options.settings = importers::read_mapping_file(a.mapping);
  for (const std::string& map : a.maps) {
    // One key=value per --map; the value may hold ',' (a list of columns).
    auto eq = map.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", 0, "--map", "expected key=value, got '" + map + "'");
    options.settings.set(map.substr(0, eq), map.substr(eq + 1));
  }
  options.device = a.device;
  options.strict = a.strict;
  options.show_skipped = a.show_skipped;
  options.skipped_log = a.skipped_log;
  options.progress = !a.quiet;
  return options;
}

void print_summary(const importers::ImportSummary& s) {
  std::cout << s.file << " (" << s.format << ", " << s.compression << ", device " << s.device
            << "): " << s.records << " records, " << s.rows << " rows -> " << s.valid + s.invalid
            << " measurements (" << s.valid << " valid, " << s.invalid << " invalid, "
            << s.duplicates << " duplicates merged by median), " << s.problems << " problems, "
            << s.kernels << " kernels; added " << s.added << ", already present "
            << s.already_present << "; skipped " << s.skipped << " lines; "
            << std::llround(s.seconds * 10) / 10.0 << " s\n";
  for (const auto& [reason, count] : s.skipped_by_reason)
    std::cout << "  skipped " << count << " x " << reason << "\n";
}

int run(const Args& a) {
  if (a.list_formats) {
    list_formats();
    return kExitOk;
  }
  if (a.format.empty() || a.files.empty() || a.db.empty()) {
    std::cerr << "kselect import: give a format, at least one file and --db (see --help; "
                 "--list-formats lists the formats)\n";
    return kExitUsage;
  }
  const importers::ImportRunOptions options = run_options(a);
  nlohmann::json files = nlohmann::json::array();
  long added = 0, skipped = 0;
  for (const std::string& file : a.files) {
    importers::ImportSummary s = importers::import_file(file, a.format, a.db, options);
    for (const auto& line : s.first_skipped) std::cerr << line.to_string() << "\n";
    if (s.skipped > long(s.first_skipped.size()))
      std::cerr << "(" << s.skipped - long(s.first_skipped.size())
                << " more skipped lines; --skipped-log FILE writes all)\n";
    if (!a.json) print_summary(s);
    files.push_back(s.to_json());
    added += s.added, skipped += s.skipped;
  }
  if (a.json)
    std::cout << nlohmann::json{{"files", files}, {"added", added}, {"skipped", skipped}}.dump(2)
              << "\n";
  return kExitOk;
}

RegisterVerb reg("import", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "import", "import measurements from other projects' files (docs/importers.md)");
  cmd->add_option("format", args->format, "file format (--list-formats lists them)");
  cmd->add_option("files", args->files, "input files (.gz and .bz2 are read directly)");
  cmd->add_option("--db", args->db, "the store to add to (created when absent)");
  cmd->add_option("--device", args->device,
                  "the device the data was measured on: recorded with the run and as every "
                  "problem's device field (default: from the file, else unknown)");
  cmd->add_option("--map", args->maps, "an importer setting key=value (repeatable)");
  cmd->add_option("--mapping", args->mapping, "importer settings from a JSON file");
  cmd->add_flag("--strict", args->strict, "the first unusable line is an error; nothing written");
  cmd->add_option("--show-skipped", args->show_skipped,
                  "print the first N skipped lines on stderr (default 20)");
  cmd->add_option("--skipped-log", args->skipped_log, "write every skipped line to this file");
  cmd->add_flag("--json", args->json, "print the summary as JSON on stdout");
  cmd->add_flag("--quiet", args->quiet, "no progress line");
  cmd->add_flag("--list-formats", args->list_formats, "list the formats and exit");
  return [args] { return run(*args); };
});

}  // namespace
}  // namespace kselect::cli
