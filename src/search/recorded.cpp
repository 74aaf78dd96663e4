#include "search/recorded.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/import/driver.h"
#include "data/store.h"

namespace kselect::search {

namespace {

bool is_sqlite(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[16] = {};
  in.read(magic, sizeof magic);
  return in && std::string(magic, 15) == "SQLite format 3";
}

RecordedData read_store(const std::string& path) {
  data::Store store(path, {.read_only = true});
  RecordedData out;
  for (const std::string& op : store.ops()) {
    auto rows = store.read_measurements({.op = op, .dtype = "", .latest_per_pair = true});
    std::move(rows.begin(), rows.end(), std::back_inserter(out.rows));
    out.configs.merge(store.kernel_configs(op));
  }
  return out;
}

// A temporary store removed however the import ends.
struct TemporaryDirectory {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("kselect_tune_" + std::to_string(getpid()));
  TemporaryDirectory() {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// A configuration's parameters: what the store recorded, less its name.
nlohmann::json parameters(const RecordedData& data, const std::string& kernel) {
  auto it = data.configs.find(kernel);
  if (it == data.configs.end() || !it->second.is_object())
    throw InputError("", 0, "kernel", "'" + kernel + "' has no recorded parameters to search");
  nlohmann::json out = it->second;
  out.erase("name");
  return out;
}

}  // namespace

RecordedData load_recorded(const std::string& path, const std::string& format) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, 0, "", "no such file");
  if (is_sqlite(path)) return read_store(path);
  TemporaryDirectory scratch;
  const std::string db = (scratch.path / "cache.sqlite").string();
  importers::ImportRunOptions options;
  options.progress = false;
  importers::import_file(path, format, db, options);
  return read_store(db);
}

std::size_t TuningTarget::within(double fraction) const {
  return std::size_t(
      std::count_if(speed.begin(), speed.end(), [&](double s) { return s >= fraction * optimum; }));
}

SpeedsByProblem speeds_by_problem(const std::vector<data::Measurement>& rows) {
  SpeedsByProblem out;
  for (const data::Measurement& row : rows) {
    const bool timed = row.valid && std::isfinite(row.median_ms) && row.median_ms > 0;
    out[row.problem][row.kernel] = timed ? 1.0 / row.median_ms : 0.0;
  }
  return out;
}

std::vector<TuningTarget> tuning_targets(const RecordedData& data) {
  std::vector<TuningTarget> out;
  for (const auto& [problem, by_kernel] : speeds_by_problem(data.rows)) {
    std::map<std::string, nlohmann::json> configs;
    for (const auto& [kernel, speed] : by_kernel) configs[kernel] = parameters(data, kernel);
    TuningTarget target{problem, domain_of_configs(configs), {}, 0};
    for (std::size_t c = 0; c < target.domain.size(); ++c)
      target.speed.push_back(by_kernel.at(target.domain.name(c)));
    target.optimum = *std::max_element(target.speed.begin(), target.speed.end());
    if (target.optimum > 0) out.push_back(std::move(target));
  }
  if (out.empty()) throw InputError("", 0, "cache", "no problem has a configuration with a time");
  return out;
}

}  // namespace kselect::search
