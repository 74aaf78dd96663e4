#pragma once
// A RowSink that keeps everything an importer reports, and a helper that runs an importer over
// in-memory text, for the importer tests.
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "data/import/importer.h"
#include "data/import/source.h"

namespace kselect::testing {

struct ImportCollector : importers::RowSink {
  struct Skip {
    long line;
    std::string reason;
  };
  std::vector<importers::ImportedRow> rows;
  std::vector<Skip> skips;

  void add(importers::ImportedRow row) override { rows.push_back(std::move(row)); }
  void skip(long line, std::string reason) override { skips.push_back({line, std::move(reason)}); }
};

// Runs the importer of `format` over `text` as if it were a file named `source`.
inline ImportCollector collect_text(const std::string& format, const std::string& text,
                                    const std::string& source = "test.txt",
                                    const std::string& settings = "") {
  importers::ImportOptions options;
  options.source = source;
  options.settings = KeyValues::parse(settings);
  std::istringstream in(text);
  ImportCollector sink;
  importers::find_importer(format).read(in, options, sink);
  return sink;
}

// Runs the importer of `format` over a file (compressed or not), as `kselect import` would.
inline ImportCollector collect_file(const std::string& format, const std::string& path) {
  const importers::Importer& importer = importers::find_importer(format);
  importers::ImportOptions options;
  options.source = path;
  importers::InputFile file(path);
  ImportCollector sink;
  importer.read(file.stream(), options, sink);
  return sink;
}

}  // namespace kselect::testing
