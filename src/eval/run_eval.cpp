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
std::vector<std::string> member_dirs(const model::FeatureSpec& spec) {
  std::vector<std::string> dirs;
  for (const auto& member : spec.blend) dirs.push_back(member.model);
  dirs.insert(dirs.end(), spec.route.begin(), spec.route.end());
  return dirs;
}

// The out-of-fold file `kselect train` writes into a model directory.
fs::path own_oof_file(const fs::path& dir, const std::string& target) {
  return dir / ("oof_" + target + ".csv");
}

// The out-of-fold file of each forest under the model at `dir`, in the order out_of_fold()
// reads them: a model's own <dir>/oof_<target>.csv, or its members' (a route's member may be a
// blend).
void collect_oof_paths(const fs::path& dir, const model::FeatureSpec& spec,
                       const std::string& target, std::vector<std::string>& out) {
  const std::vector<std::string> members = member_dirs(spec);
  if (members.empty()) out.push_back(own_oof_file(dir, target).lexically_normal());
  for (const auto& member : members)
    collect_oof_paths(dir / member, model::FeatureSpec::load(dir / member), target, out);
}

// The out-of-fold files an evaluation reads: --oof-file; every forest's under the model
// (collect_oof_paths); none without a model or file.
std::vector<std::string> oof_paths(const EvalJob& job,
                                   const std::optional<model::FeatureSpec>& spec) {
  if (!job.oof_file.empty()) {
    if (spec && !member_dirs(*spec).empty())
      throw InputError(job.oof_file, 0, "oof-file",
                       "a " + model::to_string(spec->objective) +
                           " is scored from its members' out-of-fold files, not from one file");
    return {job.oof_file};
  }
  if (job.model_dir.empty()) return {};
  if (!spec) return {own_oof_file(job.model_dir, job.options.target)};
  std::vector<std::string> paths;
  collect_oof_paths(job.model_dir, *spec, job.options.target, paths);
  return paths;
}

// A route's out-of-fold predictions: each member's for the problems the route gives it (its
// training filter, the first member taking a problem that several match).
// `members[i]` are the predictions of the member at `dirs[i]` whose spec is `specs[i]`.
std::vector<Prediction> routed(const std::vector<fs::path>& dirs,
                               const std::vector<model::FeatureSpec>& specs,
                               std::vector<std::vector<Prediction>> members) {
  std::vector<data::ProblemWhere> filters;
  for (std::size_t i = 0; i < specs.size(); ++i)
    filters.emplace_back(specs[i].where, dirs[i].string() + ": where");
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

// Reads a model tree's out-of-fold files into predictions.
struct OofReader {
  const EvalJob& job;
  const Operation& op;
  const std::vector<data::Measurement>& measurements;
  EvalOutcome& outcome;
  std::map<std::string, int>& folds;

  // One forest's file. `speaks`: its folds and row counts are the evaluation's (a blend's first
  // member speaks for it, every member of a route for its own problems); `in_blend`: a blend's
  // member, scored without nearest training problems; `in_route`: a route's member, which may
  // match none of the rows (--where may keep another member's problems only).
  std::vector<Prediction> file(const std::string& path, model::Objective objective, bool speaks,
                               bool in_blend, bool in_route) {
    auto rows = read_oof_csv(path, [this](std::string_view text, const std::string& source) {
      return op.canonical_problem(text, source);
    });
    OofMatch match = match_database(rows, measurements, job.options.target);
    if (match.joined == 0) {
      if (in_route) return {};  // another member's problems only: it does not speak
      throw unmatched(path, std::to_string(match.rows));
    }
    if (speaks) {
      for (const auto& r : rows) folds.emplace(r.problem, r.fold);
      outcome.oof_rows += match.rows;
      outcome.oof_mismatched += match.mismatched;
    }
    if (job.all_candidates)
      for (auto& r : rows) r.shortlisted = true;
    auto predictions = to_predictions(rows, job.options.target, objective);
    // Selection blends a model's nearest training problems into its scores.
    if (!in_blend)
      if (auto table = model::NeighbourTable::load(fs::path(path).parent_path()))
        blend_neighbours(predictions, rows, *table);
    return predictions;
  }

  // A single model's file: --oof-file, or the one training wrote into `dir`.
  std::string leaf_file(const fs::path& dir) const {
    return !job.oof_file.empty() ? job.oof_file : own_oof_file(dir, job.options.target).string();
  }

  InputError unmatched(const std::string& file, const std::string& predictions) const {
    return InputError(file, 0, "",
                      "none of its " + predictions +
                          " predictions matches a valid measurement in " + job.db +
                          ": these are not out-of-fold predictions for this database (use "
                          "--heldout to score it with the model)");
  }

  // The model at `dir`: its own file, its blend members' combined, or its route members' each
  // for its problems.
  std::vector<Prediction> tree(const fs::path& dir, const model::FeatureSpec& spec, bool speaks,
                               bool in_blend, bool in_route) {
    const std::vector<std::string> members = member_dirs(spec);
    if (members.empty()) return file(leaf_file(dir), spec.objective, speaks, in_blend, in_route);
    const bool blend = !spec.blend.empty();
    std::vector<fs::path> dirs;
    std::vector<model::FeatureSpec> specs;
    std::vector<std::vector<Prediction>> read;
    for (std::size_t i = 0; i < members.size(); ++i) {
      dirs.push_back(dir / members[i]);
      specs.push_back(model::FeatureSpec::load(dirs.back()));
      read.push_back(
          tree(dirs.back(), specs.back(), speaks && (!blend || i == 0), blend, !blend || in_route));
    }
    if (!blend) {
      auto out = routed(dirs, specs, std::move(read));
      if (out.empty() && !in_route) throw unmatched(dir.string(), "members'");
      return out;
    }
    std::vector<double> weights;
    for (const auto& member : spec.blend) weights.push_back(member.weight);
    return blend_predictions(read, weights, spec.blend_survivors);
  }
};

std::vector<Prediction> out_of_fold(const EvalJob& job, const Operation& op,
                                    const std::optional<model::FeatureSpec>& spec,
                                    const std::vector<data::Measurement>& measurements,
                                    EvalOutcome& outcome, std::map<std::string, int>& folds) {
  outcome.oof_rows = outcome.oof_mismatched = 0;
  OofReader reader{job, op, measurements, outcome, folds};
  if (!spec)  // --oof-file, or a directory of predictions without a model
    return reader.file(reader.leaf_file(job.model_dir), model::Objective::kRegression, true, false,
                       false);
  return reader.tree(job.model_dir, *spec, true, false, false);
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
    predictions = out_of_fold(resolved, op, spec, measurements, outcome, folds);
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
