// `ck-json`: CK Tile's GEMM benchmark JSON (reference ck-heuristics.md section 9):
//   {"metadata": {dtype, layout, ...}, "problem_sizes": [...],
//    "results": [{"kernel_config": {name, tile_m, ..., pipeline, pad_m, ...},
//                 "benchmarks": [{kernel_name, m, n, k, avg_time_ms, tflops, is_valid, error}]}]}
// The document is parsed with a callback that hands over each finished element of `results` and
// then drops it, so memory holds one kernel's results at a time, not the file.
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

class CkJsonReader {
 public:
  CkJsonReader(const ImportOptions& options, RowSink& sink)
      : options_(options), sink_(sink), device_(device_without_settings(options, "ck-json")) {}

  void read(std::istream& in) {
    LineCountingBuf buf(in);
    std::istream counted(&buf);
    json top;
    try {
      top = json::parse(counted, [&](int depth, json::parse_event_t event, json& parsed) {
        return on_event(buf, depth, event, parsed);
      });
    } catch (const json::exception& e) {
      // A file cut short keeps the results before the cut; anything else is not this format.
      if (results_read_ == 0)
        throw InputError(options_.source, buf.line(), "",
                         std::string("not CK benchmark JSON: ") + e.what());
      sink_.skip(buf.line(), std::string("JSON error, rest of the file ignored: ") + e.what());
      return;
    }
    if (!top.is_object() || !top.contains("results") || !top["results"].is_array())
      throw InputError(options_.source, 0, "results",
                       "missing or not an array: not CK benchmark JSON");
  }

 private:
  // Tracks where the parser is: top-level key, the key inside a result, the lines where each
  // result and benchmark begins. Returns false to drop an element that has been used.
  bool on_event(LineCountingBuf& buf, int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (event == E::key && depth == 1) top_key_ = parsed.get<std::string>();
    if (event == E::key && depth == 3) result_key_ = parsed.get<std::string>();
    if (depth == 1 && top_key_ == "results" && (event == E::array_start || event == E::array_end))
      in_results_ = event == E::array_start;
    if (!in_results_) {
      if (event == E::object_end && depth == 1 && top_key_ == "metadata") read_metadata(parsed);
      return true;
    }
    if (depth == 2 && (event == E::object_start || event == E::array_start || event == E::value)) {
      result_line_ = buf.line();
      benchmark_lines_.clear();
      result_key_.clear();
    }
    if (event == E::object_start && depth == 4 && result_key_ == "benchmarks")
      benchmark_lines_.push_back(buf.line());
    if (depth == 2 && (event == E::object_end || event == E::array_end || event == E::value)) {
      read_result(parsed);
      ++results_read_;
      return false;
    }
    return true;
  }

  // dtype and layout apply to every row (they are the problem's, not the kernel's).
  void read_metadata(const json& metadata) {
    for (auto [key, target] : {std::pair{"dtype", &dtype_}, std::pair{"layout", &layout_}}) {
      auto it = metadata.find(key);
      if (it == metadata.end()) continue;
      auto value = it->is_string() ? ck::word(it->get<std::string>()) : std::nullopt;
      if (!value)
        throw InputError(options_.source, 0, std::string("metadata.") + key,
                         "not a plain word: " + it->dump());
      *target = *value;
    }
  }

  void read_result(const json& result) {
    if (!result.is_object()) return sink_.skip(result_line_, "results[]: not an object");
    json config_object = json::object();
    if (auto it = result.find("kernel_config"); it != result.end()) {
      if (!it->is_object())
        return sink_.skip(result_line_, field_reason("kernel_config", "not an object"));
      config_object = *it;
    }
    auto benchmarks = result.find("benchmarks");
    if (benchmarks == result.end() || !benchmarks->is_array())
      return sink_.skip(result_line_, field_reason("benchmarks", "missing or not an array"));
    for (size_t j = 0; j < benchmarks->size(); ++j) {
      long line = j < benchmark_lines_.size() ? benchmark_lines_[j] : result_line_;
      read_benchmark((*benchmarks)[j], config_object, line);
    }
  }

  void read_benchmark(const json& bench, const json& config_object, long line) {
    if (!bench.is_object()) return sink_.skip(line, "benchmarks[]: not an object");
    std::string kernel = kernel_name(bench, config_object);
    if (kernel.empty())
      return sink_.skip(line, field_reason("kernel_name", "missing (no kernel_config.name)"));
    auto parsed_name = gemm::parse_ck_kernel_name(kernel);
    gemm::ProblemDescription problem;
    if (auto error = read_sizes(bench, problem)) return sink_.skip(line, *error);
    problem.dtype = !dtype_.empty() ? dtype_ : parsed_name ? parsed_name->dtype : "";
    problem.layout = !layout_.empty() ? layout_ : parsed_name ? parsed_name->layout : "";
    problem.device = device_;

    ImportedRow row;
    row.kernel = kernel;
    row.problem = gemm::to_text(problem, gemm::TextOrder::kImported);
    row.line = line;
    // The explicit kernel_config wins over what the name says; CK's mem-pads fix comes last.
    row.kernel_config = parsed_name ? parsed_name->config : json::object();
    row.kernel_config.update(ck::flat_config(config_object));
    gemm::apply_mem_pads(row.kernel_config);
    if (auto error = read_measurement(bench, row)) return sink_.skip(line, *error);
    finish_row(row, problem.flops());
    sink_.add(std::move(row));
  }

  static std::string kernel_name(const json& bench, const json& config_object) {
    for (const json* holder : {&bench, &config_object}) {
      auto it = holder->find(holder == &bench ? "kernel_name" : "name");
      if (it != holder->end() && it->is_string()) return it->get<std::string>();
    }
    return "";
  }

  // m, n, k (required) and split_k (default 1); the skip reason when one is unusable.
  static std::optional<std::string> read_sizes(const json& bench,
                                               gemm::ProblemDescription& problem) {
    for (auto [key, target] :
         {std::pair{"m", &problem.m}, std::pair{"n", &problem.n}, std::pair{"k", &problem.k},
          std::pair{"split_k", &problem.split_k}}) {
      auto it = bench.find(key);
      if (it == bench.end() && target == &problem.split_k) continue;
      if (it == bench.end()) return field_reason(key, "missing");
      auto value = ck::json_dim(*it);
      if (!value) return field_reason(key, "not a positive integer: " + it->dump());
      *target = *value;
    }
    return std::nullopt;
  }

  // is_valid/error, avg_time_ms, tflops, bandwidth_gb_s; the skip reason when one is unusable.
  static std::optional<std::string> read_measurement(const json& bench, ImportedRow& row) {
    auto is_valid = bench.find("is_valid");
    if (is_valid != bench.end() && !is_valid->is_null()) {
      if (!is_valid->is_boolean() && !is_valid->is_number())
        return field_reason("is_valid", "not a boolean: " + is_valid->dump());
      if (is_valid->is_boolean() ? !is_valid->get<bool>() : is_valid->get<double>() == 0) {
        row.valid = false;
        auto error = bench.find("error");
        bool has_error =
            error != bench.end() && error->is_string() && !error->get<std::string>().empty();
        row.reason = has_error ? error->get<std::string>() : "is_valid false";
      }
    }
    for (auto [key, target] :
         {std::pair{"avg_time_ms", &row.time_ms}, std::pair{"tflops", &row.tflops},
          std::pair{"bandwidth_gb_s", &row.bandwidth_gb_s}}) {
      auto value = ck::json_number(bench, key);
      if (!value) return field_reason(key, "not a number: " + bench.at(key).dump());
      *target = *value;
    }
    if (row.valid && std::isnan(row.time_ms)) return field_reason("avg_time_ms", "missing");
    return std::nullopt;
  }

  const ImportOptions& options_;
  RowSink& sink_;
  std::string device_;
  std::string dtype_, layout_;
  std::string top_key_, result_key_;
  bool in_results_ = false;
  long result_line_ = 0;
  std::vector<long> benchmark_lines_;
  long results_read_ = 0;
};

}  // namespace

const Importer& ck_json_importer() {
  static const ck::ReaderImporter<CkJsonReader> importer(
      "ck-json",
      "CK Tile GEMM benchmark JSON (metadata, results[].kernel_config, results[].benchmarks)");
  return importer;
}

}  // namespace kselect::importers
