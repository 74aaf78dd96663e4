#include "data/measurement.h"

#include <cmath>

#include "core/error.h"

namespace kselect::data {

std::optional<TimeStatistic> find_time_statistic(const std::string& name) {
  if (name == "median") return TimeStatistic::kMedian;
  if (name == "min") return TimeStatistic::kMin;
  return std::nullopt;
}

TimeStatistic parse_time_statistic(const std::string& name, const std::string& field) {
  if (auto statistic = find_time_statistic(name)) return *statistic;
  throw InputError("", 0, field, "unknown time statistic '" + name + "' (expected median or min)");
}

std::string to_string(TimeStatistic statistic) {
  return statistic == TimeStatistic::kMin ? "min" : "median";
}

void use_time_statistic(std::vector<Measurement>& rows, TimeStatistic statistic) {
  if (statistic == TimeStatistic::kMedian) return;
  for (Measurement& m : rows) {
    if (!m.valid || !(m.min_ms > 0) || !(m.median_ms > 0) || !std::isfinite(m.min_ms)) continue;
    const double speedup = m.median_ms / m.min_ms;
    m.tflops *= speedup;
    m.bandwidth_gb_s *= speedup;
    m.median_ms = m.min_ms;
  }
}

}  // namespace kselect::data
