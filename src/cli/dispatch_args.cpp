#include "cli/dispatch_args.h"

#include "core/error.h"

namespace kselect::cli {

void DispatchArgs::add_options(CLI::App& cmd) {
  cmd.add_option("--model", model, "Model directory (without one: the op's default order)");
  cmd.add_option("--op", op, "Operation (default: the model's; required without a model)");
  cmd.add_option("--rules", rules, "Rule set of candidate kernels")
      ->capture_default_str()
      ->each([this](const std::string&) { rules_given = true; });
  cmd.add_option("--strategy", strategy, "auto, ml, default, exhaustive or hybrid")
      ->capture_default_str();
  cmd.add_option("--top-k", top_k, "Kernels the hybrid strategy measures")->capture_default_str();
  cmd.add_option("--budget-ms", budget_ms, "auto: milliseconds of measuring in all")
      ->capture_default_str();
  cmd.add_option("--confidence", confidence,
                 "auto: the model's pick must be predicted this fraction faster than the "
                 "runner-up")
      ->capture_default_str();
  cmd.add_option("--repeats", repeats, "Timed runs per measured kernel")->capture_default_str();
  cmd.add_option("--threads", threads, "Threads of measured and run kernels")
      ->capture_default_str();
  cmd.add_option("--cache", cache, "Decision cache file: read when present, written after");
  cmd.add_option("--lockfile", lockfile, "Write every decision to this lockfile");
  cmd.add_flag("--replay", replay, "Replay --lockfile's decisions (and add new ones to it)");
  cmd.add_option("--controls", controls, "Controls JSON: pins, allow/deny lists, workspace budget");
  cmd.add_flag("--require-model", require_model, "Fail instead of falling back without a model");
  cmd.add_option("--cascade", cascade, "Score with P trees, finish the best S (P:S or off)")
      ->capture_default_str();
  cmd.add_option("--default-margin", default_margin,
                 "Keep the default kernel unless the pick is predicted this fraction faster")
      ->capture_default_str();
  cmd.add_flag("--all-candidates", all_candidates, "Rank every supported kernel");
  cmd.add_flag("--verbose", verbose, "A log line per decision on stderr");
}

select::DispatchOptions DispatchArgs::options() const {
  select::DispatchOptions o;
  o.model = model;
  o.op = op;
  o.selection.rules = rules;
  o.selection.rules_given = rules_given;
  o.selection.cascade = cascade;
  o.selection.default_margin = default_margin;
  o.selection.all_candidates = all_candidates;
  o.strategy = select::parse_strategy(strategy);
  o.hybrid_top_k = top_k;
  o.confidence_margin = confidence;
  o.measure_budget_ms = budget_ms;
  if (repeats < 1) throw InputError("", 0, "repeats", "must be at least 1");
  if (threads < 1) throw InputError("", 0, "threads", "must be at least 1");
  o.measure.repeats = repeats;
  o.measure.threads = threads;
  o.cache_file = cache;
  o.lockfile = lockfile;
  o.replay_lockfile = replay;
  if (replay && lockfile.empty()) throw InputError("", 0, "replay", "give --lockfile to replay");
  o.controls = controls;
  o.require_model = require_model;
  o.verbose = verbose;
  return o;
}

void DispatchArgs::save(const select::Dispatcher& d) const {
  if (!cache.empty()) d.save_cache();
  if (!lockfile.empty()) d.save_lockfile();
}

}  // namespace kselect::cli
