#include "eval/run_eval.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/progress.h"
#include "core/text.h"
#include "data/store.h"
#include "data/where.h"
#include "data/winners.h"
#include "eval/noise_ceilings.h"
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
  for (const auto& run : store.runs())
    if (int t = run.settings.value("threads", 0); t > 0) return t;
  return 0;
}

// The member directories of a blend or route (relative to the model's), else none.
std::vector<std::string> member_dirs(const std::optional<model::FeatureSpec>& spec) {
  std::vector<std::string> dirs;
  if (!spec) return dirs;
  for (const auto& member : spec->blend) dirs.push_back(member.model);
  dirs.insert(dirs.end(), spec->route.begin(), spec->route.end());
  return dirs;
}

// The out-of-fold files an evaluation reads: --oof-file; a blend's or route's members' (one
// per member, <member>/oof_<target>.csv); or <model>/oof_<target>.csv. None without a model or
// file.
std::vector<std::string> oof_paths(const EvalJob& job,
                                   const std::optional<model::FeatureSpec>& spec) {
  const std::vector<std::string> members = member_dirs(spec);
  if (!job.oof_file.empty()) {
    if (!members.empty())
      throw InputError(job.oof_file, 0, "oof-file",
                       "a " + model::to_string(spec->objective) +
                           " is scored from its members' out-of-fold files, not from one file");
    return {job.oof_file};
  }
  if (job.model_dir.empty()) return {};
  const std::string name = "oof_" + job.options.target + ".csv";
  if (members.empty()) return {(fs::path(job.model_dir) / name).string()};
  std::vector<std::string> paths;
  for (const auto& member : members)
    paths.push_back((fs::path(job.model_dir) / member / name).lexically_normal().string());
  return paths;
}

// A route's out-of-fold predictions: each member's for the problems the route gives it (its
// training filter, the first member taking a problem that several match).
std::vector<Prediction> routed(const EvalJob& job, const model::FeatureSpec& spec,
                               std::vector<std::vector<Prediction>> members) {
  std::vector<data::ProblemWhere> filters;
  for (const auto& member : spec.route) {
    const fs::path dir = fs::path(job.model_dir) / member;
    filters.emplace_back(model::FeatureSpec::load(dir).where, dir.string() + ": where");
  }
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < members.size(); ++i)
    for (auto& p : members[i]) {
      std::size_t owner = 0;
      while (owner < filters.size() && !filters[owner].empty() &&
             !filters[owner].matches(p.problem))
        ++owner;
      if (owner == i) out.push_back(std::move(p));
    }
  return out;
}

// The objective of the model whose out-of-fold file `index` of oof_paths() is.
model::Objective oof_objective(const EvalJob& job, const std::optional<model::FeatureSpec>& spec,
                               std::size_t index) {
  if (!spec) return model::Objective::kRegression;
  const std::vector<std::string> members = member_dirs(spec);
  if (members.empty()) return spec->objective;
  return model::FeatureSpec::load(fs::path(job.model_dir) / members[index]).objective;
}

std::vector<Prediction> out_of_fold(const EvalJob& job, const std::vector<std::string>& paths,
                                    const Operation& op,
                                    const std::optional<model::FeatureSpec>& spec,
                                    const std::vector<data::Measurement>& measurements,
                                    EvalOutcome& outcome, std::map<std::string, int>& folds) {
  std::vector<std::vector<Prediction>> members;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
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
    // A blend's members were trained on the same rows (the first speaks); a route's each on
    // its own problems (all of them speak).
    if (i == 0 || (spec && !spec->route.empty())) {
      for (const auto& r : rows) folds.emplace(r.problem, r.fold);
      outcome.oof_rows = (i == 0 ? 0 : outcome.oof_rows) + match.rows;
      outcome.oof_mismatched = (i == 0 ? 0 : outcome.oof_mismatched) + match.mismatched;
    }
    if (job.all_candidates)
      for (auto& r : rows) r.shortlisted = true;
    members.push_back(to_predictions(rows, job.options.target, oof_objective(job, spec, i)));
    // Selection blends a model's nearest training problems into its scores (a blend's members
    // are scored without them).
    if (!spec || spec->blend.empty())
      if (auto table = model::NeighbourTable::load(fs::path(path).parent_path()))
        blend_neighbours(members.back(), rows, *table);
  }
  if (members.size() == 1) return std::move(members.front());
  if (!spec->route.empty()) return routed(job, *spec, std::move(members));
  std::vector<double> weights;
  for (const auto& member : spec->blend) weights.push_back(member.weight);
  return blend_predictions(members, weights, spec->blend_survivors);
}

double predicted_value(const select::Scored& s, const std::string& target) {
  if (target == "tflops") return s.tflops;
  if (target == "latency") return s.latency_ms;
  return s.bandwidth_gb_s;
}

// The model scores every valid measured kernel of each problem.
// `kernel_configs`: the database's kernel parameters, for kernels the model has not seen.
std::vector<Prediction> held_out(const EvalJob& job,
                                 const std::vector<data::Measurement>& measurements,
                                 const std::map<std::string, nlohmann::json>& kernel_configs,
                                 std::vector<std::string>& stale_features) {
  if (job.model_dir.empty())
    throw InputError("", 0, "model", "held-out evaluation needs a model directory");
  auto ranker = select::Ranker::load(job.model_dir, host_hardware(), kernel_configs);
  ranker.set_cascade(select::Cascade::parse(job.cascade));
  stale_features = ranker.stale_features();
  std::map<std::string, std::vector<std::string>> candidates;
  for (const auto& m : measurements)
    if (m.valid) candidates[m.problem].push_back(m.kernel);
  Progress progress("eval: ranking", long(candidates.size()), std::cerr, job.progress);
  std::vector<Prediction> out;
  long done = 0;
  for (auto& [problem, kernels] : candidates) {
    std::sort(kernels.begin(), kernels.end());
    kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
    // The shortlist and the rest are ranked apart, as selection ranks only the shortlist (and
    // the default, which evaluate() moves up from the rest).
    std::vector<std::string> listed = job.all_candidates ? kernels : ranker.shortlisted(kernels);
    std::vector<std::string> rest;
    std::set_difference(kernels.begin(), kernels.end(), listed.begin(), listed.end(),
                        std::back_inserter(rest));
    for (const auto* group : {&listed, &rest})
      for (const auto& s : ranker.rank(problem, *group))
        out.push_back({problem, s.kernel, s.score, predicted_value(s, job.options.target), s.speed,
                       group == &listed});
    progress.update(++done, problem);
  }
  progress.finish();
  return out;
}

// The model's main target when none was asked for: tflops when it has it, else its first.
std::string model_target(const std::optional<model::FeatureSpec>& spec) {
  if (!spec || spec->targets.empty()) return "tflops";
  for (const auto& t : spec->targets)
    if (t == "tflops") return t;
  return spec->targets.front();
}

// Efficiency compares TFLOPS within a problem. Where a problem's valid rows lack TFLOPS (imported
// times only) it compares 1 / time instead, which is best_time / chosen_time; returns whether
// any problem needed that.
bool fill_time_throughput(std::vector<data::Measurement>& measurements) {
  std::map<std::string, bool> complete;
  for (const auto& m : measurements)
    if (m.valid) {
      auto [it, fresh] = complete.emplace(m.problem, true);
      it->second = it->second && m.tflops > 0;
    }
  bool any = false;
  for (auto& m : measurements)
    if (m.valid && !complete[m.problem] && m.median_ms > 0) {
      m.tflops = 1.0 / m.median_ms;
      any = true;
    }
  return any;
}

// Out of fold, a model-candidate op's no-model pick must not learn from the problem it is scored
// on: it is the most frequent winner per context among the problems of the other folds (with few
// problems, such as one per GPU, the final model's counts would include the answer).
struct FoldWinners {
  std::map<std::string, int> fold;  // problem -> fold
  struct Winner {
    std::string context, kernel;
  };
  std::map<std::string, Winner> winner;                      // problem -> context, winner
  std::map<std::string, std::map<std::string, long>> total;  // context -> kernel -> wins
  std::map<std::pair<int, std::string>, std::map<std::string, long>> in_fold;

  long wins(const std::string& context, int fold_id, const std::string& kernel) const {
    auto count = [&](const std::map<std::string, long>& m) {
      auto it = m.find(kernel);
      return it == m.end() ? 0L : it->second;
    };
    auto own = in_fold.find({fold_id, context});
    return count(total.at(context)) - (own == in_fold.end() ? 0L : count(own->second));
  }

  std::vector<std::string> order(const std::string& problem, std::vector<std::string> k) const {
    auto w = winner.find(problem);
    if (w == winner.end()) return k;
    auto f = fold.find(problem);
    int fold_id = f == fold.end() ? -1 : f->second;
    const std::string& ctx = w->second.context;
    std::stable_sort(k.begin(), k.end(), [&](const auto& a, const auto& b) {
      return wins(ctx, fold_id, a) > wins(ctx, fold_id, b);
    });
    return k;
  }
};

std::shared_ptr<FoldWinners> fold_winners(const std::vector<data::Measurement>& measurements,
                                          std::map<std::string, int> folds,
                                          const features::FeatureEngine& engine) {
  auto w = std::make_shared<FoldWinners>();
  std::vector<const data::Measurement*> rows;
  for (const auto& m : measurements) rows.push_back(&m);
  for (auto& [problem, kernel] : data::problem_winners(rows))
    w->winner[problem] = {engine.context(problem), std::move(kernel)};
  w->fold = std::move(folds);
  for (const auto& [problem, win] : w->winner) {
    ++w->total[win.context][win.kernel];
    if (auto f = w->fold.find(problem); f != w->fold.end())
      ++w->in_fold[{f->second, win.context}][win.kernel];
  }
  return w;
}

// The no-model pick: the rule set's kernels in the op's heuristic order, or for an op whose
// candidates come from the model the kernels seen in training ordered by how often each won in the
// problem's context (out of fold, `folds`: in the other folds' problems).
void set_default_policy(const EvalJob& job, const Operation& op,
                        const std::optional<model::FeatureSpec>& spec,
                        const std::vector<data::Measurement>& measurements,
                        const std::map<std::string, int>* folds, EvalOptions& options) {
  if (op.capabilities().kernels_from_rule_sets) {
    options.default_kernels = op.kernel_names(job.rules, {});
    options.default_order = [&op](const std::string& problem, const std::vector<std::string>& k) {
      return op.heuristic_order(problem, k);
    };
    return;
  }
  if (!spec || !spec->engine_state.is_object()) return;  // no training data: no baseline
  std::shared_ptr<const features::FeatureEngine> engine =
      op.make_feature_engine(host_hardware(), spec->engine_state);
  options.default_kernels = engine->known_kernels();
  if (folds) {
    auto winners = fold_winners(measurements, *folds, *engine);
    options.default_order = [winners](const std::string& problem,
                                      const std::vector<std::string>& k) {
      return winners->order(problem, k);
    };
    return;
  }
  options.default_order = [engine](const std::string& problem, const std::vector<std::string>& k) {
    return engine->winner_order(problem, k);
  };
}

bool use_out_of_fold(const EvalJob& job, const std::vector<std::string>& paths) {
  auto missing =
      std::find_if(paths.begin(), paths.end(), [](const std::string& p) { return !fs::exists(p); });
  switch (job.protocol) {
    case Protocol::kOutOfFold:
      if (paths.empty() || missing != paths.end())
        throw InputError(paths.empty() ? "" : *missing, 0, "",
                         "no out-of-fold prediction file (train with --folds, or "
                         "give --oof-file)");
      return true;
    case Protocol::kHeldOut:
      return false;
    case Protocol::kAuto:
      break;
  }
  return !paths.empty() && missing == paths.end();
}

}  // namespace

EvalOutcome run_eval(const EvalJob& job) {
  check_hybrid_top(job.options.hybrid_top);  // before a held-out model ranks every problem
  auto spec = load_spec(job.model_dir);
  // As predict: a model is evaluated as the op it was trained for, which --op may only repeat.
  if (spec && !job.op.empty() && job.op != spec->op)
    throw InputError(job.model_dir, 0, "op",
                     "the model is for '" + spec->op + "', not '" + job.op + "'");
  const Operation& op = !job.op.empty() ? find_operation(job.op)
                        : spec          ? find_operation(spec->op)
                                        : default_operation();
  std::string dtype = !job.dtype.empty()             ? job.dtype
                      : spec && spec->dtype != "any" ? spec->dtype
                                                     : "";
  std::string data_op = spec && !spec->data_op.empty() ? spec->data_op : std::string(op.name());
  const std::string where = !job.where.empty() ? job.where : spec ? spec->where : "";
  // The database's rows, and a replicate's, as evaluation reads them.
  auto read_rows = [&](const data::Store& store) {
    return store.read_measurements({.op = data_op,
                                    .dtype = dtype,
                                    .where = where,
                                    .with_repeats = true,
                                    .latest_per_pair = true});
  };
  data::Store store(job.db, data::StoreOptions{.read_only = true});
  auto measurements = read_rows(store);
  EvalJob resolved = job;
  if (resolved.options.target.empty()) resolved.options.target = model_target(spec);
  resolved.options.time_statistic =
      data::parse_time_statistic(!job.time_statistic.empty() ? job.time_statistic
                                 : spec                      ? spec->time_statistic
                                                             : "median",
                                 "time-statistic");
  data::use_time_statistic(measurements, resolved.options.time_statistic);
  EvalOptions options = resolved.options;
  if (options.cores <= 0) options.cores = sweep_threads(store);

  EvalOutcome outcome;
  const std::vector<std::string> paths = oof_paths(resolved, spec);
  std::vector<Prediction> predictions;
  std::map<std::string, int> folds;
  if (use_out_of_fold(resolved, paths)) {
    outcome.protocol = "out-of-fold";
    outcome.predictions = join(paths, ", ");
    predictions = out_of_fold(resolved, paths, op, spec, measurements, outcome, folds);
    set_default_policy(job, op, spec, measurements, &folds, options);
  } else {
    outcome.protocol = "held-out";
    outcome.predictions = job.model_dir;
    predictions =
        held_out(resolved, measurements,
                 op.capabilities().fits_feature_state ? store.kernel_configs(data_op)
                                                      : std::map<std::string, nlohmann::json>{},
                 outcome.stale_features);
    set_default_policy(job, op, spec, measurements, nullptr, options);
  }
  if (fill_time_throughput(measurements)) outcome.efficiency_basis = "time";
  std::vector<data::Measurement> replicate;
  if (!job.replicate_db.empty()) {
    replicate = read_rows(data::Store(job.replicate_db, data::StoreOptions{.read_only = true}));
    data::use_time_statistic(replicate, options.time_statistic);
    fill_time_throughput(replicate);
  }
  outcome.report =
      evaluate(measurements, predictions, options, job.replicate_db.empty() ? nullptr : &replicate);
  // A report over no problem would print zeros as if they were measured.
  if (outcome.report.problems == 0)
    throw InputError(job.db, 0, "problems",
                     "no problem could be evaluated (" + std::to_string(measurements.size()) +
                         " measured rows of the model's op and dtype; " +
                         std::to_string(outcome.report.skipped_no_oracle) +
                         " problems without a valid measurement, " +
                         std::to_string(outcome.report.skipped_no_prediction) +
                         " without a prediction)");
  return outcome;
}

nlohmann::json outcome_json(const EvalOutcome& outcome) {
  nlohmann::json j = outcome.report;
  j["protocol"] = outcome.protocol;
  j["predictions"] = outcome.predictions;
  j["oof_rows"] = outcome.oof_rows;
  j["oof_mismatched"] = outcome.oof_mismatched;
  j["efficiency_basis"] = outcome.efficiency_basis;
  j["stale_features"] = outcome.stale_features;
  return j;
}

}  // namespace kselect::eval
