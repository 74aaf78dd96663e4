#pragma once
// The options `kselect select` and `kselect run` share: the dispatcher's (select/dispatcher.h).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "select/dispatcher.h"

namespace kselect::cli {

struct DispatchArgs {
  std::string model, op, rules = "profiler+default", strategy = "auto", cascade = "off";
  std::string cache, lockfile, controls;
  bool replay = false, require_model = false, all_candidates = false, verbose = false;
  int top_k = 3, repeats = 3, threads = 1;
  double budget_ms = 2000, confidence = 0.05, default_margin = 0;
  bool rules_given = false;

  void add_options(CLI::App& cmd);
  select::DispatchOptions options() const;
  // Writes the cache and the lockfile when they were given (a replayed lockfile is rewritten
  // with the decisions it gained).
  void save(const select::Dispatcher& d) const;
};

}  // namespace kselect::cli
