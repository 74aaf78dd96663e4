#pragma once
// A RowSink that keeps everything an importer reports, helpers that run an importer over
// in-memory text or a file, and the fixtures of tests/data/import/fixtures, for the importer
// tests.
#include <gtest/gtest.h>

#include <fstream>
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

// What `kselect import` would give the importer: the file name (default "test.<format>"),
// the --map settings ("key=value,...") and --device.
inline importers::ImportOptions import_options(const std::string& format, std::string source,
                                               const std::string& settings,
                                               const std::string& device) {
  importers::ImportOptions options;
  options.source = source.empty() ? "test." + format : std::move(source);
  options.settings = KeyValues::parse(settings);
  options.device = device;
  return options;
}

// Runs the importer of `format` over `text` as if it were a file named `source`.
inline ImportCollector collect_text(const std::string& format, const std::string& text,
                                    const std::string& source = "",
                                    const std::string& settings = "",
                                    const std::string& device = "") {
  std::istringstream in(text);
  ImportCollector sink;
  importers::find_importer(format).read(in, import_options(format, source, settings, device), sink);
  return sink;
}

// Runs the importer of `format` over a file (compressed or not), as `kselect import` would.
inline ImportCollector collect_file(const std::string& format, const std::string& path,
                                    const std::string& device = "") {
  importers::InputFile file(path);
  ImportCollector sink;
  importers::find_importer(format).read(file.stream(), import_options(format, path, "", device),
                                        sink);
  return sink;
}

// Each skip at the expected line, its reason containing the expected text.
inline void expect_skips(const ImportCollector& sink,
                         const std::vector<std::pair<long, std::string>>& expected) {
  ASSERT_EQ(sink.skips.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(sink.skips[i].line, expected[i].first);
    EXPECT_NE(sink.skips[i].reason.find(expected[i].second), std::string::npos)
        << sink.skips[i].reason;
  }
}

// The bytes of tests/data/import/fixtures/<name>.
inline std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(KSELECT_SOURCE_DIR) + "/tests/data/import/fixtures/" + name,
                   std::ios::binary);
  EXPECT_TRUE(in) << "missing fixture " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The two GEMM kernels of the CK fixtures (fixtures/ck/).
inline const char* const kCkCompv4 =
    "gemm_universal_fp16_rcr_compv4_cshuffle_intrawave_True_True_True_False_128x128x32_2x2x1_"
    "32x32x16";
inline const char* const kCkMem =
    "gemm_universal_fp16_rcr_mem_cshuffle_interwave_False_False_False_False_64x128x64_1x4x1_"
    "16x16x32";

}  // namespace kselect::testing
