// kselect predict: ranks the kernels of a rule set for one problem, or for every problem of a
// shape file, with a trained model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/verb.h"
#include "cli/warnings.h"
#include "core/error.h"
#include "ops/operation.h"
#include "ops/shape_csv.h"
#include "select/model_selector.h"

namespace kselect::cli {

namespace {

struct PredictArgs {
  std::string model, op, problem, problems_file, rules = "profiler+default";
  bool rules_given = false;
  int top = 10;
  bool json = false;
  std::string cascade = "off";
  double default_margin = 0;
  bool all_candidates = false;
};

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// "no kernel of rule set 'R' supports <what>": one wording for JSON, tables and stderr.
std::string unsupported_text(const std::string& rules, const std::string& what) {
  return "no kernel of rule set '" + rules + "' supports " + what;
}

// Whether a kernel ranks after the others on a partial score: the cascade's first trees, or a
// blend's first member alone (select::Cascade, FeatureSpec::blend_survivors).
bool cut(const select::Scored& s) {
  return select::Cascade::is_cut(s.score);
}

nlohmann::json to_json(const select::Prediction& p, const std::string& rules) {
  nlohmann::json out = {{"problem", p.problem},
                        {"candidates", p.supported},
                        {"shortlisted", p.shortlisted},
                        {"ranked", nlohmann::json::array()}};
  if (p.unsupported) out["error"] = unsupported_text(rules, "the problem");
  if (!p.guard.default_kernel.empty())
    out["default_guard"] = {{"default_kernel", p.guard.default_kernel}, {"kept", p.guard.kept}};
  for (const auto& s : p.ranked)
    out["ranked"].push_back({{"kernel", s.kernel},
                             {"score", s.score},
                             {"cut", cut(s)},
                             {"tflops", number(s.tflops)},
                             {"latency_ms", number(s.latency_ms)},
                             {"bandwidth_gb_s", number(s.bandwidth_gb_s)},
                             {"efficiency", number(s.efficiency)},
                             {"probability", number(s.probability)},
                             {"neighbour_log_efficiency", number(s.neighbour)}});
  return out;
}

// "12.34%" left-aligned in `width` characters, "-" for NaN.
std::string percent_cell(double fraction, int width) {
  char text[32];
  if (std::isnan(fraction))
    std::snprintf(text, sizeof text, "-");
  else
    std::snprintf(text, sizeof text, "%.2f%%", 100.0 * fraction);
  std::string cell = text;
  cell.resize(std::max<std::size_t>(cell.size(), std::size_t(width)), ' ');
  return cell;
}

// Columns by what the model predicts: TFLOPS and/or latency (regression), the fraction of the
// best candidate's speed (efficiency objective), the probability of being the fastest
// (classify), or a score (ranking: unitless; blend: the weighted sum of its members' log
// speeds relative to each member's pick, at most 0).
void print_table(const select::Prediction& p, const select::Ranker& ranker) {
  using model::Objective;
  const std::vector<select::Scored>& ranked = p.ranked;
  const Objective objective = ranker.scoring_objective(p.problem);
  const bool regression = objective == Objective::kRegression;
  const bool latency = regression && ranker.has_target("latency");
  const bool tflops = regression && (ranker.has_target("tflops") || !latency);
  // Ranking scores have no unit; a blend's are its members' summed relative log speeds.
  const bool score = objective == Objective::kRanking || objective == Objective::kBlend;
  std::printf("%-4s ", "rank");
  if (tflops) std::printf("%-10s ", "tflops");
  if (latency) std::printf("%-11s ", "latency_ms");
  if (objective == Objective::kClassify)
    std::printf("%-11s ", "probability");
  else if (!regression)
    std::printf("%-10s ", objective == Objective::kEfficiency ? "efficiency" : "score");
  std::printf("kernel\n");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& s = ranked[i];
    std::printf("%-4zu ", i + 1);
    if (tflops) std::printf("%-10.4g ", s.tflops);
    if (latency) std::printf("%-11.4g ", s.latency_ms);
    if (objective == Objective::kEfficiency)
      std::printf("%s ", percent_cell(s.efficiency, 10).c_str());
    if (objective == Objective::kClassify)  // NaN: the kernel is not a class of its context
      std::printf("%s ", percent_cell(s.probability, 11).c_str());
    if (score && cut(s))
      std::printf("%-10s ", "-");
    else if (score)
      std::printf("%-10.4g ", s.score);
    std::printf("%s%s\n", s.kernel.c_str(), cut(s) ? "  (cut)" : "");
  }
  if (std::any_of(ranked.begin(), ranked.end(), cut))
    std::printf(
        "(cut): ranked after the others on a partial score (the cascade's first trees, or a "
        "blend's first member alone)\n");
}

void print_text(const select::Prediction& p, const PredictArgs& a, const select::Ranker& ranker) {
  if (p.unsupported) {
    std::printf("%s\n", unsupported_text(a.rules, "it").c_str());
    return;
  }
  print_table(p, ranker);
  if (p.shortlisted < p.supported)
    std::printf(
        "ranked %zu of %zu supported kernels: the model's shortlist and the default "
        "(--all-candidates ranks all)\n",
        p.shortlisted, p.supported);
  if (p.guard.kept)
    std::printf(
        "default guard: kept the default kernel (the model's pick is not predicted %s "
        "faster)\n",
        percent_cell(a.default_margin, 0).c_str());
}

select::ModelSelector load_predictor(const PredictArgs& a) {
  select::SelectionOptions o;
  o.rules = a.rules;
  o.rules_given = a.rules_given;
  o.cascade = a.cascade;
  o.default_margin = a.default_margin;
  o.all_candidates = a.all_candidates;
  auto predictor = select::ModelSelector::load(a.model, a.op, o);
  warn_stale_features(a.model, predictor.ranker().stale_features());
  return predictor;
}

// The ranking of one canonical problem, cut to --top.
select::Prediction predict(const select::ModelSelector& predictor, const PredictArgs& a,
                           const std::string& problem) {
  select::Prediction p = predictor.predict(problem);
  if (a.top > 0 && p.ranked.size() > std::size_t(a.top)) p.ranked.resize(a.top);
  return p;
}

int run_one(const PredictArgs& a) {
  const auto predictor = load_predictor(a);
  const auto p = predict(predictor, a, predictor.op().canonical_problem(a.problem, "--problem"));
  if (p.unsupported) {
    std::cerr << "kselect: " << unsupported_text(a.rules, p.problem) << "\n";
    return kExitFailure;
  }
  if (a.json)
    std::cout << to_json(p, a.rules).dump(2) << "\n";
  else
    print_text(p, a, predictor.ranker());
  return kExitOk;
}

// Every problem of a shape file with one load of the model: a JSON array of the single
// problem's objects (an unsupported problem's with an `error`), or a table per problem. Exit 1
// when some problem has no supporting kernel, after ranking the others.
int run_batch(const PredictArgs& a) {
  const auto predictor = load_predictor(a);
  const auto problems = read_shape_csv(predictor.op(), a.problems_file);
  nlohmann::json all = nlohmann::json::array();
  long unsupported = 0;
  for (const std::string& problem : problems) {
    const auto p = predict(predictor, a, problem);
    unsupported += p.unsupported;
    if (a.json) {
      all.push_back(to_json(p, a.rules));
      continue;
    }
    std::printf("== %s\n", problem.c_str());
    print_text(p, a, predictor.ranker());
  }
  if (a.json) std::cout << all.dump(2) << "\n";
  if (unsupported > 0)
    std::cerr << "kselect: " << unsupported << " of " << problems.size()
              << " problems have no kernel of rule set '" << a.rules << "' that supports them\n";
  return unsupported > 0 ? kExitFailure : kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand("predict", "Rank the kernels of a rule set for one problem");
  cmd->add_option("--model", args->model, "Model directory")->required();
  cmd->add_option("--op", args->op, "Operation (default: the model's)");
  auto* one = cmd->add_option("--problem", args->problem,
                              "Problem, e.g. m=128,n=1536,k=7168,layout=rcr,dtype=fp32");
  auto* many = cmd->add_option("--problems", args->problems_file,
                               "Shape CSV (kselect shapes): rank every problem of it, loading "
                               "the model once");
  one->excludes(many);
  cmd->add_option("--rules", args->rules,
                  "Rule set of candidate kernels (not for generic models: they rank the kernels "
                  "seen in training)")
      ->capture_default_str()
      ->each([args](const std::string&) { args->rules_given = true; });
  cmd->add_option("--top", args->top, "Show the best N (0: all)")->capture_default_str();
  cmd->add_option("--cascade", args->cascade,
                  "Score all candidates with P trees, finish the best S (P:S or off)")
      ->capture_default_str();
  cmd->add_flag("--all-candidates", args->all_candidates,
                "Rank every supported kernel, not only the model's shortlist");
  cmd->add_option("--default-margin", args->default_margin,
                  "Keep the default kernel first unless the model predicts its pick this "
                  "fraction faster (0.05: 5%; 0: off)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  return [args] {
    if (args->problem.empty() && args->problems_file.empty())
      throw InputError("", 0, "problem", "give --problem or --problems (a shape CSV)");
    return args->problems_file.empty() ? run_one(*args) : run_batch(*args);
  };
}

RegisterVerb reg("predict", setup);

}  // namespace
}  // namespace kselect::cli
