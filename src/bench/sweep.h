#pragma once
// The sweep runner: measures every kernel of a rule set on every problem of a shape list and
// stores the results. Written once against kselect::Operation, for every operation.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/shard.h"
#include "data/measurement.h"

namespace kselect {
class Operation;
struct HardwareProfile;
namespace data {
class Store;
}
}  // namespace kselect

namespace kselect::bench {

struct SweepSettings {
  std::string rules = "tiny";  // rule set naming the candidate kernels
  int warmup = 3;              // untimed runs of each kernel before timing
  int repeat = 10;             // timed rounds; each round runs every candidate once
  int threads = 1;
  bool cold = false;    // evict the caches before every timed run
  bool verify = false;  // check each kernel's output once; wrong results are stored invalid
  // Hopeless candidates (more than prune_factor x slower than the problem's fastest so far) stop
  // after kPrunedRepeats timed runs and skip the rest of their warm-up: they can never be the
  // pick, and on skinny problems they take most of a sweep's time. 0 measures everything fully.
  double prune_factor = 3;
  static constexpr int kPrunedRepeats = 3;
  // A timed sample runs the kernel back to back until it lasts at least this long and records
  // the time per call: a single call of a sub-microsecond kernel is dominated by clock and
  // call overhead. 0 times single calls. Ignored with `cold` (every call must start cold).
  int min_sample_us = 100;
  static constexpr int kMaxCallsPerSample = 100000;
  // After the `repeat` rounds, `contender_repeat` more interleaved rounds for the contenders:
  // the kernels whose median is within `contender_band` (relative) of the problem's best
  // median, when there are at least two. Noise decides between near-equal kernels, and a pick
  // is judged against the best one, so repeats there raise what any selector can reach on the
  // data (the split-half ceiling of kselect eval) for a few kernels' time per problem. 0: off.
  int contender_repeat = 0;
  double contender_band = 0.1;
  // A timed sample of a kernel whose call takes less than this follows one untimed call of the
  // same kernel, so the caches hold what the kernel itself leaves there and not what the kernel
  // before it in the round left (a C written back to memory by a streaming epilogue, packed
  // panels of another tile): without it a short kernel's time depends on its neighbour in the
  // round order, which says nothing about the kernel when a dispatcher calls it on its own.
  // Longer kernels are not re-warmed: one more call each would add much of a
  // sweep's time for a small relative effect. 0: off. Ignored with `cold`.
  int rewarm_below_us = 1000;
  // Untimed calls of a re-warmed kernel before each timed sample. One is enough where the
  // kernel's operands fit the private caches; a kernel streaming megabytes of packed weights
  // (a fully connected layer's 4-8 MiB) reaches its steady time only after a few calls of its
  // own, so with one its time still depends on which kernel ran before it
  // (experiments/conv/README.md, "Kernel order and large weights"). Part of the resume key
  // when not 1.
  int rewarm_calls = 1;
  // Measure each problem's kernels in the reverse of the rule set's order, so that each one
  // follows another neighbour in the rounds. Not in the resume key: with re-warming a kernel's
  // time should not depend on its neighbour, and comparing the two orders checks that.
  bool reverse_kernels = false;
  // Problems whose operands (Workload::bytes()) exceed this many KiB are timed from memory:
  // the workload keeps enough copies of its operands to total twice the L3, and every call
  // uses the next one. Operands between the private L2 and a few times the L3 otherwise meet
  // whatever the shared L3 kept of them since the kernel's last call, which depends on the
  // kernel before it and on the machine's other tenants. Rotation removes that dependence but
  // times every call with cold operands: another question than the warm one a dispatcher's
  // repeated calls ask, so it is off by default. Part of the resume key (with the size), so a
  // rotated sweep never takes over a warm sweep's pairs.
  // -1: the host's L2 per core; 0: off. Re-warming is off
  // for rotated problems (it would warm a copy the next call does not use). Ignored with `cold`.
  int rotate_above_kib = 0;
  Shard shard;
  unsigned seed = 1;     // input data
  bool progress = true;  // progress line on the log stream

  // What makes two measurements of a pair comparable: a resumed sweep skips pairs stored
  // under the same key. Rules, shard, verify and pruning do not change a timing (pruning only
  // shortens the measurement of kernels far from the best), so they are not in it.
  std::string key(const std::string& op, const HardwareProfile& hardware) const;
  // rotate_above_kib with -1 resolved to `hardware`'s L2; 0 when rotation is off.
  long rotation_threshold_kib(const HardwareProfile& hardware) const;
  nlohmann::json to_json() const;
  void validate() const;  // throws InputError for out-of-range values
};

struct SweepSummary {
  long run_id = 0;
  long problems = 0;  // in the shape list
  long problems_in_shard = 0;
  long pairs = 0;                              // (problem, kernel) pairs in this shard
  long written = 0, skipped = 0, invalid = 0;  // skipped: already in the store
  // Measured here but not written: another process (a second sweep of the same database)
  // stored the same (problem, kernel, settings) first, and its row is kept.
  long discarded = 0;
  long problems_without_kernels = 0;
  double elapsed_s = 0;
  double measurements_per_s = 0;  // written / elapsed
  double max_load1 = 0;
  bool busy = false;
  bool interrupted = false;  // stopped by SIGINT/SIGTERM; completed problems are kept
  // Pairs it skipped were timed by a build whose measured code differs (bench/fingerprint.h).
  bool other_measured_code = false;
  nlohmann::json to_json() const;
};

// Runs the sweep and writes every result to `store`, one transaction per problem; progress
// and warnings go to `log`.
SweepSummary run_sweep(const Operation& op, const std::vector<std::string>& problems,
                       data::Store& store, const SweepSettings& settings, std::ostream& log);

// Copies of a workload's operands (of `operand_bytes`) that rotation uses: enough to total
// twice the L3, or 1 when the problem is at or below the threshold or rotation is off.
int operand_copies(double operand_bytes, const SweepSettings& settings,
                   const HardwareProfile& hardware);

// Measures `kernels` on one problem with interleaved rounds (see docs/database.md); exposed
// for tests and the stability check. Unsupported, failing or wrong kernels come back invalid
// with the reason.
std::vector<data::Measurement> measure_problem(const Operation& op, const std::string& problem,
                                               const std::vector<std::string>& kernels,
                                               const SweepSettings& settings);

}  // namespace kselect::bench
