// explain()'s report as JSON and as a table (kselect select --explain).
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "select/dispatcher.h"

namespace kselect::select {

namespace {

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

std::string cell(double v, const char* format) {
  if (!std::isfinite(v)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

nlohmann::json Explanation::to_json() const {
  nlohmann::json j = {{"problem", problem},
                      {"strategy", strategy},
                      {"decided_by", decided_strategy},
                      {"kernel", kernel},
                      {"level", source},
                      {"notes", notes},
                      {"candidates", candidates},
                      {"top", nlohmann::json::array()},
                      {"rejected", nlohmann::json::array()},
                      {"out_of_range", nlohmann::json::array()},
                      {"features", features}};
  j["cached_kernel"] = cached_kernel ? nlohmann::json(*cached_kernel) : nlohmann::json();
  for (const auto& k : top)
    j["top"].push_back({{"kernel", k.predicted.kernel},
                        {"score", number(k.predicted.score)},
                        {"predicted_tflops", number(k.predicted.tflops)},
                        {"predicted_latency_ms", number(k.predicted.latency_ms)},
                        {"predicted_speed", number(k.predicted.speed)},
                        {"neighbour_log_efficiency", number(k.predicted.neighbour)},
                        {"measured_ms", number(k.measured_ms)}});
  for (const auto& [name, r] : rejected)
    j["rejected"].push_back({{"kernel", name}, {"filter", r.filter}, {"reason", r.reason}});
  for (const auto& o : out_of_range)
    j["out_of_range"].push_back(
        {{"field", o.field}, {"value", o.value}, {"min", o.range.min}, {"max", o.range.max}});
  return j;
}

std::string Explanation::to_table() const {
  std::ostringstream out;
  out << "problem:   " << problem << "\n"
      << "decision:  " << kernel << "\n"
      << "level:     " << source << " (strategy " << strategy << ", decided by " << decided_strategy
      << ")\n";
  if (cached_kernel) out << "cached:    " << *cached_kernel << "\n";
  for (const auto& n : notes) out << "note:      " << n << "\n";
  for (const auto& o : out_of_range)
    out << "outside:   " << o.field << " = " << o.value << " (trained on " << o.range.min << ".."
        << o.range.max << ")\n";
  out << "\n"
      << "rank  score       tflops      latency_ms  measured_ms  neighbours  kernel\n";
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& k = top[i];
    char line[128];
    // neighbours: the kernel's mean efficiency on the nearest training problems, as a fraction
    // of their best ("-" for a model without them, or where their gate left them out).
    std::snprintf(line, sizeof line, "%-5zu %-11s %-11s %-11s %-12s %-11s ", i + 1,
                  cell(k.predicted.score, "%.5g").c_str(), cell(k.predicted.tflops, "%.4g").c_str(),
                  cell(k.predicted.latency_ms, "%.4g").c_str(), cell(k.measured_ms, "%.4g").c_str(),
                  cell(std::exp(k.predicted.neighbour), "%.3f").c_str());
    out << line << k.predicted.kernel << "\n";
  }
  std::map<std::string, std::size_t> per_filter;
  for (const auto& [name, r] : rejected) ++per_filter[r.filter];
  out << "\n" << candidates << " kernels support the problem";
  for (const auto& [filter, n] : per_filter) out << "; " << n << " rejected (" << filter << ")";
  out << "\n";
  std::map<std::string, std::size_t> shown;
  for (const auto& [name, r] : rejected)
    if (shown[r.filter]++ < 3) out << "  " << r.filter << ": " << name << ": " << r.reason << "\n";
  if (!features.empty()) {
    out << "\nfeatures of the decision:\n";
    for (const auto& [name, value] : features) out << "  " << name << " = " << value << "\n";
  }
  return out.str();
}

}  // namespace kselect::select
