#include "eval/run_eval.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/progress.h"
#include "data/store.h"
#include "eval/oof_file.h"
#include "model/feature_spec.h"
#include "ops/operation.h"
#include "select/ranker.h"

namespace kselect::eval {

namespace {

namespace fs = std::filesystem;

std::optional<model::FeatureSpec> load_spec(const std::string& dir) {
  if (dir.empty() || !fs::exists(fs::path(dir) / "feature_spec.json")) return std::nullopt;
  return model::FeatureSpec::load(dir);
}

// The threads the database's sweep ran kernels with: what "fewer tiles than cores" is about.
int sweep_threads(const data::Store& store) {
  for (const auto& run : store.info().runs)
    if (int t = run.settings.value("threads", 0); t > 0) return t;
  return 0;
}

std::string oof_path(const EvalJob& job) {
  if (!job.oof_file.empty()) return job.oof_file;
  if (job.model_dir.empty()) return "";
  return (fs::path(job.model_dir) / ("oof_" + job.options.target + ".csv")).string();
}

std::vector<Prediction> out_of_fold(const EvalJob& job, const std::string& path,
                                    const Operation& op, bool regression,
                                    const std::vector<data::Measurement>& measurements,
                                    EvalOutcome& outcome) {
  auto rows = read_oof_csv(path, [&op](std::string_view text, const std::string& source) {
    return op.canonical_problem(text, source);
  });
  OofMatch match = match_database(rows, measurements, job.options.target);
  if (match.joined == 0)
    throw InputError(path, 0, "",
                     "none of its " + std::to_string(match.rows) +
                         " predictions matches a valid measurement in " + job.db +
                         ": these are not out-of-fold predictions for this database (use "
                         "--heldout to score it with the model)");
  outcome.oof_rows = match.rows;
  outcome.oof_mismatched = match.mismatched;
  return to_predictions(rows, job.options.target, regression);
}

double predicted_value(const select::Scored& s, const std::string& target) {
  if (target == "tflops") return s.tflops;
  if (target == "latency") return s.latency_ms;
  return s.bandwidth_gb_s;
}

// The model scores every valid measured kernel of each problem.
std::vector<Prediction> held_out(const EvalJob& job,
                                 const std::vector<data::Measurement>& measurements) {
  if (job.model_dir.empty())
    throw InputError("", 0, "model", "held-out evaluation needs a model directory");
  auto ranker = select::Ranker::load(job.model_dir);
  std::map<std::string, std::vector<std::string>> candidates;
  for (const auto& m : measurements)
    if (m.valid) candidates[m.problem].push_back(m.kernel);
  Progress progress("eval: ranking", long(candidates.size()), std::cerr, job.progress);
  std::vector<Prediction> out;
  long done = 0;
  for (auto& [problem, kernels] : candidates) {
    std::sort(kernels.begin(), kernels.end());
    kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
    for (const auto& s : ranker.rank(problem, kernels))
      out.push_back({problem, s.kernel, s.score, predicted_value(s, job.options.target)});
    progress.update(++done, problem);
  }
  progress.finish();
  return out;
}

bool use_out_of_fold(const EvalJob& job, const std::string& path) {
  switch (job.protocol) {
    case Protocol::kOutOfFold:
      if (path.empty() || !fs::exists(path))
        throw InputError(path, 0, "",
                         "no out-of-fold prediction file (train with --folds, or "
                         "give --oof-file)");
      return true;
    case Protocol::kHeldOut:
      return false;
    case Protocol::kAuto:
      break;
  }
  return !path.empty() && fs::exists(path);
}

}  // namespace

EvalOutcome run_eval(const EvalJob& job) {
  auto spec = load_spec(job.model_dir);
  const Operation& op = find_operation(!job.op.empty() ? job.op : spec ? spec->op : "gemm");
  std::string dtype = !job.dtype.empty()             ? job.dtype
                      : spec && spec->dtype != "any" ? spec->dtype
                                                     : "";
  data::Store store(job.db, data::StoreOptions{.read_only = true});
  auto measurements = store.read_measurements({.op = std::string(op.name()), .dtype = dtype});
  EvalOptions options = job.options;
  options.default_kernels = op.kernel_names(job.rules, {});
  options.default_order = [&op](const std::string& problem, const std::vector<std::string>& k) {
    return op.heuristic_order(problem, k);
  };
  if (options.cores <= 0) options.cores = sweep_threads(store);

  EvalOutcome outcome;
  std::string path = oof_path(job);
  std::vector<Prediction> predictions;
  if (use_out_of_fold(job, path)) {
    outcome.protocol = "out-of-fold";
    outcome.predictions = path;
    bool regression = !spec || spec->objective == "regression";
    predictions = out_of_fold(job, path, op, regression, measurements, outcome);
  } else {
    outcome.protocol = "held-out";
    outcome.predictions = job.model_dir;
    predictions = held_out(job, measurements);
  }
  outcome.report = evaluate(measurements, predictions, options);
  return outcome;
}

nlohmann::json outcome_json(const EvalOutcome& outcome) {
  nlohmann::json j = outcome.report;
  j["protocol"] = outcome.protocol;
  j["predictions"] = outcome.predictions;
  j["oof_rows"] = outcome.oof_rows;
  j["oof_mismatched"] = outcome.oof_mismatched;
  return j;
}

}  // namespace kselect::eval
