#pragma once
// The selection chain of a model directory, loaded once: candidates (a rule set's kernels that
// support the problem, or for an op without rule sets the kernels the model saw in training),
// the no-model default, the default guard, the model's shortlist, the cascade and the ranking.
// `kselect predict`, `kselect select` and the runtime dispatcher (select/dispatcher.h) all rank
// through it.
//
//   auto chain = select::ModelSelector::load("models/gemm_fp32", "", {});
//   auto problem = chain.op().canonical_problem("m=128,n=1536,k=7168", "--problem");
//   auto p = chain.predict(problem);        // p.ranked.front().kernel: the pick
//
// Thread-safe once loaded: every member function is const and keeps its scratch per thread.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operation.h"
#include "select/default_guard.h"
#include "select/ranker.h"

namespace kselect::select {

struct SelectionOptions {
  std::string rules = "profiler+default";  // the rule set of candidates
  bool rules_given = false;                // --rules was given: refused for ops without rule sets
  std::string cascade = "off";             // Cascade::parse
  double default_margin = 0;               // DefaultGuard; 0: off
  bool all_candidates = false;             // rank every supported kernel, not the model's shortlist
};

// What the default guard decided: which kernel it protects and whether it kept it.
struct GuardOutcome {
  std::string default_kernel;  // empty: the guard is off
  bool kept = false;
};

// One problem's ranking: `supported` kernels support it, `shortlisted` of them were ranked;
// `unsupported` when none does.
struct Prediction {
  std::string problem;
  std::vector<Scored> ranked;  // best first
  std::size_t supported = 0, shortlisted = 0;
  GuardOutcome guard;
  bool unsupported = false;
};

// The kernels of rule set `rules`, then those of the `default` set it lacks (the no-model
// pick must be scorable); `rule_set_size` receives how many came from `rules`. The catalogue
// of a selector with or without a model.
std::vector<std::string> rule_set_catalogue(const Operation& op, const std::string& rules,
                                            std::size_t& rule_set_size);

class ModelSelector {
 public:
  // Loads the model in `dir` (Ranker::load); `op_name` empty: the model's op, else it must be
  // the model's (InputError otherwise). InputError for options the model cannot honour.
  static ModelSelector load(const std::filesystem::path& dir, std::string_view op_name,
                            const SelectionOptions& options);

  const Operation& op() const { return *op_; }
  const Ranker& ranker() const { return *ranker_; }
  const SelectionOptions& options() const { return options_; }
  // Every candidate the model may rank, parsed once: the rule set's kernels, then the `default`
  // set's that it lacks (the guard compares the no-model pick); for ops without rule sets, the
  // kernels the model saw in training.
  const KernelCatalogue& catalogue() const { return *catalogue_; }
  // The problem fields' ranges the model was trained on (FeatureSpec::training_ranges); a
  // blend's are its members' together. Empty when the model records none.
  const std::map<std::string, model::FieldRange>& training_ranges() const {
    return training_ranges_;
  }

  // The catalogue indices of the kernels that can run `problem` (canonical text), in catalogue
  // order; for ops without rule sets, the kernels seen in training with the problem's context
  // (InputError for a context never seen).
  std::vector<std::uint32_t> candidates(std::string_view problem) const;
  // The no-model pick among the rule set's `default` kernels, "" when none supports the
  // problem or the op has no rule sets.
  std::string no_model_pick(std::string_view problem) const;

  // Ranks `candidates` (catalogue indices, e.g. candidates() after a caller's filters) for
  // `problem`: shortlist, guard and ranking as the options say. `unsupported` when empty.
  Prediction rank(std::string_view problem, std::span<const std::uint32_t> candidates) const;
  // rank(problem, candidates(problem)).
  Prediction predict(std::string_view problem) const;

 private:
  ModelSelector(std::unique_ptr<Ranker> ranker, const Operation& op, SelectionOptions options);
  void check_classified_context(std::string_view problem) const;

  std::unique_ptr<Ranker> ranker_;
  const Operation* op_ = nullptr;
  SelectionOptions options_;
  DefaultGuard guard_;
  std::unique_ptr<KernelCatalogue> catalogue_;
  std::unique_ptr<features::KernelBlock> block_;  // the catalogue, prepared for the model
  std::map<std::string, model::FieldRange> training_ranges_;
  std::size_t rule_set_size_ = 0;           // catalogue indices below this: options_.rules
  std::vector<std::uint32_t> default_set_;  // catalogue indices of the `default` set
  std::vector<char> shortlisted_;           // per catalogue index: in the model's shortlist
};

}  // namespace kselect::select
