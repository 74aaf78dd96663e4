// Kernel Tuner cache files (JSON, often .json.gz): one kernel and problem size on one device,
// and a "cache" object holding every tuned configuration with its time or failure. Read with a
// SAX parser that keeps one cache entry at a time, so memory stays bounded whatever the size.
// Mapping to kselect problems, kernels and rows: docs/formats/kernel-tuner.md.
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/import/common.h"
#include "data/import/formats.h"
#include "data/import/importer.h"
#include "data/import/source.h"

namespace kselect::importers {
namespace {

using nlohmann::json;

// Problem and kernel texts are "key=value,..." lists: device and kernel names may hold blanks,
// commas or '='; every run of characters outside [A-Za-z0-9._+-] becomes one '_'.
std::string sanitize(const std::string& text) {
  std::string out;
  for (char ch : text) {
    bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' ||
                ch == '+' || ch == '-';
    if (keep)
      out += ch;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// A JSON number as problem/kernel text: integers (also integral floats) without a fraction,
// other values in their shortest round-trip form.
std::string number_text(const json& value) {
  if (value.is_number_integer()) return value.dump();
  double v = value.get<double>();
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
    return std::to_string(static_cast<long long>(v));
  return value.dump();
}

// Where the device name comes from, strongest first: --device (ImportOptions::device), the
// cache's device_name, the file name (some caches leave device_name empty).
struct DeviceNames {
  std::string setting, from_file_name;
};

// What the file says about itself (the members beside "cache").
struct Header {
  std::string problem;            // "device=...,kernel=...,size_x=...,..."
  std::vector<std::string> keys;  // tune_params_keys
};

// The members of the top-level object other than "cache"; each is small.
Header make_header(const json& top, const DeviceNames& devices, const std::string& source) {
  auto require = [&](const char* field, bool ok, const char* expected) {
    if (!ok) throw InputError(source, 0, field, std::string("expected ") + expected);
  };
  Header header;
  require("tune_params_keys",
          top.contains("tune_params_keys") && top["tune_params_keys"].is_array(),
          "an array of parameter names");
  for (const json& key : top.at("tune_params_keys")) {
    require("tune_params_keys", key.is_string(), "an array of parameter names");
    header.keys.push_back(key.get<std::string>());
  }
  std::string device;
  if (top.contains("device_name")) {
    require("device_name", top["device_name"].is_string(), "a string");
    device = sanitize(top["device_name"].get<std::string>());
  }
  if (!devices.setting.empty()) device = devices.setting;  // a plain name already
  if (device.empty()) device = devices.from_file_name;
  if (!device.empty()) header.problem = "device=" + device;
  auto add = [&header](const std::string& key, const std::string& value) {
    header.problem += (header.problem.empty() ? "" : ",") + key + "=" + value;
  };
  if (top.contains("kernel_name")) {
    require("kernel_name", top["kernel_name"].is_string(), "a string");
    add("kernel", sanitize(top["kernel_name"].get<std::string>()));
  }
  if (top.contains("problem_size")) {
    json sizes =
        top["problem_size"].is_array() ? top["problem_size"] : json::array({top["problem_size"]});
    static const char* kAxes[] = {"size_x", "size_y", "size_z"};
    for (size_t i = 0; i < sizes.size(); ++i) {
      std::string name = i < 3 ? kAxes[i] : "size_" + std::to_string(i);
      require("problem_size", sizes[i].is_number() || sizes[i].is_string(),
              "a number, a string or an array of them");
      add(name,
          sizes[i].is_number() ? number_text(sizes[i]) : sanitize(sizes[i].get<std::string>()));
    }
  }
  return header;
}

// Thrown for a cache entry that yields no row.
struct BadEntry {
  std::string reason;
};

// The kernel parameter `key` of an entry: its own member, or else its place in the cache key
// "v1,v2,..." (Kernel Tuner writes both; a hand-trimmed cache may keep only the key).
json parameter(const json& entry, const std::string& key, size_t index,
               const std::vector<std::string_view>& key_values) {
  if (entry.contains(key)) {
    const json& value = entry[key];
    if (!value.is_number() && !value.is_string() && !value.is_boolean())
      throw BadEntry{field_reason(key, "not a number, string or bool")};
    if (value.is_string() && sanitize(value.get<std::string>()) != value.get<std::string>())
      throw BadEntry{field_reason(
          key, "value '" + value.get<std::string>() + "' holds characters a kernel name cannot")};
    return value;
  }
  if (index >= key_values.size()) throw BadEntry{field_reason(key, "missing")};
  const std::string text(key_values[index]);
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_number() || parsed.is_boolean()) return parsed;
  if (sanitize(text) != text || text.empty())
    throw BadEntry{field_reason(key, "missing, and cache key value '" + text + "' is not usable")};
  return text;
}

ImportedRow make_row(const Header& header, const std::string& cache_key, const json& entry,
                     long line) {
  if (!entry.is_object()) throw BadEntry{"not an object"};
  ImportedRow row;
  row.problem = header.problem;
  row.line = line;
  auto key_values = split(cache_key, ',');
  for (size_t i = 0; i < header.keys.size(); ++i) {
    json value = parameter(entry, header.keys[i], i, key_values);
    std::string text = value.is_number()    ? number_text(value)
                       : value.is_boolean() ? value.dump()
                                            : value.get<std::string>();
    row.kernel += (i == 0 ? "" : ",") + header.keys[i] + "=" + text;
    row.kernel_config[header.keys[i]] = std::move(value);
  }
  if (!entry.contains("time")) throw BadEntry{field_reason("time", "missing")};
  const json& time = entry["time"];
  if (time.is_string()) {  // "RuntimeFailedConfig", "CompilationFailedConfig", ...
    row.valid = false;
    row.reason = time.get<std::string>();
    return row;
  }
  if (!time.is_number()) throw BadEntry{field_reason("time", "not a number or a failure name")};
  row.time_ms = time.get<double>();
  if (entry.contains("GFLOP/s") && entry["GFLOP/s"].is_number())
    row.tflops = entry["GFLOP/s"].get<double>() / 1000.0;
  finish_row(row, std::nan(""));  // the rule every importer follows: "time 0 ms" etc.
  return row;
}

// SAX handler: builds each top-level member and each cache entry as a small JSON value and
// hands finished cache entries on, so the cache itself is never held in memory. Entries that
// arrive before the header they need (a cache written in another member order) are kept until
// the end of the document.
class CacheReader {
 public:
  // `header_only`: stop where the cache begins (to read the device name before an import).
  CacheReader(const ImportOptions& options, DeviceNames devices, RowSink& sink,
              bool header_only = false)
      : options_(options), devices_(std::move(devices)), sink_(sink), header_only_(header_only) {}

  // Parses the document from `in`, naming each entry by the line its closing '}' is on.
  void parse(std::istream& in) {
    LineCountingBuf counting(in);
    std::istream counted(&counting);
    lines_ = &counting;
    json::sax_parse(counted, this);
    line_at_end_ = counting.line();
    lines_ = nullptr;
  }

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(json::number_integer_t v) { return value(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(v); }
  bool number_float(json::number_float_t v, const std::string&) { return value(v); }
  bool string(std::string& v) { return value(std::move(v)); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (frames_.empty())
      member_ = k;
    else
      frames_.back().key = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    error_ = ex.what();
    return false;
  }

  // The device the problems name: setting, device_name, or file name ("" when none says).
  std::string device() const {
    std::string problem = make_header(top_, devices_, options_.source).problem;
    return problem.rfind("device=", 0) == 0 ? problem.substr(7, problem.find(',') - 7) : "";
  }

  // After sax_parse: reports what is left and judges how the document ended.
  void finish() {
    if (!root_seen_ || (!cache_seen_ && !error_.empty()))
      throw InputError(options_.source, line(), "",
                       "not a Kernel Tuner cache: " + (error_.empty() ? "not an object" : error_));
    if (!cache_seen_) throw InputError(options_.source, 0, "cache", "missing");
    if (!header_) header_ = make_header(top_, devices_, options_.source);
    for (auto& [cache_key, entry, entry_line] : pending_) deliver(cache_key, entry, entry_line);
    pending_.clear();
    // Kernel Tuner appends to its cache while tuning: an interrupted run leaves the file cut
    // after the last complete entry, which Kernel Tuner itself still reads.
    if (!error_.empty())
      sink_.skip(line(), "field 'cache': JSON ends early or is malformed (" + error_ +
                             "); entries after the last complete one are lost");
  }

 private:
  struct Frame {
    json value;
    std::string key;
  };
  struct Pending {
    std::string cache_key;
    json entry;
    long line;
  };

  bool open(json container) {
    ++depth_;
    if (depth_ == 1) {
      root_seen_ = container.is_object();
      return root_seen_;
    }
    if (depth_ == 2 && member_ == "cache" && container.is_object()) {
      if (header_only_) return false;
      in_cache_ = cache_seen_ = true;
      if (ready_for_entries()) header_ = make_header(top_, devices_, options_.source);
      return true;
    }
    frames_.push_back({std::move(container), ""});
    return true;
  }

  bool close() {
    --depth_;
    if (frames_.empty()) {  // the end of the cache or of the root object
      in_cache_ = false;
      return true;
    }
    json done = std::move(frames_.back().value);
    frames_.pop_back();
    return value(std::move(done));
  }

  // A finished value: into its parent container, or handed on at the top or cache level.
  bool value(json v) {
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      if (parent.value.is_array())
        parent.value.push_back(std::move(v));
      else
        parent.value[parent.key] = std::move(v);
    } else if (in_cache_) {
      if (header_)
        deliver(member_, v, line());
      else
        pending_.push_back({member_, std::move(v), line()});
    } else if (depth_ == 1) {
      if (member_ == "cache") throw InputError(options_.source, line(), "cache", "not an object");
      top_[member_] = std::move(v);
    } else {
      return false;  // a scalar document
    }
    return true;
  }

  bool ready_for_entries() const {
    for (const char* member : {"tune_params_keys", "device_name", "kernel_name", "problem_size"})
      if (!top_.contains(member)) return false;
    return true;
  }

  void deliver(const std::string& cache_key, const json& entry, long entry_line) {
    try {
      sink_.add(make_row(*header_, cache_key, entry, entry_line));
    } catch (const BadEntry& bad) {
      sink_.skip(entry_line, "entry '" + cache_key + "': " + bad.reason);
    }
  }

  long line() const { return lines_ ? lines_->line() : line_at_end_; }

  const ImportOptions& options_;
  DeviceNames devices_;
  RowSink& sink_;
  std::vector<Frame> frames_;  // containers being built below the top or cache level
  std::string member_;         // the current key at the top or cache level
  json top_ = json::object();  // top-level members except the cache
  std::optional<Header> header_;
  std::vector<Pending> pending_;
  int depth_ = 0;
  bool header_only_ = false;
  LineCountingBuf* lines_ = nullptr;  // during parse()
  long line_at_end_ = 0;
  bool root_seen_ = false, cache_seen_ = false, in_cache_ = false;
  std::string error_;
};

// "convolution_milo_A100.json.gz" -> "A100": the benchmark suites that ship caches name them
// <kernel>_<GPU>; used only when the cache's own device_name is empty.
std::string device_in_file_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  name = name.substr(0, name.find(".json"));
  size_t underscore = name.find_last_of('_');
  return underscore == std::string::npos ? "" : sanitize(name.substr(underscore + 1));
}

// The device a cache names, parsing only the members before its "cache" object.
std::string device_in_header(std::istream& in, const std::string& path) {
  struct NoRows : RowSink {
    void add(ImportedRow) override {}
    void skip(long, std::string) override {}
  } no_rows;
  ImportOptions options;
  options.source = path;
  CacheReader reader(options, {"", device_in_file_name(path)}, no_rows, true);
  reader.parse(in);
  return reader.device();
}

class KernelTunerImporter : public Importer {
 public:
  std::string_view format() const override { return "kernel-tuner"; }
  std::string_view description() const override {
    return "Kernel Tuner cache JSON (.json[.gz]), failed configurations kept as invalid";
  }
  // The cache's own device_name (read from the file's header), else the file name's.
  std::string device_from_name(const std::string& path) const override {
    try {
      InputFile file(path);
      return device_in_header(file.stream(), path);
    } catch (const std::exception&) {  // unreadable or not a cache: read() will say why
      return device_in_file_name(path);
    }
  }

  void read(std::istream& in, const ImportOptions& options, RowSink& sink) const override {
    DeviceNames devices{device_without_settings(options, format()),
                        device_in_file_name(options.source)};
    CacheReader reader(options, std::move(devices), sink);
    reader.parse(in);
    reader.finish();
  }
};

}  // namespace

const Importer& kernel_tuner_importer() {
  static const KernelTunerImporter importer;
  return importer;
}

}  // namespace kselect::importers
