#pragma once
// Cross-device transfer (docs/evaluation.md, "Transfer between devices"): data holding the
// same problem measured on several devices (Kernel Tuner caches: one kernel, one problem, a
// whole tuning space per GPU). For each device in turn, a model trained on the other devices'
// measurements ranks every kernel seen in training for that device's problem:
//   top1_efficiency    best time / time of the predicted best kernel (0 when it failed there);
//   top10_efficiency   best time / fastest time among the predicted top 10 (measuring ten
//                      candidates on the new device is cheap; the whole space is not);
// against choosing at random: the expected efficiency of one random valid kernel and the
// expected best of ten drawn without replacement (exact, from the sorted efficiencies).
// The model regresses log(time / best time of the problem on its device), so devices of
// different speed train one shape of the landscape.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/measurement.h"
#include "model/boosting_params.h"

namespace kselect::eval {

struct TransferOptions {
  // The one model per held-out device, `trees` rounds.
  model::BoostingParams boosting = model::BoostingParams::transfer_protocol();
  int top_k = 10;
  bool progress = false;
};

struct TransferResult {
  std::string device;  // held out
  std::vector<std::string> trained_on;
  long problems = 0, kernels = 0, valid = 0, failed_picks = 0;
  double top1_efficiency = 0, topk_efficiency = 0;
  double random_efficiency = 0, random_topk_efficiency = 0;
  std::string picked;  // the top-1 kernel of the (first) problem
};

struct TransferReport {
  int top_k = 10;
  std::vector<TransferResult> devices;
  nlohmann::json to_json() const;
};

// `rows`: generic measurements whose problems carry a `device` field. InputError with fewer
// than two devices.
TransferReport evaluate_transfer(const std::vector<data::Measurement>& rows,
                                 const std::map<std::string, nlohmann::json>& kernel_configs,
                                 const TransferOptions& options);

std::string transfer_report_text(const TransferReport& report);

// Expected maximum of k values drawn without replacement from `values` (all of them when
// k >= size): sum over the sorted values of value x P(it is the largest drawn).
double expected_best_of(std::vector<double> values, int k);

}  // namespace kselect::eval
