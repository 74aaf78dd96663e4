#include "data/import/driver.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "core/error.h"
#include "core/progress.h"
#include "core/timing_stats.h"
#include "data/import/common.h"
#include "data/import/importer.h"
#include "data/import/source.h"
#include "data/sqlite.h"
#include "data/store.h"
#include "ops/operation.h"

namespace kselect::importers {

namespace {

constexpr const char* kStagingSchema = R"sql(
CREATE TABLE staged (
  seq INTEGER PRIMARY KEY, problem TEXT, kernel TEXT, config TEXT,
  valid INTEGER, reason TEXT, time_ms REAL, tflops REAL, bandwidth REAL
);
)sql";

// SQLite binds NaN as NULL; reading NULL back as a double gives 0, so NaN travels as NULL
// explicitly and comes back as NaN.
double nan_if_null(const data::Statement& q, int col) {
  return q.column_null(col) ? std::nan("") : q.column_double(col);
}

bool usable_time(double ms) {
  return std::isfinite(ms) && ms > 0;
}

// Receives the importer's rows and skipped lines. Rows go to a private temporary SQLite
// database (on disk beyond a small page cache), so memory stays bounded for any file size.
class StagingSink : public RowSink {
 public:
  StagingSink(const InputFile& file, const ImportRunOptions& options, const Operation& op,
              ImportSummary& summary)
      : file_(file),
        options_(options),
        op_(op),
        summary_(summary),
        staging_("", false, true, 0),
        progress_("import " + std::filesystem::path(file.path()).filename().string() + " (KiB)",
                  long(file.file_size() / 1024) + 1, options.log ? *options.log : std::cerr,
                  options.progress) {
    staging_.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
    staging_.exec(kStagingSchema);
    staging_.exec("BEGIN");
    insert_ = std::make_unique<data::Statement>(
        staging_,
        "INSERT INTO staged(problem, kernel, config, valid, reason, time_ms, tflops, bandwidth) "
        "VALUES (?,?,?,?,?,?,?,?)");
    if (!options.skipped_log.empty()) {
      skipped_log_.open(options.skipped_log, std::ios::trunc);
      if (!skipped_log_)
        throw InputError(options.skipped_log, 0, "", "cannot write the skipped-lines log");
    }
  }

  void add(ImportedRow row) override {
    // The store keeps problems and configurations as JSON, which must be UTF-8.
    if (!valid_utf8(row.problem) || !valid_utf8(row.kernel))
      return skip(row.line, "problem or kernel name is not valid UTF-8");
    add_device(row.problem);
    if (std::string why = canonicalise(row.problem); !why.empty()) return skip(row.line, why);
    // The importers should already mark unusable times; the driver enforces it for all.
    if (row.valid && !usable_time(row.time_ms)) {
      row.valid = false;
      row.reason = "time_ms not a positive finite number (" + std::to_string(row.time_ms) + ")";
    }
    auto& q = *insert_;
    q.bind(1, row.problem).bind(2, row.kernel).bind(3, row.kernel_config.dump());
    q.bind(4, int(row.valid)).bind(5, row.reason);
    q.bind(6, row.time_ms).bind(7, row.tflops).bind(8, row.bandwidth_gb_s);
    q.run();
    summary_.rows += 1;
    tick();
  }

  void skip(long line, std::string reason) override {
    SkippedLine skipped{file_.path(), line, std::move(reason)};
    if (options_.strict) throw InputError(skipped.to_string() + " (--strict)");
    summary_.skipped += 1;
    summary_.skipped_by_reason[reason_category(skipped.reason)] += 1;
    if (skipped_log_.is_open()) skipped_log_ << skipped.to_string() << "\n";
    if (summary_.rows == 0 && summary_.skipped == 1) first_skip_ = skipped.to_string();
    if (long(summary_.first_skipped.size()) < options_.show_skipped)
      summary_.first_skipped.push_back(std::move(skipped));
    if (summary_.rows == 0 && summary_.skipped >= kProbeLines) not_the_format();
    tick();
  }

  void finish_reading() {
    if (summary_.rows == 0) not_the_format();
    progress_.update(long(file_.compressed_bytes_read() / 1024) + 1, rows_text());
    progress_.finish();
    staging_.exec("COMMIT");
    if (skipped_log_.is_open() && !skipped_log_.flush())
      throw InputError(options_.skipped_log, 0, "", "write error");
  }

  data::Database& staging() { return staging_; }

 private:
  // An explicit --device is part of the problem's identity (context, not a feature). Importers
  // that build a device field take it from ImportOptions::device; rows still without one (csv
  // without a device column) get it here, so problems measured on different GPUs stay apart.
  void add_device(std::string& problem) const {
    if (options_.device.empty() || problem.rfind("device=", 0) == 0 ||
        problem.find(",device=") != std::string::npos)
      return;
    problem += (problem.empty() ? "device=" : ",device=") + options_.device;
  }

  // The problem as its op's codec writes it, which is what the store keeps (the importers
  // write their op's canonical texts already; this checks it). Returns why not, "" when it is
  // one. The rows of one record share their problem, so the last answer is reused.
  std::string canonicalise(std::string& problem) {
    if (problem != last_problem_) {
      last_problem_ = problem;
      try {
        last_canonical_ = op_.canonical_problem(problem, "");
        last_error_.clear();
      } catch (const InputError& e) {
        last_error_ = std::string("problem of op ") + std::string(op_.name()) + ": " + e.what();
      }
    }
    if (last_error_.empty()) problem = last_canonical_;
    return last_error_;
  }

  // A file of another format parses as lines the importer skips, one after another: a file
  // with no record of the format, or none among its first kProbeLines records, is refused
  // (exit 3), however well every line was skipped.
  static constexpr long kProbeLines = 1000;
  [[noreturn]] void not_the_format() const {
    const std::string& format = summary_.format;
    std::string what = "no " + format + " record ";
    if (summary_.skipped == 0)
      what += "in the file (it holds none)";
    else
      what += (summary_.skipped >= kProbeLines ? "among the first " : "in all ") +
              std::to_string(summary_.skipped) + " records (first: " + first_skip_ + ")";
    throw InputError(file_.path(), 0, "format",
                     what + ": is it a " + format + " file? (kselect import --list-formats)");
  }

  void tick() {
    if (++calls_ % 256 == 0)
      progress_.update(long(file_.compressed_bytes_read() / 1024), rows_text());
  }
  std::string rows_text() const {
    return std::to_string(summary_.rows) + " rows, " + std::to_string(summary_.skipped) +
           " skipped";
  }

  const InputFile& file_;
  const ImportRunOptions& options_;
  const Operation& op_;
  std::string last_problem_, last_canonical_, last_error_;
  std::string first_skip_;
  ImportSummary& summary_;
  data::Database staging_;
  std::unique_ptr<data::Statement> insert_;
  std::ofstream skipped_log_;
  Progress progress_;
  long calls_ = 0;
};

struct StagedRow {
  std::string problem, kernel, config, reason;
  bool valid = false;
  double time_ms = 0, tflops = 0, bandwidth = 0;
};

// Reads the staged rows sorted by (problem, kernel), one group of duplicates at a time.
class GroupReader {
 public:
  explicit GroupReader(data::Database& staging)
      : query_(staging,
               "SELECT problem, kernel, config, valid, reason, time_ms, tflops, bandwidth "
               "FROM staged ORDER BY problem, kernel, seq") {
    have_next_ = read(next_);
  }

  bool next(std::vector<StagedRow>& group) {
    group.clear();
    if (!have_next_) return false;
    group.push_back(std::move(next_));
    while ((have_next_ = read(next_)) && next_.problem == group[0].problem &&
           next_.kernel == group[0].kernel)
      group.push_back(std::move(next_));
    return true;
  }

 private:
  bool read(StagedRow& row) {
    if (!query_.step()) return false;
    row.problem = query_.column_text(0);
    row.kernel = query_.column_text(1);
    row.config = query_.column_text(2);
    row.valid = query_.column_int(3) != 0;
    row.reason = query_.column_text(4);
    row.time_ms = nan_if_null(query_, 5);
    row.tflops = nan_if_null(query_, 6);
    row.bandwidth = nan_if_null(query_, 7);
    return true;
  }

  data::Statement query_;
  StagedRow next_;
  bool have_next_ = false;
};

double median_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  return values.empty() ? 0 : compute_stats(std::move(values)).median;
}

// One measurement of `op` from a group of duplicates: the valid rows' median time (all their
// times kept as repeats); only when none is valid, the first invalid row with its reason.
data::Measurement merge_group(const std::vector<StagedRow>& group, const std::string& op) {
  data::Measurement m;
  m.op = op, m.problem = group[0].problem, m.kernel = group[0].kernel;
  std::vector<double> tflops, bandwidth;
  for (const StagedRow& row : group) {
    if (!row.valid) continue;
    m.repeats_ms.push_back(row.time_ms);
    tflops.push_back(row.tflops);
    bandwidth.push_back(row.bandwidth);
  }
  if (m.repeats_ms.empty()) {
    m.valid = false;
    m.reason = group[0].reason;
    return m;
  }
  TimeStats stats = compute_stats(m.repeats_ms);
  m.valid = true;
  m.median_ms = stats.median, m.min_ms = stats.min, m.mean_ms = stats.mean;
  m.stddev_ms = stats.stddev, m.ci_low_ms = stats.ci_low, m.ci_high_ms = stats.ci_high;
  m.tflops = median_of(tflops);
  m.bandwidth_gb_s = median_of(bandwidth);
  return m;
}

// The run's device: --device (the importer got it too), else what the importer reads from the
// file, else "unknown".
std::string run_device(const Importer& importer, const ImportOptions& options) {
  std::string device = checked_device(options);
  if (device.empty()) device = importer.device_from_name(options.source);
  return device.empty() ? "unknown" : device;
}

long count(data::Database& db, const std::string& sql) {
  data::Statement q(db, sql);
  q.step();
  return long(q.column_int(0));
}

nlohmann::json settings_json(const KeyValues& settings) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : settings.items()) out[key] = value;
  return out;
}

// Writes the merged groups to the store in one transaction and fills the summary's counts.
void write_store(data::Database& staging, const std::string& db_path, const data::ImportedRun& run,
                 ImportSummary& summary, const ImportRunOptions& options) {
  long groups =
      count(staging, "SELECT COUNT(*) FROM (SELECT 1 FROM staged GROUP BY problem, kernel)");
  Progress progress("write " + db_path, groups, options.log ? *options.log : std::cerr,
                    options.progress);
  GroupReader reader(staging);
  std::vector<StagedRow> group;
  long written = 0;
  data::Store store(db_path);
  auto next = [&](data::Measurement& m, nlohmann::json& config) {
    if (!reader.next(group)) return false;
    m = merge_group(group, run.op);
    config = nlohmann::json::parse(group[0].config, nullptr, false);
    if (!config.is_object()) config = nlohmann::json::object();
    summary.duplicates += long(group.size()) - 1;
    (m.valid ? summary.valid : summary.invalid) += 1;
    if (++written % 1024 == 0) progress.update(written, m.problem);
    return true;
  };
  data::ImportedRunCounts counts = store.write_imported_run(run, next);
  progress.update(written, "");
  progress.finish();
  summary.added = counts.added;
  summary.already_present = counts.already_present;
  summary.run_id = counts.run_id;
}

// A store that exists is checked before the (possibly long) read, so a wrong --db fails fast.
// A store where an older kselect imported the same file (format and file name) under another
// op (convolutions were `generic` rows before they were `conv` ones) is refused: its rows would
// be stored a second time under a new op, and train and eval would see each measurement twice.
void check_existing_store(const std::string& db_path, const std::string& format,
                          const std::string& source, std::string_view op) {
  std::error_code ec;
  if (!std::filesystem::exists(db_path, ec)) return;
  data::Store check(db_path, data::StoreOptions{.read_only = true});
  for (const data::RunInfo& run : check.runs()) {
    const auto& settings = run.settings;
    if (run.op == op || !settings.is_object() || settings.value("format", "") != format ||
        settings.value("source", "") != source)
      continue;
    throw InputError(db_path, 0, "op",
                     "run " + std::to_string(run.id) + " imported " + source + " (" + format +
                         ") as op '" + run.op + "' with an older kselect; this one stores its " +
                         "rows as op '" + std::string(op) +
                         "': import into a new store (the old one still trains and evaluates)");
  }
}

}  // namespace

std::string SkippedLine::to_string() const {
  return file + ":" + std::to_string(line) + ": " + reason;
}

namespace {
// A digit run is a number (blanked) unless it continues a word such as "UTF-8" or "fp16".
bool starts_number(const std::string& before) {
  if (before.empty()) return true;
  const auto c = static_cast<unsigned char>(before.back());
  return !std::isalnum(c) && c != '-' && c != '_' && c != '.';
}
}  // namespace

std::string reason_category(std::string_view reason) {
  std::string out;
  bool keep_quote = false;
  for (std::size_t i = 0; i < reason.size(); ++i) {
    char c = reason[i];
    if (c == '\'') {
      std::size_t close = reason.find('\'', i + 1);
      if (close == std::string_view::npos) close = reason.size();
      keep_quote = out.size() >= 6 && out.compare(out.size() - 6, 6, "field ") == 0;
      out += keep_quote ? std::string(reason.substr(i, close + 1 - i)) : "'…'";
      i = close;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && starts_number(out)) {
      while (i + 1 < reason.size() && std::isdigit(static_cast<unsigned char>(reason[i + 1]))) ++i;
      out += 'N';
    } else {
      out += c;
    }
  }
  return out;
}

KeyValues read_mapping_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open the mapping file");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object()) throw InputError(path, 0, "", "not a JSON object of settings");
  KeyValues out;
  for (const auto& [key, value] : doc.items()) {
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_array()) {
      for (const auto& item : value) {
        if (!item.is_string()) throw InputError(path, 0, key, "list items must be strings");
        if (!text.empty()) text += ';';
        text += item.get<std::string>();
      }
    } else if (value.is_number() || value.is_boolean()) {
      text = value.dump();
    } else {
      throw InputError(path, 0, key, "expected a string, a list of strings, a number or a bool");
    }
    out.set(key, text);
  }
  return out;
}

ImportSummary import_file(const std::string& path, std::string_view format,
                          const std::string& db_path, const ImportRunOptions& options) {
  return import_file(path, find_importer(format), db_path, options);
}

ImportSummary import_file(const std::string& path, const Importer& importer,
                          const std::string& db_path, const ImportRunOptions& options) {
  auto start = std::chrono::steady_clock::now();
  // InputError listing the known ops; "" is the op that learns from imported data.
  const Operation& op =
      importer.op().empty() ? imported_data_operation() : find_operation(importer.op());
  ImportSummary summary;
  summary.file = path;
  summary.format = std::string(importer.format());
  const std::string base = std::filesystem::path(path).filename().string();
  check_existing_store(db_path, summary.format, base, op.name());
  const ImportOptions import_options{options.settings, path, options.device};
  summary.device = run_device(importer, import_options);
  const std::string revision =
      importer.revision() > 1 ? "/r" + std::to_string(importer.revision()) : "";
  summary.settings_key = "import:" + summary.format + revision + ":" + summary.device + ":" + base;

  InputFile file(path);
  summary.compression = std::string(file.compression());
  StagingSink sink(file, options, op, summary);
  importer.read(file.stream(), import_options, sink);
  sink.finish_reading();
  summary.records = summary.rows + summary.skipped;
  summary.problems = count(sink.staging(), "SELECT COUNT(DISTINCT problem) FROM staged");
  summary.kernels = count(sink.staging(), "SELECT COUNT(DISTINCT kernel) FROM staged");

  data::ImportedRun run;
  // The rows are the importer's op's problems; their kernels are ones kselect cannot run (GPU
  // kernels, other libraries'), which imported_data_operation() learns from.
  run.op = std::string(op.name());
  run.hardware = {{"device", summary.device}};
  run.settings = {{"format", summary.format},
                  {"source", base},
                  {"compression", summary.compression},
                  {"importer_settings", settings_json(options.settings)}};
  run.settings_key = summary.settings_key;
  write_store(sink.staging(), db_path, run, summary, options);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

nlohmann::json ImportSummary::to_json() const {
  nlohmann::json skipped_list = nlohmann::json::array();
  for (const auto& s : first_skipped)
    skipped_list.push_back({{"file", s.file}, {"line", s.line}, {"reason", s.reason}});
  return {{"file", file},
          {"format", format},
          {"device", device},
          {"compression", compression},
          {"settings_key", settings_key},
          {"records", records},
          {"rows", rows},
          {"valid", valid},
          {"invalid", invalid},
          {"duplicates_merged", duplicates},
          {"problems", problems},
          {"kernels", kernels},
          {"added", added},
          {"already_present", already_present},
          {"run_id", run_id},
          {"skipped", skipped},
          {"skipped_by_reason", skipped_by_reason},
          {"first_skipped", skipped_list},
          {"seconds", seconds}};
}

}  // namespace kselect::importers
