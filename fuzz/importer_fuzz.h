#pragma once
// The body of every importer's libFuzzer target: the bytes as a file of `format`, read to the end.
// An importer may reject input only with InputError; any other exception, crash, leak or
// undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/key_values.h"
#include "data/import/importer.h"

namespace kselect::fuzz {

// Counts what it receives and touches every field, so a row with dangling or uninitialised
// contents shows up under the sanitizers.
struct CountingSink : importers::RowSink {
  size_t rows = 0, skips = 0, bytes = 0;
  void add(importers::ImportedRow row) override {
    ++rows;
    bytes += row.problem.size() + row.kernel.size() + row.reason.size() +
             row.kernel_config.dump().size() + size_t(row.valid) + size_t(row.line > 0) +
             size_t(row.time_ms > 0) + size_t(row.tflops > 0);
  }
  void skip(long line, std::string reason) override { skips += size_t(line >= 0) + reason.size(); }
};

// Reads the input as a file named `source` in `format`. `settings` are importer settings
// ("key=value,..."); with more than one, the first input byte picks one and the rest is the file,
// so one target covers several mappings.
inline int fuzz_importer(const char* format, const char* source, const uint8_t* data, size_t size,
                         std::initializer_list<const char*> settings = {}) {
  importers::ImportOptions options;
  options.source = source;
  if (settings.size() > 1) {
    if (size == 0) return 0;
    options.settings = KeyValues::parse(settings.begin()[data[0] % settings.size()]);
    ++data, --size;
  } else if (settings.size() == 1) {
    options.settings = KeyValues::parse(*settings.begin());
  }
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const importers::Importer& importer = importers::find_importer(format);
  CountingSink sink;
  try {
    importer.read(in, options, sink);
  } catch (const InputError&) {
    // A file that cannot be this format at all: the documented way to refuse it.
  }
  return 0;
}

}  // namespace kselect::fuzz
