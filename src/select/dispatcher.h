#pragma once
// The runtime dispatcher: the kernel to run for a problem, decided once and then found again
// with a hash lookup (docs/runtime.md).
//
// A decision comes from the first level that has one:
//   pinned (the user's controls) -> lockfile -> cache -> the strategy -> the default order,
// and says which level made it. Strategies: `ml` (the model's pick), `default` (the op's
// no-model order), `exhaustive` (measure every candidate once), `hybrid` (measure the model's
// top k) and `auto` (`ml` when the problem lies inside the model's training ranges and the
// model is confident, else `hybrid` while the measurement budget lasts). Without a usable
// model every strategy that needs one falls back to the default order, loudly.
//
// Thread-safe: any number of threads may call select, explain and run at once.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/feature_spec.h"
#include "ops/operation.h"
#include "select/controls.h"
#include "select/decision_cache.h"
#include "select/measure.h"
#include "select/model_selector.h"

namespace kselect::select {

enum class Strategy : std::uint8_t { kAuto, kModel, kDefault, kExhaustive, kHybrid };
// Where a decision came from: the fallback level.
enum class Source : std::uint8_t { kPinned, kLockfile, kCache, kMeasured, kModel, kDefault };

std::string_view to_string(Strategy s);  // "auto", "ml", "default", "exhaustive", "hybrid"
std::string_view to_string(Source s);    // "pinned", "lockfile", "cache", "measured", ...
// InputError listing the strategies for an unknown name.
Strategy parse_strategy(std::string_view text);

struct DispatchOptions {
  std::filesystem::path model;  // a model directory; empty: none (the default order)
  std::string op;               // empty: the model's; required without a model
  SelectionOptions selection;   // rule set, cascade, guard, shortlist
  Strategy strategy = Strategy::kAuto;
  int hybrid_top_k = 3;
  // auto: the model is confident when its pick is predicted at least this fraction faster
  // than its runner-up.
  double confidence_margin = 0.05;
  // auto: milliseconds of measuring (hybrid decisions) this dispatcher may spend in all.
  double measure_budget_ms = 2000;
  MeasureOptions measure;
  std::filesystem::path cache_file;  // read when it exists; save_cache() writes it
  std::filesystem::path lockfile;    // read when replaying; save_lockfile() writes it
  bool replay_lockfile = false;      // decisions of `lockfile` win over every other level
  std::filesystem::path controls;    // pins, allow and deny lists, workspace budget (JSON)
  bool require_model = false;        // a model that cannot be used is an error, not a fallback
  // One line per decision on the log (KSELECT_VERBOSE=1 in the environment turns it on too).
  bool verbose = false;
  // Where fallbacks, cache rebuilds and verbose lines go; default: stderr, "kselect: " first.
  std::function<void(const std::string&)> log;
};

struct Decision {
  std::uint32_t kernel = 0;  // catalogue index
  Source source = Source::kDefault;
  // The level that made the decision in the first place (a cached decision: the strategy's).
  Source decided_by = Source::kDefault;
};

struct DispatchCounts {
  std::uint64_t selects = 0, cache_hits = 0, cache_misses = 0;
  std::uint64_t cache_rebuilds = 0;   // cache or lockfile files found stale or corrupt
  std::uint64_t model_fallbacks = 0;  // decisions the default order made for want of a model
  std::uint64_t measured_decisions = 0, kernels_measured = 0;
  std::uint64_t lockfile_replays = 0;
  double measured_ms = 0;  // time spent measuring
  ControlCounts controls;
};

// One candidate as explain() shows it.
struct ExplainedKernel {
  Scored predicted;                   // score and predicted times (NaN without a model)
  double measured_ms = std::nan("");  // when the strategy measured it
};

struct Explanation {
  std::string problem;
  std::string strategy;            // requested
  std::string decided_strategy;    // what decided: "ml", "default", "hybrid", ... or "pinned"
  std::string kernel;              // the decision
  std::string source;              // the fallback level
  std::vector<std::string> notes;  // why: the auto rule, fallbacks, pins, the guard
  std::vector<model::OutOfRange> out_of_range;
  std::map<std::string, double> features;  // the model's features of the decided kernel
  std::vector<ExplainedKernel> top;
  std::size_t candidates = 0;                               // supported before the controls
  std::vector<std::pair<std::string, Rejection>> rejected;  // kernel name, why
  std::optional<std::string> cached_kernel;  // the cache's (or lockfile's) decision, if any

  nlohmann::json to_json() const;
  std::string to_table() const;
};

struct RunResult {
  Decision decision;
  double ms = 0;
  std::string verify_error;  // "" when verified or not asked
};

class Dispatcher {
 public:
  explicit Dispatcher(DispatchOptions options);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  const Operation& op() const { return *op_; }
  const KernelCatalogue& catalogue() const { return *catalogue_; }
  bool has_model() const { return model_ != nullptr; }
  const DispatchOptions& options() const { return options_; }
  // The fingerprints of this dispatcher's decisions (the cache file's keys).
  const CacheKeys& keys() const { return keys_; }

  // The canonical text of `text` (Operation::canonical_problem); InputError naming `source`.
  std::string canonical(std::string_view text, const std::string& source = "problem") const;

  // The kernel for `problem` (canonical text and its hash). InputError when no kernel can run
  // it after the controls' filters.
  Decision select(const ProblemKey& problem);
  Decision select(std::string_view canonical_problem) {
    return select(ProblemKey{canonical_problem, ProblemKey::hash_of(canonical_problem)});
  }
  // Decides `problem` afresh with every detail (top `top` kernels). The decision reported is
  // select()'s: one the cache holds stays (the fresh one is noted when it differs); a new one
  // is kept in the cache.
  Explanation explain(std::string_view canonical_problem, int top = 5);
  // Selects, then runs the kernel once on the caller's operands (Operation::wrap_buffers),
  // optionally checking the output against the op's reference.
  RunResult run(std::string_view canonical_problem, std::span<void* const> operands,
                bool verify = false);

  // Writes the cache (cache_file, or `path`) / the lockfile: every decision held, sorted.
  void save_cache(const std::filesystem::path& path = {}) const;
  void save_lockfile(const std::filesystem::path& path = {}) const;
  DispatchCounts counts() const;

 private:
  struct Detail;
  Detail decide(std::string_view problem, bool explain);
  Strategy resolve_auto(std::string_view problem, Detail& d);
  void rank_with_model(std::string_view problem, std::span<const std::uint32_t> candidates,
                       Detail& d);
  std::uint32_t measure_best(std::string_view problem, std::span<const std::uint32_t> kernels,
                             Detail& d);
  std::vector<std::uint32_t> supported(std::string_view problem) const;
  std::vector<std::uint32_t> default_order(std::string_view problem,
                                           std::span<const std::uint32_t> candidates) const;
  void log(const std::string& line) const;
  void load_cache_file();
  void load_lockfile();
  void write(const std::filesystem::path& path, const std::string& kind) const;

  DispatchOptions options_;
  const Operation* op_ = nullptr;
  std::unique_ptr<ModelSelector> model_;
  std::string model_missing_;  // why there is no model ("" when none was asked for)
  std::unique_ptr<KernelCatalogue> own_catalogue_;  // without a model
  const KernelCatalogue* catalogue_ = nullptr;
  std::size_t rule_set_size_ = 0;     // catalogue indices below this: the rule set's kernels
  std::vector<char> in_default_set_;  // per catalogue index
  Controls controls_;
  CacheKeys keys_;
  DecisionCache cache_;
  std::atomic<std::uint64_t> selects_{0}, hits_{0}, misses_{0}, rebuilds_{0}, fallbacks_{0},
      measured_decisions_{0}, kernels_measured_{0}, replays_{0};
  mutable std::mutex measure_mutex_;  // one measurement at a time: they would disturb each other
  double measured_ms_ = 0;            // guarded by measure_mutex_
};

}  // namespace kselect::select
