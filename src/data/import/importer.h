#pragma once
// Importers turn other projects' measurement files (MIOpen find-db, Kernel Tuner caches, CK
// benchmark output, generic CSV) into kselect measurements. Each format is one Importer that
// parses an already-decompressed text stream and reports every row it understood and every line
// it could not use, with the reason; the import driver (import_file) does decompression,
// progress, duplicate aggregation and the transactional write to the store.
//
// Each format file defines the function that returns its Importer (formats.h), and
// registry.cpp lists them explicitly, one line each: no static registration, so the library
// links as a plain archive.
#include <cmath>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"

namespace kselect::importers {

// One measured (problem, kernel) pair read from a file. It names no operation: the driver
// stores every row of an importer under Importer::op().
struct ImportedRow {
  std::string problem;  // canonical "key=value,..." text: field names lower-case, fixed order
  std::string kernel;   // the kernel's name as the source names it (solver, CK name, params)
  // The kernel's parameters ({"block_size_x": 16, "pipeline": "compv4", ...}); an empty object
  // when the source identifies the kernel only by name (then the name is the feature).
  nlohmann::json kernel_config = nlohmann::json::object();
  bool valid = true;   // false: failed, unsupported, zero/negative/non-finite time
  std::string reason;  // why not valid
  double time_ms = std::nan("");
  double tflops = std::nan("");  // when the source gives it (or it follows from the problem)
  double bandwidth_gb_s = std::nan("");
  long line = 0;  // 1-based line of the source it came from (0 when not line-oriented)
};

// Receives what an importer reads. The driver's sink aggregates duplicates and writes the store.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void add(ImportedRow row) = 0;
  // A line (or record) that yields no row: `line` 1-based, `reason` a short phrase naming the
  // field ("field 'time_ms': not a number 'abc'"). In --strict mode the driver throws InputError
  // on the first call.
  virtual void skip(long line, std::string reason) = 0;
};

struct ImportOptions {
  // Format-specific settings from the command line (--map problem=m,n,k, ...): each importer
  // documents the keys it reads and rejects unknown ones with InputError.
  KeyValues settings;
  std::string source;  // file name used in messages and recorded with the run
  // The device the data was measured on (--device), "" when not given. An importer that puts a
  // `device` field into its problems uses this before what the file says (checked_device() in
  // common.h), so the problems and the run's recorded device agree.
  std::string device;
};

class Importer {
 public:
  virtual ~Importer() = default;
  virtual std::string_view format() const = 0;       // "miopen-fdb", "kernel-tuner", ...
  virtual std::string_view description() const = 0;  // one line for `kselect import --help`
  // The device the data was measured on when the file says so (Kernel Tuner's device_name,
  // the arch of a find-db file name); "" when unknown. Called before read().
  virtual std::string device_from_name(const std::string& path) const {
    (void)path;
    return "";
  }
  // The registered operation whose problems the rows are, which the driver stores them under
  // after checking each problem with that op's codec (Operation::canonical_problem): "conv" for
  // convolutions (conv::Problem's texts). The base: "", the op that learns from imported data
  // (imported_data_operation(), resolved by the driver: importers and the fuzzers that run them
  // need no op registry), whose problems are any key=value fields, for data no registered op's.
  virtual std::string_view op() const;
  // Bumped when the same file starts to import as different rows (other problem texts or
  // times). It is part of the import run's settings key from 2 on, so re-importing a file into
  // a store made by an older revision stores the new rows under a new key (the newest row of a
  // pair is the one read) instead of counting them as already present.
  virtual int revision() const { return 1; }
  // Parses the whole stream. Throws InputError (naming options.source and the line) only for
  // a file that cannot be this format at all (binary garbage, wrong top-level structure);
  // individual bad lines go to sink.skip().
  virtual void read(std::istream& in, const ImportOptions& options, RowSink& sink) const = 0;
};

// The importers of registry.cpp, in its order; find_importer throws InputError listing the
// known formats.
const Importer& find_importer(std::string_view format);
std::vector<const Importer*> importers();

}  // namespace kselect::importers
