// `ck-log`: raw CK Tile GEMM benchmark output (reference ck-heuristics.md section 9). A line
//   Shape <i>: M=<m> N=<n> K=<k> dtype=<d> layout=<l>
// starts a shape; multi-line JSON objects
//   {"name": ..., "problem": {m, n, k, split_k, strides, dtypes, layouts},
//    "perf_result": {"latency(ms)": ..., "tflops(TFlops)": ..., "bandwidth(GB/s)": ...}}
// follow, one per kernel, among other log output that is ignored. A malformed object is skipped
// with the line it starts on; a row is valid iff latency > 0 and tflops > 0.
#include <cctype>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "data/import/ck_common.h"
#include "data/import/common.h"
#include "data/import/formats.h"
#include "data/import/importer.h"
#include "ops/gemm/ck_names.h"
#include "ops/gemm/problem.h"

namespace kselect::importers {

namespace {

using nlohmann::json;

// An object's text is at most this long (a CK result object is well under 1 KiB).
constexpr size_t kMaxObjectBytes = size_t{4} << 20;

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  return text;
}

bool is_shape_line(std::string_view line) {
  return trim_left(line).substr(0, 6) == "Shape ";
}

// "Shape 3: M=1024 N=512 K=64 dtype=fp16 layout=rcr" -> the problem; the skip reason otherwise.
std::optional<std::string> parse_shape(std::string_view line, gemm::ProblemDescription& out) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return "Shape line without ':'";
  std::string_view rest = line.substr(colon + 1);
  gemm::ProblemDescription p;
  while (!(rest = trim_left(rest)).empty()) {
    size_t end = rest.find_first_of(" \t");
    std::string_view item = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = ck::word(item.substr(0, eq)).value_or("");
    std::string_view value = item.substr(eq + 1);
    std::int64_t* dim = key == "m"         ? &p.m
                        : key == "n"       ? &p.n
                        : key == "k"       ? &p.k
                        : key == "split_k" ? &p.split_k
                                           : nullptr;
    std::string* text = key == "dtype" ? &p.dtype : key == "layout" ? &p.layout : nullptr;
    if (dim) {
      auto parsed = ck::parse_dim(value);
      if (!parsed)
        return field_reason(item.substr(0, eq),
                            "not a positive integer: '" + std::string(value) + "'");
      *dim = *parsed;
    } else if (text) {
      auto parsed = ck::word(value);
      if (!parsed) return field_reason(key, "not a plain word: '" + std::string(value) + "'");
      *text = *parsed;
    }
  }
  for (auto [key, value] : {std::pair{"M", p.m}, std::pair{"N", p.n}, std::pair{"K", p.k}})
    if (value == 0) return field_reason(key, "missing from the Shape line");
  out = p;
  return std::nullopt;
}

// Collects the lines of one JSON object, tracking braces outside strings, until it closes.
class ObjectCollector {
 public:
  bool active() const { return active_; }
  long start_line() const { return start_line_; }
  const std::string& text() const { return text_; }

  void start(long line) {
    active_ = true;
    start_line_ = line;
    text_.clear();
    depth_ = 0;
    in_string_ = escaped_ = false;
  }
  void stop() { active_ = false; }

  // Adds a line; true when the object closed on it (text() then ends at the closing brace).
  bool feed(std::string_view line) {
    for (size_t i = 0; i < line.size(); ++i) {
      if (!scan(line[i])) continue;
      text_.append(line.substr(0, i + 1));
      return true;
    }
    text_.append(line).push_back('\n');
    return false;
  }
  bool too_long() const { return text_.size() > kMaxObjectBytes; }

 private:
  // True when c closes the outermost brace.
  bool scan(char c) {
    if (in_string_) {
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
      return false;
    }
    if (c == '"') in_string_ = true;
    if (c == '{') ++depth_;
    return c == '}' && --depth_ == 0;
  }

  bool active_ = false;
  long start_line_ = 0;
  std::string text_;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

class CkLogReader {
 public:
  CkLogReader(const ImportOptions& options, RowSink& sink)
      : options_(options), sink_(sink), device_(device_without_settings(options, "ck-log")) {}

  void read(std::istream& in) {
    std::string line;
    bool too_long = false;
    long number = 0;
    while (importers::read_line(in, line, too_long)) {
      ++number;
      if (too_long) sink_.skip(number, "line longer than 1 MiB (truncated)");
      read_line(line, number);
    }
    if (object_.active())
      sink_.skip(object_.start_line(), "malformed JSON object: the file ends before it closes");
    if (!recognised_)
      throw InputError(options_.source, 0, "",
                       "no 'Shape' line and no result object: not a CK benchmark log");
  }

 private:
  void read_line(std::string_view line, long number) {
    if (is_shape_line(line)) {
      recognised_ = true;
      if (object_.active()) {
        sink_.skip(
            object_.start_line(),
            "malformed JSON object: not closed before the Shape line " + std::to_string(number));
        object_.stop();
      }
      shape_ = gemm::ProblemDescription();
      if (auto error = parse_shape(line, *shape_)) {
        shape_.reset();
        sink_.skip(number, *error);
      }
      return;
    }
    if (!object_.active()) {
      std::string_view rest = trim_left(line);
      if (rest.empty() || rest.front() != '{') return;  // other log output
      recognised_ = true;
      object_.start(number);
      line = rest;
    }
    if (object_.feed(line)) {
      object_.stop();
      read_object(object_.text(), object_.start_line());
    } else if (object_.too_long()) {
      sink_.skip(object_.start_line(), "JSON object longer than 4 MiB");
      object_.stop();
    }
  }

  void read_object(const std::string& text, long line) {
    json object;
    try {
      object = json::parse(text);
    } catch (const json::exception& e) {
      return sink_.skip(line, std::string("malformed JSON object: ") + e.what());
    }
    ImportedRow row;
    row.line = line;
    if (auto error = fill_row(object, row)) return sink_.skip(line, *error);
    sink_.add(std::move(row));
  }

  // The row from one result object; the skip reason when a field is unusable.
  std::optional<std::string> fill_row(const json& object, ImportedRow& row) const {
    auto name = object.find("name");
    if (name == object.end() || !name->is_string() || name->get<std::string>().empty())
      return field_reason("name", "missing or not a string");
    auto perf = object.find("perf_result");
    if (perf == object.end() || !perf->is_object())
      return field_reason("perf_result", "missing or not an object");
    row.kernel = name->get<std::string>();
    auto parsed_name = gemm::parse_ck_kernel_name(row.kernel);
    gemm::ProblemDescription problem;
    if (auto error = read_problem(object, problem)) return error;
    if (problem.dtype.empty() && parsed_name) problem.dtype = parsed_name->dtype;
    if (problem.layout.empty() && parsed_name) problem.layout = parsed_name->layout;
    problem.device = device_;
    row.problem = gemm::to_text(problem, gemm::TextOrder::kImported);
    row.kernel_config = parsed_name ? parsed_name->config : json::object();
    gemm::apply_mem_pads(row.kernel_config);
    for (auto [key, target] :
         {std::pair{"latency(ms)", &row.time_ms}, std::pair{"tflops(TFlops)", &row.tflops},
          std::pair{"bandwidth(GB/s)", &row.bandwidth_gb_s}}) {
      auto value = ck::json_number(*perf, key);
      if (!value) return field_reason(std::string("perf_result.") + key, "not a number");
      *target = *value;
    }
    if (std::isnan(row.time_ms)) return field_reason("perf_result.latency(ms)", "missing");
    finish_row(row, problem.flops());
    return std::nullopt;
  }

  // Sizes from the object's own "problem" (when it has them), else from the Shape line.
  std::optional<std::string> read_problem(const json& object,
                                          gemm::ProblemDescription& problem) const {
    if (shape_) problem = *shape_;
    auto own = object.find("problem");
    if (own != object.end() && own->is_object()) {
      for (auto [key, target] :
           {std::pair{"m", &problem.m}, std::pair{"n", &problem.n}, std::pair{"k", &problem.k},
            std::pair{"split_k", &problem.split_k}}) {
        auto it = own->find(key);
        if (it == own->end()) continue;
        auto value = ck::json_dim(*it);
        if (!value)
          return field_reason(std::string("problem.") + key,
                              "not a positive integer: " + it->dump());
        *target = *value;
      }
    }
    if (problem.m == 0 || problem.n == 0 || problem.k == 0)
      return field_reason("problem.m", "no sizes (no Shape line before and none in the object)");
    return std::nullopt;
  }

  const ImportOptions& options_;
  RowSink& sink_;
  std::string device_;
  std::optional<gemm::ProblemDescription> shape_;  // the sizes of the last Shape line
  ObjectCollector object_;
  bool recognised_ = false;
};

}  // namespace

const Importer& ck_log_importer() {
  static const ck::ReaderImporter<CkLogReader> importer(
      "ck-log", "CK Tile GEMM benchmark log (Shape lines followed by JSON result objects)");
  return importer;
}

}  // namespace kselect::importers
