#pragma once
// `kselect eval` end to end: loads measurements from a store and predictions from a model
// directory, then evaluates (docs/evaluation.md, "Protocols").
//   out-of-fold: predictions from training's cross-validation (<model>/oof_<target>.csv, or
//                any file of that format), each made by a model that never saw the problem;
//   held-out:    the model directory's ranker scores every valid measured kernel of each
//                problem of a database the model was not trained on.
#include <string>

#include "eval/evaluate.h"

namespace kselect::eval {

enum class Protocol { kAuto, kOutOfFold, kHeldOut };

struct EvalJob {
  std::string model_dir;  // needed for held-out; optional with oof_file
  std::string db;
  std::string oof_file;                 // "" = <model_dir>/oof_<target>.csv
  Protocol protocol = Protocol::kAuto;  // auto: out-of-fold when the file exists, else held-out
  std::string op;                       // "" = the model's op, else gemm
  // options.target "" = the model's (tflops when it has it, else its first target).
  std::string dtype;  // "" = the model's dtype (all when it has several)
  // Only problems with these field values (data/where.h); "" = the model's (FeatureSpec::where).
  std::string where;
  std::string rules = "default";  // rule set whose kernels are the default picks
                                  // (generic: the most frequent winner per context)
  EvalOptions options;            // cores 0: the threads the database's sweep used
  bool progress = false;          // progress line on stderr (held-out)
  // Rank every candidate alike instead of the model's shortlist first (FeatureSpec::shortlist).
  bool all_candidates = false;
  std::string cascade = "off";  // held-out: two-stage scoring "P:S" (select::Cascade)
  // Each row's time: "median" or "min" (data::TimeStatistic); "" = the model's (its
  // feature_spec.json), so out-of-fold rows match the times they were trained on.
  std::string time_statistic;
  // A second sweep of the same problems (another database): adds replicate_oracle and
  // model_on_replicate to the baselines. "" = none.
  std::string replicate_db;
};

struct EvalOutcome {
  EvalReport report;
  std::string protocol;                   // "out-of-fold" or "held-out"
  std::string predictions;                // where the predictions came from
  long oof_rows = 0, oof_mismatched = 0;  // out-of-fold rows, and rows whose measured value
                                          // differs from the database's
  // "tflops", or "time" when some problem's rows had only times: its efficiency is then
  // best_time / chosen_time (and its *_tflops fields are 1 / ms).
  std::string efficiency_basis = "tflops";
  // Held out: model features computed with another formula than at training
  // (select::Ranker::stale_features); out of fold the predictions are the training's own.
  std::vector<std::string> stale_features;
};

// Throws InputError for unusable input (no OOF file where one is required, an OOF file that
// matches nothing in the database) and StorageError for unreadable stores or models.
EvalOutcome run_eval(const EvalJob& job);

// The report's JSON plus "protocol", "predictions" and the OOF match counts.
nlohmann::json outcome_json(const EvalOutcome& outcome);

}  // namespace kselect::eval
