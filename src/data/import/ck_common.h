#pragma once
// What the three CK importers (ck-json, ck-log, ck-conv-csv) share: size, word and JSON-number
// reading, flat kernel configurations, the Importer of a reader. CK's kernel names and the
// problems are the ops' codecs (ops/gemm/ck_names.h, ops/conv/ck_names.h, ops/*/problem.h);
// what every importer shares is in common.h. Formats are described in docs/formats/ck.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/import/common.h"
#include "data/import/importer.h"
#include "ops/ck_name_parts.h"

namespace kselect::importers::ck {

// Problem sizes: a whole-string integer in [min, kMaxDim] (ops/ck_name_parts.h).
using kselect::ck::kMaxDim;
using kselect::ck::parse_dim;
// The same for a JSON value (an integral number, or a float that is exactly integral).
std::optional<std::int64_t> json_dim(const nlohmann::json& value, std::int64_t min = 1);

// A dtype, layout or similar value usable in a problem text (letters, digits, _ - . +),
// lower-cased; nullopt when empty or containing anything else.
std::optional<std::string> word(std::string_view text);

// A number member of a JSON object: NaN when the member is absent or null, nullopt when it is
// something else than a number.
std::optional<double> json_number(const nlohmann::json& object, const std::string& key);

// A kernel's parameters as a flat object: scalars kept, booleans and "True"/"False" as 0/1,
// nested values and `name` dropped.
nlohmann::json flat_config(const nlohmann::json& object);

// The Importer of a CK format: Reader(options, sink).read(in) does the work.
template <typename Reader>
class ReaderImporter : public Importer {
 public:
  // `op`: the operation whose problems the rows are ("" for Importer's default); `revision` as
  // Importer::revision. Every argument a string literal.
  ReaderImporter(std::string_view format, std::string_view description, std::string_view op = "",
                 int revision = 1)
      : format_(format), description_(description), op_(op), revision_(revision) {}
  std::string_view format() const override { return format_; }
  std::string_view description() const override { return description_; }
  std::string_view op() const override { return op_.empty() ? Importer::op() : op_; }
  int revision() const override { return revision_; }
  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    Reader(options, sink).read(in);
  }

 private:
  std::string_view format_, description_, op_;  // string literals
  int revision_;
};

}  // namespace kselect::importers::ck
