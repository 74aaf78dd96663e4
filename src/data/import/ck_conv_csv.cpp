// `ck-conv-csv`: CK's grouped-convolution benchmark CSV (reference ck-heuristics.md section 9):
//   kernel,[problem_idx],N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,tflops,non_zero
// Columns are found by header name (any order, case-insensitive; extra columns are ignored).
// Direction and dtype come from the kernel name, and so do the kernel's parameters.
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

// Integer columns: header name, the smallest value allowed, and where it goes.
struct DimColumn {
  const char* name;
  std::int64_t min;
  std::int64_t& (*field)(conv::Problem&);
};
// clang-format off
constexpr DimColumn kDims[] = {
    {"N", 1, [](conv::Problem& p) -> std::int64_t& { return p.n; }},
    {"C", 1, [](conv::Problem& p) -> std::int64_t& { return p.c; }},
    {"K", 1, [](conv::Problem& p) -> std::int64_t& { return p.k; }},
    {"G", 1, [](conv::Problem& p) -> std::int64_t& { return p.g; }},
    {"Hi", 1, [](conv::Problem& p) -> std::int64_t& { return p.hi; }},
    {"Wi", 1, [](conv::Problem& p) -> std::int64_t& { return p.wi; }},
    {"Y", 1, [](conv::Problem& p) -> std::int64_t& { return p.y; }},
    {"X", 1, [](conv::Problem& p) -> std::int64_t& { return p.x; }},
    {"stride_h", 1, [](conv::Problem& p) -> std::int64_t& { return p.stride[1]; }},
    {"stride_w", 1, [](conv::Problem& p) -> std::int64_t& { return p.stride[2]; }},
    {"pad_h", 0, [](conv::Problem& p) -> std::int64_t& { return p.pad[1]; }},
    {"pad_w", 0, [](conv::Problem& p) -> std::int64_t& { return p.pad[2]; }}};
// clang-format on

// Where each named column is in the file.
class Header {
 public:
  Header(const std::vector<std::string>& names, const std::string& source) {
    const std::string line = join(names, ",");
    for (size_t i = 0; i < names.size(); ++i) index_.emplace(trim_lower(names[i]), i);
    size_ = names.size();
    std::vector<std::string> required = {"kernel", "latency_ms"};
    for (const auto& dim : kDims) required.push_back(dim.name);
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
  CkConvCsvReader(const ImportOptions& options, RowSink& sink)
      : options_(options), sink_(sink), device_(device_without_settings(options, "ck-conv-csv")) {}

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
    auto field = [&](const char* name) -> const std::string& { return fields[header.at(name)]; };
    row.kernel = field("kernel");
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

  template <typename Field>
  static std::optional<std::string> read_geometry(const Field& field, conv::Problem& problem) {
    for (const auto& dim : kDims) {
      auto value = ck::parse_dim(field(dim.name), dim.min);
      if (!value)
        return field_reason(dim.name,
                            std::string(dim.min == 0 ? "not a non-negative" : "not a positive") +
                                " integer: '" + field(dim.name) + "'");
      dim.field(problem) = *value;
    }
    // C and K are the totals over all groups (the reference's features use C/G and K/G).
    if (problem.c % problem.g != 0 || problem.k % problem.g != 0)
      return field_reason("G", "C and K must be multiples of G=" + std::to_string(problem.g));
    problem.compute_output();
    if (problem.ho <= 0 || problem.wo <= 0)
      return field_reason("Y", "the filter is larger than the padded input");
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
      "CK grouped-convolution benchmark CSV (kernel, [problem_idx], N, C, K, G, Hi, Wi, Y, X, "
      "strides, pads, latency_ms, tflops, non_zero)");
  return importer;
}

}  // namespace kselect::importers
