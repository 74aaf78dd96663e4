#include "eval/transfer.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>

#include "core/error.h"
#include "core/hardware.h"
#include "core/key_values.h"
#include "core/progress.h"
#include "eval/imported_problems.h"
#include "eval/text_table.h"
#include "model/booster_fit.h"
#include "ops/operation.h"

namespace kselect::eval {

namespace {

// A problem measured on one device, with its valid kernels' times.
struct DeviceProblem : ImportedProblem {
  std::map<std::string, double> ms;  // valid kernels
};

using ByDevice = std::map<std::string, std::map<std::string, DeviceProblem>>;

// The imported problems with a `device` field and a valid time, by device.
ByDevice collect(const std::vector<data::Measurement>& rows) {
  ByDevice out;
  for (auto& [text, imported] : collect_imported_problems(rows)) {
    auto device = KeyValues::parse(text).get("device");
    if (!device || imported.timed.empty()) continue;
    DeviceProblem p{std::move(imported), {}};
    for (const data::Measurement* m : p.timed) p.ms[m->kernel] = m->median_ms;
    out[*device].emplace(text, std::move(p));
  }
  if (out.size() < 2)
    throw InputError("", 0, "device",
                     "transfer needs measurements from at least two devices (problems with a "
                     "`device` field); found " +
                         std::to_string(out.size()));
  return out;
}

// Efficiency of a kernel on a problem: best / its time, 0 when it failed or was not measured.
double efficiency(const DeviceProblem& p, const std::string& kernel) {
  auto it = p.ms.find(kernel);
  return it == p.ms.end() ? 0 : p.best_ms / it->second;
}

void evaluate_device(const ByDevice& data, const std::string& device,
                     const std::map<std::string, nlohmann::json>& configs, const TransferOptions& o,
                     Progress& progress, long& done, TransferResult& r) {
  r.device = device;
  std::vector<const data::Measurement*> train_rows;
  for (const auto& [other, problems] : data) {
    if (other == device) continue;
    r.trained_on.push_back(other);
    for (const auto& [text, p] : problems)
      train_rows.insert(train_rows.end(), p.timed.begin(), p.timed.end());
  }
  auto engine =
      imported_data_operation().fitted_feature_engine(host_hardware(), train_rows, configs);
  model::RowBuilder builder(*engine);
  model::LabelledRows train;
  for (const auto& [other, problems] : data) {
    if (other == device) continue;
    for (const auto& [text, p] : problems) {
      std::vector<std::string> kernels;
      for (const auto& [kernel, ms] : p.ms) {
        kernels.push_back(kernel);
        train.labels.push_back(float(std::log(ms / p.best_ms)));
      }
      builder.append(text, kernels, train.x);
    }
  }
  const std::string label = "held out " + device;
  auto booster = model::fit_booster(train, builder.cols(), o.boosting, model::Loss::kSquaredError,
                                    [&] { progress.update(++done, label); });

  const std::vector<std::string> candidates = engine->known_kernels();
  r.kernels = long(candidates.size());
  for (const auto& [text, p] : data.at(device)) {
    std::vector<float> x;
    builder.append(text, candidates, x);
    std::vector<float> predicted =
        model::predict_rows(*booster, x, builder.cols(), o.boosting.threads);
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return predicted[a] < predicted[b]; });
    double top1 = efficiency(p, candidates[order.front()]), topk = 0;
    if (top1 == 0) ++r.failed_picks;
    for (std::size_t i = 0; i < order.size() && i < std::size_t(o.top_k); ++i)
      topk = std::max(topk, efficiency(p, candidates[order[i]]));
    std::vector<double> all;  // every kernel measured here, failures as 0
    for (const auto& kernel : p.measured) all.push_back(efficiency(p, kernel));
    double random = std::accumulate(all.begin(), all.end(), 0.0) / double(all.size());
    if (r.problems == 0) r.picked = candidates[order.front()];
    r.problems += 1;
    r.valid += long(p.ms.size());
    r.top1_efficiency += top1;
    r.topk_efficiency += topk;
    r.random_efficiency += random;
    r.random_topk_efficiency += expected_best_of(all, o.top_k);
  }
  double n = double(r.problems);
  r.top1_efficiency /= n, r.topk_efficiency /= n;
  r.random_efficiency /= n, r.random_topk_efficiency /= n;
}

}  // namespace

double expected_best_of(std::vector<double> values, int k) {
  if (values.empty() || k < 1) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (std::size_t(k) >= n) return values.back();
  // P(the i-th smallest, 0-based, is the largest of k drawn) = C(i, k-1) / C(n, k), computed
  // in log space to stay finite for thousands of values.
  const double log_total = std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) -
                           std::lgamma(double(n - std::size_t(k)) + 1);
  double sum = 0;
  for (std::size_t i = std::size_t(k) - 1; i < n; ++i) {
    double log_ways = std::lgamma(double(i) + 1) - std::lgamma(double(k)) -
                      std::lgamma(double(i - std::size_t(k) + 1) + 1);
    sum += values[i] * std::exp(log_ways - log_total);
  }
  return sum;
}

TransferReport evaluate_transfer(const std::vector<data::Measurement>& rows,
                                 const std::map<std::string, nlohmann::json>& kernel_configs,
                                 const TransferOptions& o) {
  if (o.top_k < 1) throw InputError("", 0, "top-k", "must be at least 1");
  model::check_boosting(o.boosting);
  ByDevice data = collect(rows);
  TransferReport report;
  report.top_k = o.top_k;
  Progress progress("transfer", long(data.size()) * o.boosting.trees, std::cerr, o.progress);
  long done = 0;
  for (const auto& [device, problems] : data) {
    report.devices.emplace_back();
    evaluate_device(data, device, kernel_configs, o, progress, done, report.devices.back());
  }
  progress.finish();
  return report;
}

nlohmann::json TransferReport::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : devices)
    list.push_back({{"device", r.device},
                    {"trained_on", r.trained_on},
                    {"problems", r.problems},
                    {"kernels", r.kernels},
                    {"valid", r.valid},
                    {"failed_picks", r.failed_picks},
                    {"top1_efficiency", r.top1_efficiency},
                    {"topk_efficiency", r.topk_efficiency},
                    {"random_efficiency", r.random_efficiency},
                    {"random_topk_efficiency", r.random_topk_efficiency},
                    {"picked", r.picked}});
  return {{"protocol", "transfer"}, {"top_k", top_k}, {"devices", list}};
}

std::string transfer_report_text(const TransferReport& report) {
  std::ostringstream out;
  const std::string k = std::to_string(report.top_k);
  out << "transfer between devices: a model trained on the other devices ranks every kernel "
         "for the held-out one\n\n";
  TextTable table({"held out", "trained on", "kernels", "top-1 eff", "best of top-" + k,
                   "random eff", "random best of " + k, "failed picks"});
  for (const auto& r : report.devices) {
    std::string trained;
    for (const auto& d : r.trained_on) trained += (trained.empty() ? "" : "+") + d;
    table.add({r.device, trained, std::to_string(r.kernels), percent(r.top1_efficiency, 1),
               percent(r.topk_efficiency, 1), percent(r.random_efficiency, 1),
               percent(r.random_topk_efficiency, 1), std::to_string(r.failed_picks)});
  }
  out << table.str();
  out << "\nefficiency = best time on the held-out device / time of the chosen kernel there "
         "(a kernel that failed there counts 0)\n";
  return out.str();
}

}  // namespace kselect::eval
