#pragma once
// Surrogate search (`kselect search`): proposes configurations of an op's rule-defined space
// that no set lists and nobody measured, by scoring them with a trained model instead of
// running them. The space is a named set of the op's rule file (`full`: every valid
// configuration) or a user rule file's whole valid space, narrowed to the configurations that
// support the problem (Operation::unsupported_reason); a strategy (search/strategy.h) scores
// `budget` of them with the model and the best `top_k` are reported.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/feature_spec.h"
#include "search/strategy.h"
#include "select/scorer.h"

namespace kselect::search {

struct SurrogateOptions {
  std::string model;    // model directory
  std::string problem;  // key=value text
  // A rule set of the op's rule file, or the path of a rule file (its whole valid space).
  std::string space = "full";
  StrategyOptions strategy;
  std::size_t top_k = 10;
  bool progress = false;  // a progress line with ETA on stderr
};

struct SurrogateResult {
  std::string op, problem, space;
  StrategyOptions strategy;
  std::size_t space_size = 0;       // valid configurations of the set or file
  std::size_t candidates = 0;       // of them, those that support the problem
  SearchTrace trace;                // indices into the candidates
  std::vector<select::Scored> top;  // best first, with the model's predictions
  // Problem fields outside the model's training ranges; unknown (ranges_recorded false) for
  // models trained before kselect recorded them.
  bool ranges_recorded = false;
  std::vector<model::OutOfRange> extrapolation;

  nlohmann::json to_json() const;
  std::string to_text() const;
};

// InputError for an unknown set, a rule file of another op, a problem no configuration of the
// space supports, an op without a rule file, or bad strategy options; StorageError for an
// unreadable model.
SurrogateResult surrogate_search(const SurrogateOptions& options);

}  // namespace kselect::search
