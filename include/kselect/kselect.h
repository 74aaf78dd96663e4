#pragma once
// kselect's C++ API: pick the kernel to run for a problem from a trained model, in
// microseconds, and run it on the CPU backend.
//
//   kselect::SelectorOptions options;
//   options.model = "models/gemm_fp32";          // a model directory (kselect train)
//   options.cache_file = "kselect.cache";         // decisions kept across processes
//   kselect::Selector selector(options);
//   kselect::Problem p = selector.problem("m=128,n=1536,k=7168,layout=rcr,dtype=fp32");
//   kselect::Selection s = selector.select(p);    // s.kernel: the kernel's name
//   selector.run(p, {a, b, c});                   // or run it on your buffers
//
// A Problem is parsed and validated once; select() on a problem decided before is one hash
// lookup. A Selector is thread-safe: share one between threads. Errors are thrown as
// kselect::InputError (bad input, naming the file, line and field) and kselect::StorageError
// (unreadable files), both std::runtime_error. docs/runtime.md describes strategies, the
// fallback levels, the cache and lockfile files and the controls file.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kselect/error.h"

namespace kselect {

namespace select {
class Dispatcher;
}

struct SelectorOptions {
  std::string model;  // model directory; empty: no model (the op's default order)
  std::string op;     // "gemm", "conv", ...; empty: the model's (required without a model)
  std::string rules = "profiler+default";  // the rule set of candidate kernels
  // "auto" (the model where it is inside its training ranges and confident, else measure its
  // top k), "ml", "default", "exhaustive" (measure every candidate) or "hybrid" (measure the
  // model's top k).
  std::string strategy = "auto";
  int hybrid_top_k = 3;
  double confidence_margin = 0.05;  // auto: the pick must be predicted this much faster
  double measure_budget_ms = 2000;  // auto: total measuring time of this selector
  int measure_repeats = 3;
  int threads = 1;         // threads of measured and run kernels
  std::string cache_file;  // read when present; save_cache() writes it
  std::string lockfile;    // save_lockfile() writes it; replayed when replay_lockfile
  bool replay_lockfile = false;
  std::string controls;         // JSON file: pins, allow/deny lists, workspace budget
  bool require_model = false;   // an unusable model is an error instead of a fallback
  bool verbose = false;         // a log line per decision (or KSELECT_VERBOSE=1)
  std::string cascade = "off";  // "P:S": score with P trees, finish the best S
  double default_margin = 0;    // keep the default unless the pick is this much faster
  bool all_candidates = false;  // rank every supported kernel, not the shortlist
  // Fallbacks, cache rebuilds and verbose lines; default: stderr.
  std::function<void(const std::string&)> log;
};

// A validated problem of the selector's op, in canonical text, with its hash.
class Problem {
 public:
  const std::string& text() const { return text_; }
  std::size_t hash() const { return hash_; }

 private:
  friend class Selector;
  Problem(std::string text, std::size_t hash) : text_(std::move(text)), hash_(hash) {}
  std::string text_;
  std::size_t hash_;
};

struct Selection {
  std::string_view kernel;         // the kernel's name, valid while the Selector lives
  std::uint32_t kernel_index = 0;  // in kernels()
  // The fallback level that answered: "pinned", "lockfile", "cache", "measured", "model" or
  // "default"; `decided_by` the level that decided first (a cached decision: the strategy's).
  std::string_view level, decided_by;
};

struct RankedKernel {
  std::string kernel;
  double score = 0;                 // higher is better (NaN: ranked by the default order)
  double predicted_tflops = 0;      // NaN when the model does not predict it
  double predicted_latency_ms = 0;  // NaN when the model does not predict it
  double measured_ms = 0;           // NaN unless the strategy measured it
};

struct RunResult {
  Selection selection;
  double ms = 0;             // the run's wall time
  std::string verify_error;  // "" when verified (or not asked)
};

struct Counters {
  std::uint64_t selects = 0, cache_hits = 0, cache_misses = 0, cache_rebuilds = 0;
  std::uint64_t model_fallbacks = 0, measured_decisions = 0, kernels_measured = 0;
  std::uint64_t lockfile_replays = 0, pins_applied = 0, denied = 0, not_allowed = 0;
  std::uint64_t over_workspace = 0;
  double measured_ms = 0;
};

class Selector {
 public:
  explicit Selector(const SelectorOptions& options);
  ~Selector();
  Selector(Selector&&) noexcept;
  Selector& operator=(Selector&&) noexcept;

  std::string_view op() const;
  bool has_model() const;
  // Every kernel the selector may choose (its catalogue); Selection::kernel_index indexes it.
  const std::vector<std::string>& kernels() const;

  // Parses and validates `text` ("m=..,n=..,k=.."); InputError naming the field.
  Problem problem(std::string_view text) const;
  // The kernel to run for `problem`. Thread-safe; repeated problems are a hash lookup.
  Selection select(const Problem& problem);
  // The candidates best first with their scores and predicted (or measured) times; `top` <= 0:
  // all.
  std::vector<RankedKernel> rank(const Problem& problem, int top = 10);
  // Why the decision is what it is: features, the top kernels, the filters applied and every
  // rejected kernel with its reason, the fallback level. JSON or a table.
  std::string explain(const Problem& problem, bool json = false, int top = 5);

  // The operands run() takes for `problem`, in order ("a", "b", "c" for GEMM).
  std::vector<std::string> operand_names(const Problem& problem) const;
  // Selects and runs the kernel once on the caller's operands (element type the problem's
  // dtype); `verify` checks the output against a reference computed from the inputs.
  RunResult run(const Problem& problem, std::span<void* const> operands, bool verify = false);

  // Writes the decisions held to the cache file / lockfile (options' path when empty).
  void save_cache(const std::string& path = "") const;
  void save_lockfile(const std::string& path = "") const;
  Counters counters() const;

 private:
  Selection to_selection(std::uint32_t kernel, int level, int decided_by) const;
  std::unique_ptr<select::Dispatcher> impl_;
};

// The library's version, "major.minor.patch".
const char* version();

}  // namespace kselect
