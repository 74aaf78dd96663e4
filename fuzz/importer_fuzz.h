#pragma once
// The body of an importer's libFuzzer target: the bytes as a file of `format`, read to the end.
// An importer may reject input only with InputError; any other exception, crash, leak or
// undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.h"
#include "data/import/importer.h"

namespace kselect::fuzz {

// Counts what it receives and touches every field, so a row with dangling or uninitialised
// contents shows up under the sanitizers.
struct CountingSink : importers::RowSink {
  size_t rows = 0, skips = 0, bytes = 0;
  void add(importers::ImportedRow row) override {
    ++rows;
    bytes += row.problem.size() + row.kernel.size() + row.reason.size() + row.op.size() +
             row.kernel_config.dump().size() + size_t(row.valid) + size_t(row.line > 0) +
             size_t(row.time_ms > 0) + size_t(row.tflops > 0);
  }
  void skip(long line, std::string reason) override { skips += size_t(line >= 0) + reason.size(); }
};

inline int fuzz_importer(const char* format, const char* source, const uint8_t* data, size_t size) {
  importers::ImportOptions options;
  options.source = source;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  CountingSink sink;
  try {
    importers::find_importer(format).read(in, options, sink);
  } catch (const InputError&) {
    // A file that cannot be this format at all: the documented way to refuse it.
  }
  return 0;
}

}  // namespace kselect::fuzz
