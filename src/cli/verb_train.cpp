// kselect train: fits models from a measurement database into a model directory.
#include <cmath>
#include <iostream>

#include "cli/store_ops.h"
#include "cli/verb.h"
#include "core/error.h"
#include "core/key_values.h"
#include "data/store.h"
#include "model/train.h"
#include "model/train_blend.h"
#include "ops/operation.h"

namespace kselect::cli {

namespace {

struct TrainArgs {
  std::string db, target;  // "" = tflops, or latency for generic data without TFLOPS
  std::string objective = model::to_string(model::Objective::kRegression);
  std::string time_statistic = "median";
  std::string shortlist = "0.01";  // a fraction, or off
  bool json = false;
  double blend_near = 0;  // > 0: train_near_blend with this min_efficiency
  model::TrainOptions options;
};

void print_summary(const model::TrainResult& r) {
  std::cout << "model: " << r.dir.string() << "\nrows: " << r.data_rows << " (" << r.valid_rows
            << " valid), shapes: " << r.unique_shapes << "\n";
  if (!r.target_note.empty()) std::cout << "target: " << r.target_note << "\n";
  for (const auto& t : r.targets) {
    std::cout << t.target << ": " << t.rows << " rows, " << t.trees << " trees";
    if (!t.folds.empty()) {
      std::cout << "; out-of-fold mean efficiency " << t.overall.mean_efficiency * 100 << "%, P10 "
                << t.overall.p10_efficiency * 100 << "%, top-1 " << t.overall.top1 * 100 << "%";
      if (std::isfinite(t.overall.r2))
        std::cout << ", R2 " << t.overall.r2;  // none: ranking, classify
    }
    std::cout << "\n";
  }
}

// --shortlist: "off" or a fraction in 0..1 (TrainOptions::shortlist, < 0 is off).
double parse_shortlist(const std::string& text) {
  if (text == "off") return -1;
  const std::optional<double> value = parse_double(text);
  if (!value || !(*value >= 0 && *value < 1))
    throw InputError("", 0, "shortlist",
                     "'" + text + "' is not a fraction in [0, 1) (0.01: within 1%) or off");
  return *value;
}

int run(TrainArgs& a) {
  a.options.objective = model::parse_objective(a.objective);
  if (a.target == "all")
    a.options.targets = model::target_names();
  else if (!a.target.empty())
    a.options.targets = {a.target};
  a.options.time_statistic = data::parse_time_statistic(a.time_statistic, "time-statistic");
  a.options.shortlist = parse_shortlist(a.shortlist);
  if (a.blend_near != 0 && a.options.neighbours > 0)
    throw InputError("", 0, "neighbours",
                     "a blend's members are scored without neighbours: not with --blend-near");
  data::Store store(a.db, {.read_only = true});
  choose_ops(store, a.options.op, a.options.data_op);
  data::MeasurementFilter filter;
  filter.op = a.options.data_op;
  filter.latest_per_pair = true;
  filter.where = a.options.where;
  auto measurements = store.read_measurements(filter);
  if (find_operation(a.options.op).capabilities().fits_feature_state)
    a.options.kernel_configs = store.kernel_configs(filter.op);
  a.options.hardware = run_hardware(store, a.options.data_op);
  a.options.data_source = a.db;
  a.options.progress = true;
  if (a.blend_near != 0) {
    const model::NearBlendResult result =
        model::train_near_blend(measurements, a.options, a.blend_near);
    if (a.json) {
      std::cout << result.to_json().dump(2) << "\n";
    } else {
      print_summary(result.regression);
      print_summary(result.near);
      std::cout << "blend: " << result.dir.string() << " (regression + near-best efficiency, "
                << "the second scoring the first's best " << result.blend.blend_survivors << ")\n";
    }
    return kExitOk;
  }
  model::TrainResult result = model::train(measurements, a.options);
  if (a.json)
    std::cout << result.to_json().dump(2) << "\n";
  else
    print_summary(result);
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto& o = args->options;
  auto* cmd = app.add_subcommand("train", "Train kernel-selection models from measurements");
  cmd->add_option("--db", args->db, "Measurement database (SQLite)")->required();
  o.op.clear();
  cmd->add_option("--op", o.op,
                  "Operation (default: the database's; generic forces the generic features)");
  cmd->add_option("--dtype", o.dtype, "Train on this dtype only (default: all in the data)");
  cmd->add_option("--where", o.where,
                  "Train on the problems with these fields only, e.g. dir=fwd,layout=nhwgc "
                  "(key!=value excludes); recorded in the model");
  cmd->add_option("--out", o.out_dir, "Model directory to write")->required();
  cmd->add_option("--target", args->target,
                  "tflops, latency, bandwidth or all (default: tflops; latency for generic "
                  "data without TFLOPS)")
      ->check(CLI::IsMember({"tflops", "latency", "bandwidth", "all"}));
  cmd->add_option("--encoding", o.encoding,
                  "Generic op: category codes ordered by target (default) or alphabetical")
      ->check(CLI::IsMember({"target", "alphabetical"}));
  cmd->add_option("--objective", args->objective,
                  "regression (log1p of the target), ranking (pairwise), efficiency (log of "
                  "the fraction of the problem's best) or classify (per context, which kernel is "
                  "fastest; generic op)")
      ->check([](const std::string& name) {  // a bad name is a usage error (exit 2), as CLI11's own
        try {
          model::parse_objective(name);
          return std::string();
        } catch (const InputError& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  cmd->add_option("--time-statistic", args->time_statistic,
                  "Each kernel's time: the median of its repeats or the fastest (min)")
      ->check(CLI::IsMember({"median", "min"}))
      ->capture_default_str();
  cmd->add_option("--schema", o.schema, "Feature schema: kselect (default), ck72, ck55");
  cmd->add_option("--folds", o.folds, "Cross-validation folds (grouped by shape)")
      ->capture_default_str();
  cmd->add_option("--trees", o.boosting.trees, "Boosting rounds")->capture_default_str();
  cmd->add_option("--final-trees", o.final_trees,
                  "Rounds of the final model (0: the folds' mean best rounds x folds/(folds-1))")
      ->capture_default_str();
  cmd->add_option("--near-best-weight", o.near_best_weight,
                  "Regression rows weigh efficiency^W within their problem (0: equal weights)")
      ->capture_default_str();
  cmd->add_option("--min-efficiency", o.min_efficiency,
                  "Train only on rows within this fraction of their problem's best (0.8: at least "
                  "80% as fast; 0: every row); cross-validation still scores every row")
      ->capture_default_str();
  cmd->add_option("--blend-near", args->blend_near,
                  "Also train an efficiency model of the rows within this fraction of their "
                  "problem's best (0.8 as documented) and write the blend of the two into --out "
                  "(members in <out>/regression and <out>/near)");
  cmd->add_option("--eta", o.boosting.eta, "Learning rate")->capture_default_str();
  cmd->add_option("--max-leaves", o.boosting.max_leaves, "Leaves per tree")->capture_default_str();
  cmd->add_option("--max-depth", o.boosting.max_depth, "Depth per tree")->capture_default_str();
  cmd->add_option("--min-child-weight", o.boosting.min_child_weight, "Least row weight in a leaf")
      ->capture_default_str();
  cmd->add_option("--subsample", o.boosting.subsample, "Rows sampled per tree")
      ->capture_default_str();
  cmd->add_option("--colsample", o.boosting.colsample,
                  "Features sampled per tree (default: 0.5 for gemm, 0.8 for generic)");
  cmd->add_option("--parallel-trees", o.boosting.parallel_trees,
                  "Trees averaged per boosting round (bagging inside the model)")
      ->capture_default_str();
  cmd->add_option("--prior", o.prior,
                  "Regression on tflops starts from the engine's throughput estimate, the trees "
                  "learn the rest (on/off)")
      ->capture_default_str();
  cmd->add_option("--shortlist", args->shortlist,
                  "Selection ranks only kernels within this fraction of a training problem's "
                  "best (0.01 = 1%), or off: every candidate")
      ->capture_default_str();
  cmd->add_option("--neighbours", o.neighbours,
                  "Blend each kernel's mean log efficiency on this many nearest training "
                  "problems into selection (12 as documented; 0: off)")
      ->capture_default_str();
  cmd->add_option("--neighbour-weight", o.neighbour_weight,
                  "The model's share of that blend; the neighbours weigh the rest")
      ->capture_default_str();
  cmd->add_option("--neighbour-power", o.neighbour_power,
                  "Each neighbour weighs 1 / (distance^this + 0.1) in a kernel's mean (0: equally)")
      ->capture_default_str();
  cmd->add_option("--neighbour-gate", o.neighbour_gate,
                  "Rank by the model alone a problem whose neighbours lie farther than this "
                  "quantile of the training problems' own (0.8; 0: no gate)")
      ->capture_default_str();
  cmd->add_option("--seed", o.boosting.seed, "XGBoost's random seed (row and feature sampling)")
      ->capture_default_str();
  cmd->add_option("--early-stopping", o.early_stopping, "Rounds without improvement per fold")
      ->capture_default_str();
  cmd->add_option("--threads", o.boosting.threads, "Training threads")->capture_default_str();
  cmd->add_option("--warm-start", o.warm_start, "Continue boosting this model directory");
  cmd->add_option("--add-trees", o.add_trees, "Rounds a warm start adds");
  cmd->add_flag("--compress", o.compress, "Write model_<target>.json.gz");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  return [args] { return run(*args); };
}

RegisterVerb reg("train", setup);

}  // namespace
}  // namespace kselect::cli
