// The `csv` importer: generic long-format CSV, one measurement per record, with a column
// mapping from the command line (--map key=value) or a mapping file. Documented in
// docs/importers.md ("The csv importer").
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "core/text.h"
#include "data/import/common.h"
#include "data/import/csv_fields.h"
#include "data/import/csv_reader.h"
#include "data/import/formats.h"
#include "data/import/importer.h"

namespace kselect::importers {

namespace {

const std::vector<std::string> kSettings = {"problem", "kernel",    "params", "parse_name",
                                            "time",    "time_unit", "tflops", "gflops",
                                            "valid",   "dtype",     "device", "delimiter"};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find_first_of(",;", start), text.size());
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

double time_unit_to_ms(const std::string& unit) {
  if (unit == "ms") return 1;
  if (unit == "us") return 1e-3;
  if (unit == "ns") return 1e-6;
  if (unit == "s") return 1e3;
  throw InputError("", 0, "time_unit", "unknown unit '" + unit + "' (ms, us, ns or s)");
}

char parse_delimiter(const std::string& text) {
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() == 1 && text != "\"" && text != "\n" && text != "\r") return text[0];
  throw InputError("", 0, "delimiter", "'" + text + "' is not one character (or 'tab')");
}

// One column of the mapping resolved against the header.
struct Column {
  std::string name;  // as in the header
  std::string key;   // lower-cased, used in the problem text / kernel config
  std::size_t index = 0;
};

// The mapping (settings) resolved against one file's header.
struct Mapping {
  std::vector<Column> problem, params;
  Column kernel;
  std::optional<Column> time, tflops, gflops, valid, dtype, device;
  double time_scale = 1;  // to milliseconds
  bool parse_name = false;
  std::size_t columns = 0;
};

std::string header_list(const std::vector<std::string>& header) {
  return join(header, [](const std::string& h) { return "'" + h + "'"; });
}

// Finds a column by exact name, else by a unique case-insensitive match.
Column find_column(const std::vector<std::string>& header, const std::string& name,
                   const std::string& setting, const std::string& source) {
  std::vector<std::size_t> exact, folded;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) exact.push_back(i);
    if (lower(header[i]) == lower(name)) folded.push_back(i);
  }
  const auto& hits = exact.empty() ? folded : exact;
  if (hits.size() != 1)
    throw InputError(source, 1, setting,
                     "column '" + name + "' " + (hits.empty() ? "not in" : "repeated in") +
                         " the header (columns: " + header_list(header) + ")");
  std::string key = lower(header[hits[0]]);
  key.erase(0, key.find_first_not_of(" \t"));
  key.erase(key.find_last_not_of(" \t") + 1);
  std::replace_if(
      key.begin(), key.end(), [](char c) { return c == ',' || c == '='; }, '_');
  return {header[hits[0]], key, hits[0]};
}

Mapping resolve(const KeyValues& settings, const std::vector<std::string>& header,
                const std::string& source) {
  auto one = [&](const char* key) -> std::optional<Column> {
    auto name = settings.get(key);
    if (!name) return std::nullopt;
    return find_column(header, *name, key, source);
  };
  auto many = [&](const char* key) {
    std::vector<Column> out;
    for (const auto& name : split_list(settings.get(key).value_or("")))
      out.push_back(find_column(header, name, key, source));
    return out;
  };
  Mapping m;
  m.columns = header.size();
  m.problem = many("problem");
  m.params = many("params");
  m.kernel = *one("kernel");
  m.time = one("time");
  m.tflops = one("tflops");
  m.gflops = one("gflops");
  m.valid = one("valid");
  m.dtype = one("dtype");
  m.device = one("device");
  m.time_scale = time_unit_to_ms(settings.get("time_unit").value_or("ms"));
  m.parse_name = lower(settings.get("parse_name").value_or("false")) == "true";
  std::vector<std::string> keys;
  for (const auto& c : m.problem) keys.push_back(c.key);
  if (m.dtype) keys.push_back("dtype");
  if (m.device) keys.push_back("device");
  std::sort(keys.begin(), keys.end());
  auto repeated = std::adjacent_find(keys.begin(), keys.end());
  if (repeated != keys.end())
    throw InputError(source, 1, "problem", "problem field '" + *repeated + "' mapped twice");
  return m;
}

void check_settings(const KeyValues& settings, const std::string& source) {
  auto unknown = settings.unknown_keys(kSettings);
  if (!unknown.empty()) {
    throw InputError(source, 0, unknown[0], "unknown csv setting (known: " + join(kSettings) + ")");
  }
  for (const char* key : {"problem", "kernel"})
    if (!settings.has(key))
      throw InputError(
          source, 0, key,
          "the csv importer needs a mapping for it (--map " + std::string(key) + "=<column>)");
  if (!settings.has("time") && !settings.has("tflops") && !settings.has("gflops"))
    throw InputError(source, 0, "time",
                     "the csv importer needs time=<column>, tflops=<column> or gflops=<column>");
}

// The problem text of a record; "" with `why` set when a field is unusable.
std::string problem_text(const std::vector<std::string>& fields, const Mapping& m,
                         KeyValues& problem, std::string& why) {
  auto add = [&](const Column& c, const std::string& key, bool fold) {
    std::string reason;
    auto value = canonical_value(fields[c.index], reason);
    if (!value)
      why = "field '" + c.name + "': " + reason;
    else
      problem.set(key, fold ? lower(*value) : *value);
    return value.has_value();
  };
  for (const Column& c : m.problem)
    if (!add(c, c.key, false)) return "";
  if (m.dtype && !add(*m.dtype, "dtype", true)) return "";
  if (m.device && !add(*m.device, "device", false)) return "";
  return problem.to_string();
}

// A throughput column in TFLOP/s; NaN when not mapped; `why` set when unreadable.
double throughput(const std::vector<std::string>& fields, const Mapping& m, std::string& why) {
  for (const auto& [column, scale] : {std::pair{&m.tflops, 1.0}, std::pair{&m.gflops, 1e-3}}) {
    if (!*column) continue;
    ParsedNumber n = parse_number(fields[(*column)->index]);
    if (!n.error.empty()) why = "field '" + (*column)->name + "': " + n.error;
    return n.value * scale;
  }
  return std::nan("");
}

// Time and throughput of the row. Without a time column the time follows from the throughput:
// exactly when the problem's flops are known (GEMM or convolution fields), otherwise as
// 1000 / TFLOP/s ("milliseconds per TFLOP": the ranking of kernels is unchanged).
std::string fill_time(const std::vector<std::string>& fields, const Mapping& m,
                      const KeyValues& problem, ImportedRow& row) {
  std::string why;
  row.tflops = throughput(fields, m, why);
  if (!why.empty()) return why;
  auto flops = problem_flops(problem);
  if (m.time) {
    ParsedNumber t = parse_number(fields[m.time->index]);
    if (!t.error.empty() && row.valid) return "field '" + m.time->name + "': " + t.error;
    row.time_ms = t.error.empty() ? t.value * m.time_scale : std::nan("");
    if (std::isnan(row.tflops) && flops && row.time_ms > 0 && std::isfinite(row.time_ms))
      row.tflops = *flops / (row.time_ms * 1e9);
  } else {
    row.time_ms = flops ? *flops / (row.tflops * 1e9) : 1000 / row.tflops;
  }
  if (row.valid && !(std::isfinite(row.time_ms) && row.time_ms > 0)) {
    row.valid = false;
    row.reason = "time not a positive finite number (" +
                 trim(m.time ? fields[m.time->index] : std::to_string(row.tflops)) + ")";
  }
  return "";
}

// Why a record is skipped, or "" when it became a row.
std::string convert(const std::vector<std::string>& fields, const Mapping& m, ImportedRow& row) {
  if (fields.size() != m.columns)
    return "expected " + std::to_string(m.columns) + " fields (as the header), found " +
           std::to_string(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (!valid_utf8(fields[i])) return "field " + std::to_string(i + 1) + ": not valid UTF-8";
  KeyValues problem;
  std::string why;
  row.problem = problem_text(fields, m, problem, why);
  if (!why.empty()) return why;
  row.kernel = trim(fields[m.kernel.index]);
  if (row.kernel.empty()) return "field '" + m.kernel.name + "': empty kernel name";
  if (m.parse_name) row.kernel_config = parse_kernel_name(row.kernel);
  for (const Column& c : m.params) row.kernel_config[c.key] = typed_value(fields[c.index]);
  if (m.valid) {
    auto valid = parse_bool(fields[m.valid->index]);
    if (!valid)
      return "field '" + m.valid->name + "': not a boolean '" + trim(fields[m.valid->index]) + "'";
    if (!*valid) row.valid = false, row.reason = "marked invalid in column '" + m.valid->name + "'";
  }
  return fill_time(fields, m, problem, row);
}

std::vector<std::string> read_header(CsvReader& reader, const KeyValues& settings,
                                     const std::string& source) {
  const std::string first = reader.peek_first_line();
  if (first.find('\0') != std::string::npos)
    throw InputError(source, 1, "", "binary data (NUL bytes), not a CSV text file");
  auto delimiter = settings.get("delimiter");
  reader.set_delimiter(delimiter ? parse_delimiter(*delimiter) : detect_delimiter(first));
  std::vector<std::string> header;
  if (!reader.next(header)) throw InputError(source, 0, "", "empty file: no header row");
  if (!reader.error().empty()) throw InputError(source, reader.line(), "header", reader.error());
  for (auto& h : header) {
    if (!valid_utf8(h)) throw InputError(source, reader.line(), "header", "not valid UTF-8 text");
    h = trim(h);
  }
  if (header.size() < 2)
    throw InputError(source, reader.line(), "header",
                     "only one column '" + header[0].substr(0, 80) +
                         "': the delimiter is not one of , ; tab | (set --map delimiter=X)");
  return header;
}

class CsvImporter : public Importer {
 public:
  std::string_view format() const override { return "csv"; }
  std::string_view description() const override {
    return "generic long-format CSV, one measurement per record; columns mapped with --map "
           "problem=..,kernel=..,time=.. (docs/importers.md)";
  }
  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    check_settings(options.settings, options.source);
    CsvReader reader(in);
    const Mapping mapping = resolve(
        options.settings, read_header(reader, options.settings, options.source), options.source);
    std::vector<std::string> fields;
    while (reader.next(fields)) {
      if (!reader.error().empty()) {
        sink.skip(reader.line(), reader.error());
        continue;
      }
      ImportedRow row;
      row.line = reader.line();
      std::string why = convert(fields, mapping, row);
      if (why.empty())
        sink.add(std::move(row));
      else
        sink.skip(reader.line(), std::move(why));
    }
  }
};

}  // namespace

const Importer& csv_importer() {
  static const CsvImporter importer;
  return importer;
}

}  // namespace kselect::importers
