// kselect predict: ranks the kernels of a rule set for one problem with a trained model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/verb.h"
#include "cli/warnings.h"
#include "core/error.h"
#include "ops/operation.h"
#include "select/candidates.h"
#include "select/default_guard.h"
#include "select/ranker.h"

namespace kselect::cli {

namespace {

struct PredictArgs {
  std::string model, op, problem, rules = "profiler+default";
  bool rules_given = false;
  int top = 10;
  bool json = false;
  std::string cascade = "off";
  double default_margin = 0;
  bool all_candidates = false;
};

// A rule set's supported kernels, or for a generic model the kernels it saw in training with
// the problem's context.
std::vector<std::string> candidates_for(const PredictArgs& a, const select::Ranker& ranker,
                                        const Operation& op, const std::string& problem) {
  if (ranker.spec().op != "generic") return select::supported_kernels(op, a.rules, problem);
  if (a.rules_given)
    throw InputError("", 0, "rules",
                     "a generic model has no rule sets: it ranks the kernels it saw in training "
                     "(leave out --rules)");
  return select::model_kernels(ranker.engine(), problem);
}

// A classify model ranks a context without classes in input order, which means nothing:
// refused. A context never seen in training is refused before, by the vocabulary's candidates
// (candidates_for: a classify model is generic), with the contexts the model knows; one seen
// in training has no classes when none of its problems had a valid `target` > 0 (a tflops
// model on a context measured in times only), refused here with the contexts that have.
void check_classified_context(const model::KernelClassifier& classifier, const std::string& target,
                              const std::string& problem) {
  const std::string context = model::KernelClassifier::context_of(problem);
  if (classifier.find(context)) return;
  std::string known;
  for (const auto& c : classifier.contexts()) known += (known.empty() ? "" : "; ") + c.name;
  throw InputError("", 0, "problem",
                   "the classifier has no class for " + (context.empty() ? "no context" : context) +
                       " (no training problem of it had a valid " + target +
                       " > 0; it has classes for: " + known + ")");
}

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// What the default guard decided: which kernel it protects and whether it kept it.
struct GuardOutcome {
  std::string default_kernel;  // empty: the guard is off
  bool kept = false;
};

// `candidates`: the supported kernels; `shortlisted`: those the model ranked.
void print_json(const std::string& problem, const std::vector<select::Scored>& ranked,
                std::size_t candidates, std::size_t shortlisted, const GuardOutcome& guard) {
  nlohmann::json out = {{"problem", problem},
                        {"candidates", candidates},
                        {"shortlisted", shortlisted},
                        {"ranked", nlohmann::json::array()}};
  if (!guard.default_kernel.empty())
    out["default_guard"] = {{"default_kernel", guard.default_kernel}, {"kept", guard.kept}};
  for (const auto& s : ranked)
    out["ranked"].push_back({{"kernel", s.kernel},
                             {"score", s.score},
                             {"tflops", number(s.tflops)},
                             {"latency_ms", number(s.latency_ms)},
                             {"bandwidth_gb_s", number(s.bandwidth_gb_s)},
                             {"efficiency", number(s.efficiency)},
                             {"probability", number(s.probability)}});
  std::cout << out.dump(2) << "\n";
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
// (classify), or a unitless score (ranking).
void print_table(const std::vector<select::Scored>& ranked, const select::Ranker& ranker) {
  const std::string& objective = ranker.spec().objective;
  const bool regression = objective == "regression";
  const bool latency = regression && ranker.has_target("latency");
  const bool tflops = regression && (ranker.has_target("tflops") || !latency);
  std::printf("%-4s ", "rank");
  if (tflops) std::printf("%-10s ", "tflops");
  if (latency) std::printf("%-11s ", "latency_ms");
  if (objective == "classify")
    std::printf("%-11s ", "probability");
  else if (!regression)
    std::printf("%-10s ", objective == "efficiency" ? "efficiency" : "score");
  std::printf("kernel\n");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& s = ranked[i];
    std::printf("%-4zu ", i + 1);
    if (tflops) std::printf("%-10.4g ", s.tflops);
    if (latency) std::printf("%-11.4g ", s.latency_ms);
    if (objective == "efficiency") std::printf("%s ", percent_cell(s.efficiency, 10).c_str());
    if (objective == "classify")  // NaN: the kernel is not a class of the problem's context
      std::printf("%s ", percent_cell(s.probability, 11).c_str());
    if (objective == "ranking") std::printf("%-10.4g ", s.score);
    std::printf("%s\n", s.kernel.c_str());
  }
}

// The kernel the default guard protects: the op's no-model pick (`kernel`, empty for none),
// added to the candidates when the rule set ranked lacks it (it must be scored to be compared).
std::string guarded_default(const Operation& op, const std::string& problem,
                            const std::string& kernel, std::vector<std::string>& candidates) {
  if (op.name() == "generic")
    throw InputError("", 0, "default_margin",
                     "the generic op has no default rule set to guard (leave out "
                     "--default-margin)");
  if (kernel.empty())
    throw InputError("", 0, "default_margin",
                     "no kernel of the default rule set supports " + problem);
  if (std::find(candidates.begin(), candidates.end(), kernel) == candidates.end())
    candidates.push_back(kernel);
  return kernel;
}

int run(const PredictArgs& a) {
  auto ranker = select::Ranker::load(a.model);
  warn_stale_features(a.model, ranker.stale_features());
  ranker.set_cascade(select::Cascade::parse(a.cascade));
  const std::string& op_name = a.op.empty() ? ranker.spec().op : a.op;
  if (op_name != ranker.spec().op)
    throw InputError("", 0, "op",
                     "the model is for '" + ranker.spec().op + "', not '" + op_name + "'");
  const Operation& op = find_operation(op_name);
  std::string problem = op.canonical_problem(a.problem, "--problem");
  auto candidates = candidates_for(a, ranker, op, problem);
  if (candidates.empty()) {
    std::cerr << "kselect: no kernel of rule set '" << a.rules << "' supports " << problem << "\n";
    return kExitFailure;
  }
  if (const auto* classifier = ranker.classifier()) {
    const auto& targets = ranker.spec().targets;
    check_classified_context(*classifier, targets.empty() ? "target" : targets.front(), problem);
  }
  const select::DefaultGuard guard(a.default_margin);
  GuardOutcome outcome;
  // The no-model pick, always a candidate: guarded, and kept by the shortlist.
  const std::string no_model_pick =
      op.name() == "generic" ? std::string() : select::default_kernel(op, "default", problem);
  if (guard.enabled())
    outcome.default_kernel = guarded_default(op, problem, no_model_pick, candidates);
  const std::size_t supported = candidates.size();
  if (!a.all_candidates) candidates = ranker.shortlisted(candidates, no_model_pick);
  auto ranked = ranker.rank(problem, candidates);
  if (guard.enabled()) outcome.kept = guard.apply(ranked, outcome.default_kernel);
  if (a.top > 0 && ranked.size() > std::size_t(a.top)) ranked.resize(a.top);
  if (a.json) {
    print_json(problem, ranked, supported, candidates.size(), outcome);
    return kExitOk;
  }
  print_table(ranked, ranker);
  if (candidates.size() < supported)
    std::printf(
        "ranked %zu of %zu supported kernels: the model's shortlist and the default "
        "(--all-candidates ranks all)\n",
        candidates.size(), supported);
  if (outcome.kept)
    std::printf(
        "default guard: kept the default kernel (the model's pick is not predicted %s "
        "faster)\n",
        percent_cell(a.default_margin, 0).c_str());
  return kExitOk;
}

std::function<int()> setup(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand("predict", "Rank the kernels of a rule set for one problem");
  cmd->add_option("--model", args->model, "Model directory")->required();
  cmd->add_option("--op", args->op, "Operation (default: the model's)");
  cmd->add_option("--problem", args->problem,
                  "Problem, e.g. m=128,n=1536,k=7168,layout=rcr,dtype=fp32")
      ->required();
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
  return [args] { return run(*args); };
}

RegisterVerb reg("predict", setup);

}  // namespace
}  // namespace kselect::cli
