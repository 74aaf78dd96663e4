#pragma once
// Runs a CK importer over text or a fixture and keeps what it reports, for the CK importer tests.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "data/import/importer.h"

namespace kselect::testing {

// The two GEMM kernels of the fixtures.
inline const char* const kCkCompv4 =
    "gemm_universal_fp16_rcr_compv4_cshuffle_intrawave_True_True_True_False_128x128x32_2x2x1_"
    "32x32x16";
inline const char* const kCkMem =
    "gemm_universal_fp16_rcr_mem_cshuffle_interwave_False_False_False_False_64x128x64_1x4x1_"
    "16x16x32";

struct CollectingSink : importers::RowSink {
  std::vector<importers::ImportedRow> rows;
  std::vector<std::pair<long, std::string>> skips;
  void add(importers::ImportedRow row) override { rows.push_back(std::move(row)); }
  void skip(long line, std::string reason) override { skips.emplace_back(line, std::move(reason)); }
};

// Each skip at the expected line, its reason containing the expected text.
inline void expect_skips(const CollectingSink& sink,
                         const std::vector<std::pair<long, std::string>>& expected) {
  ASSERT_EQ(sink.skips.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(sink.skips[i].first, expected[i].first);
    EXPECT_NE(sink.skips[i].second.find(expected[i].second), std::string::npos)
        << sink.skips[i].second;
  }
}

inline std::string ck_fixture(const std::string& name) {
  std::ifstream in(std::string(KSELECT_SOURCE_DIR) + "/tests/data/import/fixtures/ck/" + name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline CollectingSink import_text(const std::string& format, const std::string& text,
                                  const std::string& settings = "") {
  importers::ImportOptions options;
  options.settings = KeyValues::parse(settings);
  options.source = "test." + format;
  std::istringstream in(text);
  CollectingSink sink;
  importers::find_importer(format).read(in, options, sink);
  return sink;
}

}  // namespace kselect::testing
