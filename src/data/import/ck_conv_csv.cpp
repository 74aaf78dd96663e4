// `ck-conv-csv`: CK's grouped-convolution benchmark CSV (reference ck-heuristics.md section 9):
//   kernel,[problem_idx],N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,tflops,non_zero
// plus optional 3-D and dilation columns (Di, Z, stride_d, pad_d, dilation_d/h/w) and output
// sizes (Do, Ho, Wo: checked against the geometry). Columns are found by header name (any
// order, case-insensitive; other columns are ignored). Direction and dtype come from the kernel
// name, and so do the kernel's parameters. Rows are conv problems (docs/formats/ck.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/text.h"
#include "data/import/ck_common.h"
#include "data/import/common.h"
#include "data/import/csv_reader.h"
#include "data/import/formats.h"
#include "data/import/importer.h"
#include "ops/conv/ck_names.h"
#include "ops/conv/problem.h"

namespace kselect::importers {

namespace {

std::string trim_lower(const std::string& text) {
  return lower(trim(text));
}

// Integer columns: header name, the smallest value allowed, whether the header must have it,
// and where it goes. The 3-D and dilation columns are optional: an absent column or an empty
// cell leaves the field's default (a 2-D problem without dilation). The output sizes are
// optional too and checked: given, they must be what the geometry gives.
enum class Dim { kRequired, kOptional, kOutput };
struct DimColumn {
  const char* name;
  std::int64_t min;
  Dim kind;
  std::int64_t& (*field)(conv::Problem&);
};
constexpr Dim kReq = Dim::kRequired, kOpt = Dim::kOptional, kOut = Dim::kOutput;
// clang-format off
constexpr DimColumn kDims[] = {
    {"N", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.n; }},
    {"C", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.c; }},
    {"K", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.k; }},
    {"G", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.g; }},
    {"Hi", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.hi; }},
    {"Wi", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.wi; }},
    {"Y", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.y; }},
    {"X", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.x; }},
    {"stride_h", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.stride[1]; }},
    {"stride_w", 1, kReq, [](conv::Problem& p) -> std::int64_t& { return p.stride[2]; }},
    {"pad_h", 0, kReq, [](conv::Problem& p) -> std::int64_t& { return p.pad[1]; }},
    {"pad_w", 0, kReq, [](conv::Problem& p) -> std::int64_t& { return p.pad[2]; }},
    {"Di", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.di; }},
    {"Z", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.z; }},
    {"stride_d", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.stride[0]; }},
    {"pad_d", 0, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.pad[0]; }},
    {"dilation_d", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.dil[0]; }},
    {"dilation_h", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.dil[1]; }},
    {"dilation_w", 1, kOpt, [](conv::Problem& p) -> std::int64_t& { return p.dil[2]; }},
    {"Do", 1, kOut, [](conv::Problem& p) -> std::int64_t& { return p.do_; }},
    {"Ho", 1, kOut, [](conv::Problem& p) -> std::int64_t& { return p.ho; }},
    {"Wo", 1, kOut, [](conv::Problem& p) -> std::int64_t& { return p.wo; }}};
// clang-format on

// Where each named column is in the file.
class Header {
 public:
  Header(const std::vector<std::string>& names, const std::string& source) {
    const std::string line = join(names, ",");
    for (size_t i = 0; i < names.size(); ++i) index_.emplace(trim_lower(names[i]), i);
    size_ = names.size();
    std::vector<std::string> required = {"kernel", "latency_ms"};
    for (const auto& dim : kDims)
      if (dim.kind == Dim::kRequired) required.push_back(dim.name);
    for (const auto& name : required)
      if (!has(name)) throw InputError(source, 1, name, missing_message(line));
  }
  bool has(const std::string& name) const { return index_.count(trim_lower(name)) > 0; }
  size_t at(const std::string& name) const { return index_.at(trim_lower(name)); }
  size_t size() const { return size_; }

 private:
  static std::string missing_message(const std::string& line) {
    std::string message = "column missing from the header '" + line.substr(0, 200) + "'";
    if (line.find(',') == std::string::npos && line.find_first_of(";\t|") != std::string::npos)
      message += " (the file is not comma-separated)";
    return message;
  }

  std::map<std::string, size_t> index_;
  size_t size_ = 0;
};

// non_zero: whether the kernel's output held non-zero values (CK's check that the kernel ran).
std::optional<bool> parse_non_zero(const std::string& text) {
  std::string word = lower(text);
  if (word == "true") return true;
  if (word == "false") return false;
  auto count = parse_int(word);
  if (!count || *count < 0) return std::nullopt;
  return *count > 0;
}

class CkConvCsvReader {
 public:
  // Every imported conv problem names the device that measured it (conv::is_imported_text):
  // --device, else "unknown" (CK's CSV does not say).
  CkConvCsvReader(const ImportOptions& options, RowSink& sink)
      : options_(options), sink_(sink), device_(device_without_settings(options, "ck-conv-csv")) {
    if (device_.empty()) device_ = "unknown";
  }

  void read(std::istream& in) {
    CsvReader reader(in);
    std::vector<std::string> fields;
    if (!reader.next(fields) || (fields.size() == 1 && fields[0].empty()))
      throw InputError(options_.source, 1, "", "no header line: not a CK conv CSV");
    if (!reader.error().empty())
      throw InputError(options_.source, reader.line(), "header", reader.error());
    Header header(fields, options_.source);
    while (reader.next(fields)) {
      if (!reader.error().empty()) {
        sink_.skip(reader.line(), reader.error());
        continue;
      }
      if (fields.size() != header.size()) {
        sink_.skip(reader.line(), "expected " + std::to_string(header.size()) + " fields, found " +
                                      std::to_string(fields.size()));
        continue;
      }
      ImportedRow row;
      row.line = reader.line();
      if (auto error = fill_row(header, fields, row)) {
        sink_.skip(reader.line(), *error);
        continue;
      }
      sink_.add(std::move(row));
    }
  }

 private:
  std::optional<std::string> fill_row(const Header& header, const std::vector<std::string>& fields,
                                      ImportedRow& row) const {
    auto field = [&](const char* name) -> const std::string* {
      return header.has(name) ? &fields[header.at(name)] : nullptr;
    };
    row.kernel = *field("kernel");
    if (row.kernel.empty()) return field_reason("kernel", "empty");
    conv::CkKernelName name = conv::parse_ck_kernel_name(row.kernel);
    row.kernel_config = name.config;
    conv::Problem problem;
    if (auto error = read_geometry(field, problem)) return error;
    problem.dir = name.dir;
    problem.dtype = name.dtype;
    problem.device = device_;
    row.problem = conv::to_text(problem, conv::TextOrder::kWordsLast);
    if (auto error = read_measurement(header, fields, row)) return error;
    finish_row(row, problem.flops());
    return std::nullopt;
  }

  // The value of an integer column; nullopt with `why` set when it is not one.
  static std::optional<std::int64_t> dim_value(const DimColumn& dim, const std::string& text,
                                               std::string& why) {
    auto value = ck::parse_dim(text, dim.min);
    if (!value)
      why = field_reason(dim.name,
                         std::string(dim.min == 0 ? "not a non-negative" : "not a positive") +
                             " integer: '" + text + "'");
    return value;
  }

  // `field(name)`: the row's cell of a column, null when the header has no such column.
  // `field(name)`: the row's cell of a column, null when the header has no such column.
  template <typename Field>
  static std::optional<std::string> read_geometry(const Field& field, conv::Problem& problem) {
    std::string why;
    // The value of a column of `kind` into its field; false (`why` set) for a bad one.
    auto read = [&](Dim kind) {
      for (const auto& dim : kDims) {
        const std::string* text = dim.kind == kind ? field(dim.name) : nullptr;
        if (!text || (kind != Dim::kRequired && trim(*text).empty())) continue;
        auto value = ck::parse_dim(*text, dim.min);
        if (!value) {
          why = field_reason(dim.name,
                             std::string(dim.min == 0 ? "not a non-negative" : "not a positive") +
                                 " integer: '" + *text + "'");
          return false;
        }
        if (kind == Dim::kOutput && *value != dim.field(problem)) {
          why = field_reason(dim.name, "is " + std::to_string(*value) + " but the geometry gives " +
                                           std::to_string(dim.field(problem)));
          return false;
        }
        dim.field(problem) = *value;
      }
      return true;
    };
    if (!read(Dim::kRequired) || !read(Dim::kOptional)) return why;
    // C and K are the totals over all groups (the reference's features use C/G and K/G).
    if (problem.c % problem.g != 0 || problem.k % problem.g != 0)
      return field_reason("G", "C and K must be multiples of G=" + std::to_string(problem.g));
    problem.compute_output();
    if (problem.do_ <= 0 || problem.ho <= 0 || problem.wo <= 0)
      return field_reason(problem.do_ <= 0  ? "Z"
                          : problem.ho <= 0 ? "Y"
                                            : "X",
                          "the dilated filter is larger than the padded input");
    if (!read(Dim::kOutput)) return why;
    return std::nullopt;
  }

  static std::optional<std::string> read_measurement(const Header& header,
                                                     const std::vector<std::string>& fields,
                                                     ImportedRow& row) {
    const std::string& latency = fields[header.at("latency_ms")];
    auto time = parse_double(latency);
    if (!time) return field_reason("latency_ms", "not a number: '" + latency + "'");
    row.time_ms = *time;
    if (header.has("tflops") && !fields[header.at("tflops")].empty()) {
      const std::string& text = fields[header.at("tflops")];
      auto tflops = parse_double(text);
      if (!tflops) return field_reason("tflops", "not a number: '" + text + "'");
      row.tflops = *tflops;
    }
    if (header.has("non_zero")) {
      const std::string& text = fields[header.at("non_zero")];
      auto non_zero = parse_non_zero(text);
      if (!non_zero) return field_reason("non_zero", "not 0/1/true/false: '" + text + "'");
      if (!*non_zero) {
        row.valid = false;
        row.reason = "non_zero false: the output was all zeros (the kernel did not run)";
      }
    }
    return std::nullopt;
  }

  const ImportOptions& options_;
  RowSink& sink_;
  std::string device_;
};

}  // namespace

const Importer& ck_conv_csv_importer() {
  static const ck::ReaderImporter<CkConvCsvReader> importer(
      "ck-conv-csv",
      "CK grouped-convolution benchmark CSV (kernel, [problem_idx], N, C, K, G, [Di], Hi, Wi, "
      "[Z], Y, X, strides, pads, [dilations], [Do, Ho, Wo], latency_ms, tflops, non_zero)",
      "conv",
      // 2: conv problems naming their device ("unknown" without --device), 3-D and dilation
      // columns read (a 3-D row was merged into its 2-D shape before).
      2);
  return importer;
}

}  // namespace kselect::importers
