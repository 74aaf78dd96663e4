#include "bench/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <set>

#include "bench/fingerprint.h"
#include "bench/machine_load.h"
#include "core/error.h"
#include "core/hardware.h"
#include "core/progress.h"
#include "core/text.h"
#include "core/timing_stats.h"
#include "data/store.h"
#include "ops/operation.h"

namespace kselect::bench {

namespace {

// Refuses a problem whose workload would take more memory than the machine can give now (a
// fixed size limit cannot know the host): allocating it would bring in the kernel's
// out-of-memory killer, which ends the sweep, or the host. A tenth is left for everything else.
void check_memory(const Operation& op, const std::string& problem) {
  const double need = op.workload_bytes(problem), available = available_memory_bytes();
  if (need <= 0 || available <= 0 || need <= 0.9 * available) return;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  char text[160];
  std::snprintf(text, sizeof text,
                "needs %.1f GiB of memory for operands and packing; %.1f GiB are available",
                need / kGiB, available / kGiB);
  throw InputError("", 0, "problem", text);
}

// Rotation's copies of one workload's operands at most: enough for operands of 256 KiB to
// total twice a 32 MiB L3; smaller ones total less (a threshold that low is a test's).
constexpr int kMaxOperandCopies = 256;

// Writing a buffer twice the last-level cache evicts the operands of the previous run, as
// CUTLASS's profiler and benchdnn's --cold-cache do.
class CacheFlusher {
 public:
  CacheFlusher() {
    int l3_kib = host_hardware().l3_kib > 0 ? host_hardware().l3_kib : 32 * 1024;
    lines_.resize(size_t(l3_kib) * 1024 * 2 / sizeof(Line));
  }
  void flush() {
    for (Line& line : lines_) line.value[0] += 1;
  }

 private:
  struct alignas(64) Line {
    long value[8];
  };
  std::vector<Line> lines_;
};

struct Candidate {
  std::string kernel;
  std::unique_ptr<BoundKernel> bound;
  std::vector<double> times_ms;
  std::string failure;  // non-empty once the kernel threw or gave a wrong result
  bool verified = false;
  double fastest_ms = 0;  // fastest run so far (0: none yet), for pruning
  int calls_per_sample = 1;
  bool rewarm = false;  // rewarm_calls untimed calls before each timed sample
};

data::Measurement invalid_row(const std::string& op, const std::string& problem,
                              const std::string& kernel, const std::string& reason) {
  data::Measurement m;
  m.op = op, m.problem = problem, m.kernel = kernel, m.valid = false, m.reason = reason;
  return m;
}

// Runs `action` on the candidate, turning an exception into the candidate's failure.
template <typename Action>
void guarded(Candidate& c, Action&& action) {
  if (!c.failure.empty()) return;
  try {
    action();
  } catch (const std::exception& e) {
    c.failure = std::string("kernel failed: ") + e.what();
  }
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The fastest time any candidate has shown so far (warm-up probe or timed run).
double fastest_ms(const std::vector<Candidate*>& candidates) {
  double best = 0;
  for (const Candidate* c : candidates)
    if (c->failure.empty() && c->fastest_ms > 0 && (best == 0 || c->fastest_ms < best))
      best = c->fastest_ms;
  return best;
}

std::vector<Candidate*> pointers(std::vector<Candidate>& candidates) {
  std::vector<Candidate*> out;
  for (Candidate& c : candidates) out.push_back(&c);
  return out;
}

// Enough back-to-back calls for a sample of at least min_sample_us, from one call's time.
int calls_per_sample(double call_ms, const SweepSettings& s) {
  if (s.cold || s.min_sample_us <= 0 || call_ms <= 0 || call_ms * 1e3 >= s.min_sample_us) return 1;
  double calls = std::ceil(s.min_sample_us / std::max(call_ms * 1e3, 1e-3));
  return int(std::min(calls, double(SweepSettings::kMaxCallsPerSample)));
}

// Whether any kernel of the problem may be re-warmed (its own time decides, rewarms).
bool may_rewarm(const SweepSettings& s, bool rotated) {
  return !s.cold && !rotated && s.rewarm_below_us > 0;
}

bool rewarms(double call_ms, const SweepSettings& s, bool rotated) {
  return may_rewarm(s, rotated) && call_ms * 1e3 < s.rewarm_below_us;
}

bool hopeless(const Candidate& c, double best, const SweepSettings& s) {
  return s.prune_factor > 0 && best > 0 && c.fastest_ms > s.prune_factor * best;
}

// The first warm-up run of every candidate is timed as a probe; candidates the probes show to
// be hopeless skip the rest of their warm-up. The other warm-up runs are timed too, so the
// number of calls per timed sample comes from the fastest warm run rather than the probe,
// which may include first-touch costs. With several re-warming calls, the rest of the warm-up
// is at least that many calls in a row, so that whether a kernel is re-warmed is decided on
// its warm time: a kernel reading megabytes of weights can take five times longer after
// another kernel, past rewarm_below_us, and would then never be re-warmed.
void warm_up_and_verify(std::vector<Candidate>& candidates, const SweepSettings& s, bool rotated) {
  if (s.warmup > 0)
    for (Candidate& c : candidates)
      guarded(c, [&] {
        auto start = std::chrono::steady_clock::now();
        c.bound->run();
        c.fastest_ms = elapsed_ms(start);
      });
  const double best = fastest_ms(pointers(candidates));
  const bool long_warm_up = s.rewarm_calls > 1 && may_rewarm(s, rotated);
  const int warm_runs = long_warm_up ? std::max(s.warmup, s.rewarm_calls + 1) : s.warmup;
  for (Candidate& c : candidates) {
    guarded(c, [&] {
      if (!hopeless(c, best, s))
        for (int i = 1; i < warm_runs; ++i) {
          auto start = std::chrono::steady_clock::now();
          c.bound->run();
          c.fastest_ms = std::min(c.fastest_ms, elapsed_ms(start));
        }
      c.calls_per_sample = calls_per_sample(c.fastest_ms, s);
      c.rewarm = rewarms(c.fastest_ms, s, rotated);
      if (!s.verify) return;
      c.bound->run();  // the output buffer is shared: verify right after this kernel's run
      std::string why = c.bound->verify();
      if (!why.empty())
        c.failure = why.rfind("wrong result", 0) == 0 ? why : "wrong result: " + why;
      c.verified = true;
    });
  }
}

// Round-robin rounds, the order rotated each round, so drift (frequency, other load) spreads
// over all candidates instead of biasing the ones measured last. A hopeless candidate stops
// once it has kPrunedRepeats times.
void timed_rounds(const std::vector<Candidate*>& candidates, const SweepSettings& s) {
  std::unique_ptr<CacheFlusher> flusher = s.cold ? std::make_unique<CacheFlusher>() : nullptr;
  const size_t n = candidates.size();
  for (int round = 0; round < s.repeat; ++round) {
    const double best = fastest_ms(candidates);
    for (size_t i = 0; i < n; ++i) {
      Candidate& c = *candidates[(i + size_t(round)) % n];
      if (int(c.times_ms.size()) >= SweepSettings::kPrunedRepeats && hopeless(c, best, s)) continue;
      if (flusher) flusher->flush();
      guarded(c, [&] {
        for (int call = 0; c.rewarm && call < s.rewarm_calls; ++call) c.bound->run();
        auto start = std::chrono::steady_clock::now();
        for (int call = 0; call < c.calls_per_sample; ++call) c.bound->run();
        double ms = elapsed_ms(start) / c.calls_per_sample;
        c.times_ms.push_back(ms);
        // Timed runs replace the warm-up probe, which may include first-touch costs.
        c.fastest_ms = c.times_ms.size() == 1 ? ms : std::min(c.fastest_ms, ms);
      });
    }
  }
}

// Median of the timed runs so far; 0 for a failed candidate or one without times.
double median_ms(const Candidate& c) {
  return c.failure.empty() && !c.times_ms.empty() ? compute_stats(c.times_ms).median : 0;
}

// settings.contender_repeat more rounds, interleaved and rotated like timed_rounds, over the
// candidates within contender_band of the best median after the regular rounds.
void contender_rounds(std::vector<Candidate>& candidates, const SweepSettings& s) {
  if (s.contender_repeat <= 0) return;
  std::vector<double> medians;
  double best = 0;
  for (const Candidate& c : candidates) {
    medians.push_back(median_ms(c));
    if (medians.back() > 0 && (best == 0 || medians.back() < best)) best = medians.back();
  }
  std::vector<Candidate*> contenders;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (medians[i] > 0 && medians[i] <= (1 + s.contender_band) * best)
      contenders.push_back(&candidates[i]);
  if (contenders.size() < 2) return;  // a clear winner: more rounds would decide nothing
  SweepSettings more = s;
  more.repeat = s.contender_repeat;
  more.prune_factor = 0;  // contenders are never hopeless
  timed_rounds(contenders, more);
}

data::Measurement summarize(const std::string& op, const Workload& w, const Candidate& c) {
  if (!c.failure.empty()) return invalid_row(op, w.problem(), c.kernel, c.failure);
  data::Measurement m;
  m.op = op, m.problem = w.problem(), m.kernel = c.kernel, m.valid = true;
  TimeStats t = compute_stats(c.times_ms);
  m.median_ms = t.median, m.min_ms = t.min, m.mean_ms = t.mean, m.stddev_ms = t.stddev;
  m.ci_low_ms = t.ci_low, m.ci_high_ms = t.ci_high;
  double seconds = t.median * 1e-3;
  m.tflops = seconds > 0 ? w.flops() / seconds / 1e12 : 0;
  m.bandwidth_gb_s = seconds > 0 ? w.bytes() / seconds / 1e9 : 0;
  m.repeats_ms = c.times_ms;
  m.verified = c.verified;
  return m;
}

volatile std::sig_atomic_t g_stop_requested = 0;
extern "C" void request_stop(int) {
  g_stop_requested = 1;
}

// Stops the sweep cleanly between problems on the first SIGINT/SIGTERM; a second one
// terminates as usual (SA_RESETHAND).
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_requested = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool requested() const { return g_stop_requested != 0; }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// The problem's fields that are also kernel fields (for GEMM: dtype, layout) select the
// candidate kernels.
class CandidateFinder {
 public:
  CandidateFinder(const Operation& op, const std::string& rules) : op_(op), rules_(rules) {
    auto all = op.kernel_names(rules, KeyValues());
    if (!all.empty()) kernel_fields_ = op.kernel_fields(all.front());
  }
  const std::vector<std::string>& kernels_for(const std::string& problem) {
    KeyValues filter;
    const KeyValues fields = KeyValues::parse(problem);
    for (const auto& [key, value] : fields.items())
      if (kernel_fields_.contains(key) && key != "name") filter.set(key, value);
    auto key = filter.to_string();
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, op_.kernel_names(rules_, filter)).first;
    return it->second;
  }

 private:
  const Operation& op_;
  std::string rules_;
  nlohmann::json kernel_fields_ = nlohmann::json::object();
  std::map<std::string, std::vector<std::string>> cache_;
};

// Warns when runs with other measured code (bench/fingerprint.h; "unrecorded" for runs made
// before sweeps recorded it) stored pairs of `problems` under `key`: a resumed sweep skips
// those pairs, so they keep the other build's times. Returns whether it warned.
bool warn_if_other_builds(const data::Store& store, const std::string& op, const std::string& key,
                          const std::vector<std::string>& problems, std::ostream& log) {
  const auto stored = store.problems_by_run(op, key);
  auto timed_these = [&](long run_id) {
    auto it = stored.find(run_id);
    return it != stored.end() && std::any_of(problems.begin(), problems.end(),
                                             [&](auto& p) { return it->second.count(p) > 0; });
  };
  std::set<std::string> others;
  const std::string mine = measured_code_fingerprint();
  for (const data::RunInfo& run : store.runs()) {
    if (run.settings_key != key || !timed_these(run.id)) continue;
    std::string theirs = run.settings.is_object()
                             ? run.settings.value("measured_code", std::string("unrecorded"))
                             : std::string("unrecorded");
    if (theirs != mine) others.insert(theirs);
  }
  if (others.empty()) return false;
  log << "kselect bench: warning: " << store.path()
      << " holds pairs of these settings timed by a build with other kernels (measured code "
      << join(std::vector<std::string>(others.begin(), others.end())) << "; this build " << mine
      << "): they are skipped, not timed again; sweep into a new database to time this "
         "build's kernels\n";
  return true;
}

bool is_busy(double load1, double other_cpu, int threads) {
  return load1 > 1.25 * threads + 0.5 || other_cpu > 0.5;
}

}  // namespace

// Settings added after the first sweeps enter the key only when on, so a sweep with one off
// keeps the key of the sweeps made before that setting existed (and resumes them).
std::string SweepSettings::key(const std::string& op, const HardwareProfile& hardware) const {
  const long rotation_kib = rotation_threshold_kib(hardware);
  return "op=" + op + ";hw=" + hardware.summary() + ";threads=" + std::to_string(threads) +
         ";warmup=" + std::to_string(warmup) + ";repeat=" + std::to_string(repeat) +
         ";cold=" + (cold ? "1" : "0") + ";seed=" + std::to_string(seed) +
         (cold || min_sample_us <= 0 ? "" : ";min_sample_us=" + std::to_string(min_sample_us)) +
         (contender_repeat <= 0 ? ""
                                : ";contender_repeat=" + std::to_string(contender_repeat) +
                                      ";contender_band=" + std::to_string(contender_band)) +
         (!may_rewarm(*this, /*rotated=*/false)
              ? ""
              : ";rewarm_below_us=" + std::to_string(rewarm_below_us) +
                    (rewarm_calls == 1 ? "" : ";rewarm_calls=" + std::to_string(rewarm_calls))) +
         (rotation_kib <= 0 ? "" : ";rotate_above_kib=" + std::to_string(rotation_kib));
}

long SweepSettings::rotation_threshold_kib(const HardwareProfile& hardware) const {
  if (cold || rotate_above_kib == 0) return 0;
  return rotate_above_kib < 0 ? std::max(hardware.l2_kib, 1) : rotate_above_kib;
}

int operand_copies(double operand_bytes, const SweepSettings& s, const HardwareProfile& hardware) {
  const long threshold_kib = s.rotation_threshold_kib(hardware);
  if (threshold_kib <= 0 || operand_bytes <= double(threshold_kib) * 1024) return 1;
  const double l3_bytes = double(hardware.l3_kib > 0 ? hardware.l3_kib : 32 * 1024) * 1024;
  return int(std::clamp(std::ceil(2 * l3_bytes / operand_bytes), 1.0, double(kMaxOperandCopies)));
}

nlohmann::json SweepSettings::to_json() const {
  return {{"rules", rules},
          {"warmup", warmup},
          {"repeat", repeat},
          {"threads", threads},
          {"cold", cold},
          {"verify", verify},
          {"shard", shard.to_string()},
          {"seed", seed},
          {"prune_factor", prune_factor},
          {"min_sample_us", min_sample_us},
          {"contender_repeat", contender_repeat},
          {"contender_band", contender_band},
          {"rewarm_below_us", rewarm_below_us},
          {"rewarm_calls", rewarm_calls},
          {"reverse_kernels", reverse_kernels},
          {"rotate_above_kib", rotate_above_kib}};
}

void SweepSettings::validate() const {
  if (warmup < 0 || warmup > 1000) throw InputError("", 0, "warmup", "must be in 0..1000");
  if (repeat < 1 || repeat > 100000) throw InputError("", 0, "repeat", "must be in 1..100000");
  if (threads < 1 || threads > 4096) throw InputError("", 0, "threads", "must be in 1..4096");
  if (!(prune_factor == 0 || prune_factor >= 1.5))
    throw InputError("", 0, "prune-factor", "must be 0 (off) or at least 1.5");
  if (min_sample_us < 0 || min_sample_us > 1000000)
    throw InputError("", 0, "min-sample-us", "must be in 0..1000000");
  if (contender_repeat < 0 || contender_repeat > 100000)
    throw InputError("", 0, "contender-repeat", "must be in 0..100000");
  if (!(contender_band >= 0 && contender_band <= 10))
    throw InputError("", 0, "contender-band", "must be in 0..10");
  if (rewarm_below_us < 0 || rewarm_below_us > 100000000)
    throw InputError("", 0, "rewarm-below-us", "must be in 0..100000000");
  if (rewarm_calls < 1 || rewarm_calls > 100)
    throw InputError("", 0, "rewarm-calls", "must be in 1..100");
  if (rotate_above_kib < -1 || rotate_above_kib > 100000000)
    throw InputError("", 0, "rotate-above-kib",
                     "must be -1 (the L2 size), 0 (off) or a size in KiB");
}

nlohmann::json SweepSummary::to_json() const {
  return {{"run_id", run_id},
          {"problems", problems},
          {"problems_in_shard", problems_in_shard},
          {"problems_without_kernels", problems_without_kernels},
          {"pairs", pairs},
          {"written", written},
          {"discarded", discarded},
          {"skipped", skipped},
          {"invalid", invalid},
          {"elapsed_s", elapsed_s},
          {"measurements_per_s", measurements_per_s},
          {"max_load1", max_load1},
          {"busy", busy},
          {"interrupted", interrupted},
          {"other_measured_code", other_measured_code}};
}

std::vector<data::Measurement> measure_problem(const Operation& op, const std::string& problem,
                                               const std::vector<std::string>& kernels,
                                               const SweepSettings& s) {
  const std::string op_name(op.name());
  std::vector<data::Measurement> rows;
  std::vector<Candidate> candidates;
  for (const std::string& kernel : kernels) {
    std::string why;
    try {
      why = op.unsupported_reason(kernel, problem);
    } catch (const std::exception& e) {
      why = std::string("kernel failed: ") + e.what();
    }
    if (why.empty())
      candidates.push_back(Candidate{kernel, nullptr, {}, "", false, 0});
    else
      rows.push_back(invalid_row(op_name, problem, kernel, why));
  }
  if (candidates.empty()) return rows;
  if (s.reverse_kernels) std::reverse(candidates.begin(), candidates.end());
  std::unique_ptr<Workload> workload;
  try {
    check_memory(op, problem);
    workload = op.make_workload(problem, s.seed);
  } catch (const std::exception& e) {
    for (const Candidate& c : candidates)
      rows.push_back(
          invalid_row(op_name, problem, c.kernel, std::string("no workload: ") + e.what()));
    return rows;
  }
  const int copies = operand_copies(workload->bytes(), s, host_hardware());
  if (copies > 1) workload->rotate_operands(copies);
  for (Candidate& c : candidates)
    guarded(c, [&] { c.bound = op.bind(c.kernel, *workload, s.threads); });
  warm_up_and_verify(candidates, s, copies > 1);
  timed_rounds(pointers(candidates), s);
  contender_rounds(candidates, s);
  for (const Candidate& c : candidates) rows.push_back(summarize(op_name, *workload, c));
  return rows;
}

SweepSummary run_sweep(const Operation& op, const std::vector<std::string>& problems,
                       data::Store& store, const SweepSettings& s, std::ostream& log) {
  s.validate();
  const std::string op_name(op.name());
  const HardwareProfile& hardware = host_hardware();
  const std::string key = s.key(op_name, hardware);
  SweepSummary summary;
  summary.problems = long(problems.size());

  CandidateFinder finder(op, s.rules);
  std::vector<std::string> mine;
  for (const std::string& p : problems) {
    if (!s.shard.contains(p)) continue;
    mine.push_back(p);
    summary.pairs += long(finder.kernels_for(p).size());
    if (finder.kernels_for(p).empty()) summary.problems_without_kernels += 1;
  }
  summary.problems_in_shard = long(mine.size());
  if (summary.problems_without_kernels)
    log << "kselect bench: warning: " << summary.problems_without_kernels
        << " problem(s) have no kernel of set '" << s.rules << "' with their fields\n";

  auto done = store.completed_pairs(op_name, key);
  summary.other_measured_code =
      !done.empty() && warn_if_other_builds(store, op_name, key, mine, log);
  nlohmann::json run_settings = s.to_json();
  run_settings["measured_code"] = measured_code_fingerprint();
  summary.max_load1 = load_average_1min();
  summary.run_id = store.begin_run(op_name, hardware, run_settings, key, summary.max_load1);
  auto kernel_config = [&](const std::string& kernel) { return op.kernel_fields(kernel); };

  StopOnSignal stop;
  OtherCpuMeter meter;
  Progress progress("bench", summary.pairs, log, s.progress);
  auto start = std::chrono::steady_clock::now();
  long finished_pairs = 0;
  bool warned = false;
  for (const std::string& problem : mine) {
    if (stop.requested()) {
      summary.interrupted = true;
      break;
    }
    progress.update(finished_pairs, problem);
    const auto& kernels = finder.kernels_for(problem);
    std::vector<std::string> pending;
    for (const auto& k : kernels)
      if (!done.count({problem, k})) pending.push_back(k);
    summary.skipped += long(kernels.size() - pending.size());
    finished_pairs += long(kernels.size() - pending.size());
    if (pending.empty()) continue;

    auto rows = measure_problem(op, problem, pending, s);
    double load1 = load_average_1min(), other = meter.lap();
    for (auto& row : rows) row.load1 = load1, row.other_cpu = other, row.run_id = summary.run_id;
    const long added =
        store.write_problem(summary.run_id, key, op_name, problem, rows, kernel_config);
    summary.written += added;
    summary.discarded += long(rows.size()) - added;
    summary.invalid +=
        long(std::count_if(rows.begin(), rows.end(), [](auto& r) { return !r.valid; }));
    finished_pairs += long(pending.size());
    summary.max_load1 = std::max(summary.max_load1, load1);
    if (is_busy(load1, other, s.threads)) {
      summary.busy = true;
      if (!warned)
        log << "\nkselect bench: warning: the machine is busy (1-min load " << load1 << " for "
            << s.threads << " thread(s), other processes used " << other
            << " CPUs): timings may be noisy; the run is flagged busy\n";
      warned = true;
    }
  }
  progress.update(finished_pairs, "");
  progress.finish();
  summary.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.measurements_per_s =
      summary.elapsed_s > 0 ? double(summary.written) / summary.elapsed_s : 0;
  store.finish_run(summary.run_id, load_average_1min(), summary.busy,
                   summary.interrupted ? "interrupted" : "finished");
  return summary;
}

}  // namespace kselect::bench
