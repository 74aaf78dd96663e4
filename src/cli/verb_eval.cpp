// kselect eval: how close a model's picks come to the best measured kernel (docs/evaluation.md).
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/verb.h"
#include "cli/warnings.h"
#include "core/error.h"
#include "eval/report_text.h"
#include "eval/run_eval.h"
#include "eval/run_protocols.h"

namespace kselect::cli {
namespace {

struct EvalArgs {
  eval::EvalJob job;
  bool oof = false, heldout = false, json = false;
  std::string protocol;  // "", strict or transfer
  // strict: eval::parse_listed_method; the default is ListedOptions' own.
  std::string method = eval::to_string(eval::ListedOptions{}.method);
  std::string json_file;
  eval::ProtocolJob protocol_job;
  const CLI::Option* hybrid_top = nullptr;  // given: refused by the strict/transfer protocols
};

// Protocols that train their own models per fold (strict, transfer).
int run_protocol(EvalArgs& a) {
  eval::ProtocolJob& job = a.protocol_job;
  job.db = a.job.db, job.protocol = a.protocol, job.dtype = a.job.dtype, job.where = a.job.where;
  if (a.protocol == "strict") job.listed.method = eval::parse_listed_method(a.method);
  job.listed.progress = job.transfer.progress = true;
  job.transfer.boosting.threads = job.listed.boosting.threads;
  eval::ProtocolOutcome out = eval::run_protocol(job);
  if (!a.json_file.empty()) {
    std::ofstream file(a.json_file);
    if (!(file << out.json.dump(2) << "\n" << std::flush))
      throw StorageError(a.json_file + ": cannot write the report");
  }
  if (a.json)
    std::cout << out.json.dump(2) << "\n";
  else
    std::cout << out.text;
  return kExitOk;
}

int run(EvalArgs& a) {
  if (!a.protocol.empty() && a.protocol != "out-of-fold" && a.protocol != "held-out") {
    if (a.oof || a.heldout || !a.job.model_dir.empty())
      throw InputError("", 0, "protocol",
                       "--protocol " + a.protocol +
                           " trains its own models: it takes no --model, --oof or --heldout");
    if (!a.job.replicate_db.empty())
      throw InputError("", 0, "replicate",
                       "--replicate judges a model's picks: it takes no --protocol " + a.protocol);
    if (a.job.options.default_margin != 0)
      throw InputError(
          "", 0, "default_margin",
          "--default-margin guards a model's picks: it takes no --protocol " + a.protocol);
    if (a.hybrid_top->count() > 0)
      throw InputError(
          "", 0, "hybrid-top",
          "--hybrid-top judges a model's top candidates: it takes no --protocol " + a.protocol);
    if (!a.protocol_job.picks_file.empty() && a.protocol != "strict")
      throw InputError("", 0, "picks",
                       "--picks writes the strict protocol's picks: add --protocol strict");
    return run_protocol(a);
  }
  if (!a.protocol_job.picks_file.empty())
    throw InputError("", 0, "picks",
                     "--picks writes the strict protocol's picks (a model's picks are the "
                     "per_problem entries of --json)");
  if (a.protocol == "out-of-fold") a.oof = true;
  if (a.protocol == "held-out") a.heldout = true;
  a.job.protocol = a.oof       ? eval::Protocol::kOutOfFold
                   : a.heldout ? eval::Protocol::kHeldOut
                               : eval::Protocol::kAuto;
  a.job.progress = true;  // on stderr: never mixes with the JSON on stdout
  eval::EvalOutcome out = eval::run_eval(a.job);
  if (out.oof_mismatched > 0)
    std::cerr << "kselect: warning: " << out.oof_mismatched << " of " << out.oof_rows
              << " out-of-fold rows record a measured value that differs from the database "
                 "(trained on other measurements?)\n";
  warn_stale_features(a.job.model_dir, out.stale_features);
  if (a.json) {
    std::cout << eval::outcome_json(out).dump(2) << "\n";
  } else {
    std::cout << out.protocol << " evaluation of " << out.predictions << " on " << a.job.db << "\n";
    if (out.efficiency_basis == "time")
      std::cout << "efficiency = best time / chosen time (the data has no TFLOPS; the TFLOPS "
                   "columns show 1/ms)\n";
    std::cout << eval::format_report(out.report);
  }
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval", "Score a model's kernel picks against measurements");
  cmd->add_option("--model", a->job.model_dir, "Model directory");
  cmd->add_option("--db", a->job.db, "Measurement database")->required();
  auto* oof = cmd->add_flag("--oof", a->oof,
                            "Use out-of-fold predictions (default when the model has them)");
  auto* heldout = cmd->add_flag("--heldout", a->heldout,
                                "Rank the database's problems with the model (unseen data)");
  oof->excludes(heldout);
  cmd->add_option("--time-statistic", a->job.time_statistic,
                  "Each kernel's time: median or min of its repeats (default: the model's)")
      ->check(CLI::IsMember({"median", "min"}));
  cmd->add_flag("--all-candidates", a->job.all_candidates,
                "Rank every measured kernel alike, not the model's shortlist first");
  cmd->add_option("--cascade", a->job.cascade,
                  "Held-out: score all candidates with P trees, finish the best S (P:S or off)")
      ->capture_default_str();
  cmd->add_option("--replicate", a->job.replicate_db,
                  "A second sweep of the same problems: judge this database's winners and the "
                  "model's picks on it (baselines replicate_oracle, model_on_replicate)");
  cmd->add_option("--oof-file", a->job.oof_file,
                  "Out-of-fold CSV (problem,kernel,fold,predicted,measured); default "
                  "<model>/oof_<target>.csv");
  a->job.options.target.clear();
  cmd->add_option("--target", a->job.options.target,
                  "tflops, latency or bandwidth (default: the model's, tflops when it has it)");
  cmd->add_option("--rules", a->job.rules, "Rule set of the default (no-model) kernels")
      ->capture_default_str();
  cmd->add_option("--op", a->job.op, "Operation (default: the model's, else gemm)");
  cmd->add_option("--dtype", a->job.dtype, "Only problems of this dtype (default: the model's)");
  cmd->add_option("--top-worst", a->job.options.top_worst, "How many worst problems to list")
      ->capture_default_str();
  cmd->add_option("--cores", a->job.options.cores,
                  "Cores for the fewer-tiles-than-cores stratum (0: the sweep's threads)")
      ->capture_default_str();
  cmd->add_option("--tie-band", a->job.options.tie_band,
                  "Relative time within which a pick ties the best kernel")
      ->capture_default_str();
  cmd->add_option("--default-margin", a->job.options.default_margin,
                  "Keep the default kernel unless the model predicts its pick this fraction "
                  "faster (0.05: 5%; 0: off)")
      ->capture_default_str();
  a->hybrid_top =
      cmd->add_option("--hybrid-top", a->job.options.hybrid_top,
                      "Judge a runtime that measures the model's top K candidates and keeps the "
                      "fastest, as split_half_oracle is judged (baseline hybrid_topK_split_half; "
                      "K[,K...], 0: off)")
          ->delimiter(',')
          ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the full report as JSON");
  cmd->add_option("--protocol", a->protocol,
                  "out-of-fold, held-out, strict (listed-only imported data: every solver seen "
                  "in training is a candidate) or transfer (leave one device out)")
      ->check(CLI::IsMember({"out-of-fold", "held-out", "strict", "transfer"}));
  cmd->add_option("--method", a->method, "strict: speed, applicability, joint or classify")
      ->capture_default_str();
  cmd->add_option("--folds", a->protocol_job.listed.folds, "strict: folds grouped on geometry")
      ->capture_default_str();
  model::BoostingParams& strict = a->protocol_job.listed.boosting;
  cmd->add_option("--trees", strict.trees, "strict: boosting rounds per model")
      ->capture_default_str();
  cmd->add_option("--eta", strict.eta, "strict: learning rate")->capture_default_str();
  cmd->add_option("--max-leaves", strict.max_leaves, "strict: leaves per tree")
      ->capture_default_str();
  cmd->add_option("--min-child-weight", strict.min_child_weight,
                  "strict: smallest hessian sum of a leaf")
      ->capture_default_str();
  cmd->add_option("--seed", strict.seed, "strict: XGBoost seed")->capture_default_str();
  cmd->add_option("--transfer-trees", a->protocol_job.transfer.boosting.trees,
                  "transfer: boosting rounds")
      ->capture_default_str();
  cmd->add_option("--where", a->job.where,
                  "Only problems with these fields, e.g. dir=fwd,layout=nhwgc or dir!=F "
                  "(default: the model's)");
  cmd->add_option("--top-k", a->protocol_job.transfer.top_k,
                  "transfer: measure the predicted top k on the new device")
      ->capture_default_str();
  cmd->add_option("--threads", strict.threads, "strict/transfer: XGBoost threads")
      ->capture_default_str();
  cmd->add_option("--json-file", a->json_file, "strict/transfer: also write the JSON report here");
  cmd->add_option("--picks", a->protocol_job.picks_file,
                  "strict: write every problem's pick, the best listed kernel and the "
                  "baseline's pick as CSV here");
  return [a] { return run(*a); };
}

RegisterVerb reg("eval", setup);

}  // namespace
}  // namespace kselect::cli
