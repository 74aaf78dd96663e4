// kselect bench: measured sweeps into a database, and the run-to-run stability check
// (docs/cli.md).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "bench/stability.h"
#include "bench/sweep.h"
#include "cli/verb.h"
#include "core/error.h"
#include "core/hardware.h"
#include "data/store.h"
#include "ops/operation.h"
#include "ops/shape_csv.h"
#include "rules/rule_file.h"

namespace kselect::cli {
namespace {

struct Args {
  std::string op{default_operation().name()}, shapes, db, shard = "0/1", arch;
  bench::SweepSettings settings;
  bool json = false, no_progress = false, stability = false;
  int processes = 3;
  double tie_band = 0.02;
};

void print_summary(const bench::SweepSummary& s, const std::string& db) {
  std::cout << "kselect bench: " << s.written << " measurements written to " << db << " ("
            << s.invalid << " invalid), " << s.skipped << " skipped as already done; "
            << (s.discarded > 0 ? std::to_string(s.discarded) +
                                      " measured but discarded (another process wrote them "
                                      "first); "
                                : std::string())
            << s.problems_in_shard << " of " << s.problems << " problems in this shard, " << s.pairs
            << " pairs; " << s.elapsed_s << " s, " << s.measurements_per_s << " measurements/s"
            << (s.busy ? "; machine was BUSY" : "") << (s.interrupted ? "; INTERRUPTED" : "")
            << "\n";
}

// Only the native target's kernels run here: another target's (a GPU's CK kernels, which
// `kselect configs --arch` lists) are refused before anything is read.
void refuse_other_targets(const Args& a) {
  if (a.arch.empty() || a.arch == rules::kNativeTarget) return;
  const Operation& op = find_operation(a.op);
  const bool listed = rules::RuleFile::embedded_stem(op.name(), a.arch).has_value();
  throw UsageError("bench: the " + std::string(op.name()) + " kernels of --arch " + a.arch +
                   (listed ? " are CK GPU kernels that kselect lists (kselect configs --op " +
                                 std::string(op.name()) + " --arch " + a.arch +
                                 ") but cannot build or run here; it measures only the " +
                                 std::string(rules::kNativeTarget) + " kernels"
                           : " do not exist; kselect measures only the " +
                                 std::string(rules::kNativeTarget) + " kernels"));
}

int run_sweep(Args& a) {
  if (a.shapes.empty()) throw UsageError("bench: --shapes <csv> is required to sweep");
  if (a.db.empty()) throw UsageError("bench: --db <file.sqlite> is required to sweep");
  const Operation& op = find_operation(a.op);
  a.settings.shard = bench::parse_shard(a.shard);
  a.settings.progress = !a.no_progress;
  a.settings.validate();
  auto problems = read_shape_csv(op, a.shapes);
  data::Store store(a.db);
  auto summary = bench::run_sweep(op, problems, store, a.settings, std::cerr);
  if (a.json)
    std::cout << summary.to_json().dump(2) << "\n";
  else
    print_summary(summary, a.db);
  return summary.interrupted ? kExitFailure : kExitOk;
}

// Without --shapes, a few small problems of the op's first shape family.
std::string default_stability_shapes(const Operation& op, const std::string& dir) {
  const auto problems = op.generate_problems({.count = 6, .max_gflop = 0.2});
  std::string path = dir + "/shapes.csv";
  write_shape_csv(op, problems, path);
  return path;
}

int run_stability(Args& a) {
  const Operation& op = find_operation(a.op);
  char dir_template[] = "/tmp/kselect-stability-XXXXXX";
  if (!mkdtemp(dir_template)) throw StorageError("cannot create a temporary directory in /tmp");
  std::string dir = dir_template;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  bench::StabilityOptions o;
  o.op = a.op, o.rules = a.settings.rules, o.work_dir = dir, o.processes = a.processes;
  o.warmup = a.settings.warmup, o.repeat = a.settings.repeat, o.threads = a.settings.threads;
  o.tie_band = a.tie_band;
  o.shapes_csv = a.shapes.empty() ? default_stability_shapes(op, dir)
                                  : std::filesystem::absolute(a.shapes).string();
  read_shape_csv(op, o.shapes_csv);  // report bad input before spawning anything
  auto report = bench::run_stability(o, std::cerr);
  if (a.json)
    std::cout << report.to_json().dump(2) << "\n";
  else
    report.print_table(std::cout);
  return kExitOk;
}

RegisterVerb reg("bench", [](CLI::App& app) -> std::function<int()> {
  auto a = std::make_shared<Args>();
  a->settings.threads = host_hardware().logical_cpus;
  auto* cmd = app.add_subcommand("bench", "Measure every kernel of a rule set on a shape list");
  cmd->add_option("--op", a->op, "Operation")->capture_default_str();
  cmd->add_option("--rules", a->settings.rules, "Rule set naming the candidate kernels")
      ->capture_default_str();
  cmd->add_option("--shapes", a->shapes, "Shape CSV (kselect shapes)");
  cmd->add_option("--db", a->db, "Measurement database (created if missing)");
  cmd->add_option("--warmup", a->settings.warmup, "Untimed runs per kernel")->capture_default_str();
  cmd->add_option("--repeat", a->settings.repeat, "Timed rounds")->capture_default_str();
  cmd->add_option("--threads", a->settings.threads, "Threads per kernel run")
      ->capture_default_str();
  cmd->add_option("--shard", a->shard, "Take shard i of N (by hash of the problem): i/N")
      ->capture_default_str();
  cmd->add_option("--prune-factor", a->settings.prune_factor,
                  "Kernels this many times slower than the fastest stop after 3 timed runs "
                  "(0: measure all fully)")
      ->capture_default_str();
  cmd->add_option("--min-sample-us", a->settings.min_sample_us,
                  "A timed sample repeats the kernel until it lasts this long (0: one call)")
      ->capture_default_str();
  cmd->add_option("--contender-repeat", a->settings.contender_repeat,
                  "Extra timed rounds for the kernels near each problem's best (0: off)")
      ->capture_default_str();
  cmd->add_option("--contender-band", a->settings.contender_band,
                  "Relative distance of a contender's median from the best median")
      ->capture_default_str();
  cmd->add_option("--rewarm-below-us", a->settings.rewarm_below_us,
                  "Kernels faster than this run once untimed before each timed sample (0: off)")
      ->capture_default_str();
  cmd->add_option("--rewarm-calls", a->settings.rewarm_calls,
                  "Untimed calls of a re-warmed kernel before each timed sample")
      ->capture_default_str();
  cmd->add_option("--rotate-above-kib", a->settings.rotate_above_kib,
                  "Problems whose operands exceed this many KiB rotate through copies totalling "
                  "twice the L3, so every call reads them from memory (-1: the L2 size; 0: off)")
      ->capture_default_str();
  cmd->add_option("--seed", a->settings.seed, "Seed of the input data")->capture_default_str();
  cmd->add_flag("--reverse-kernel-order", a->settings.reverse_kernels,
                "Measure each problem's kernels in the reverse of the rule set's order");
  cmd->add_flag("--cold", a->settings.cold, "Evict the caches before every timed run");
  cmd->add_flag("--verify", a->settings.verify, "Check each kernel's result once");
  cmd->add_flag("--json", a->json, "Summary as JSON on stdout");
  cmd->add_flag("--no-progress", a->no_progress, "No progress line on stderr");
  cmd->add_flag("--stability", a->stability,
                "Re-measure shapes in fresh processes and report the winner flip rate");
  cmd->add_option("--processes", a->processes, "Processes for --stability")->capture_default_str();
  cmd->add_option("--tie-band", a->tie_band, "Relative band within which winners tie (--stability)")
      ->capture_default_str();
  cmd->add_option("--arch", a->arch,
                  "Target whose kernels to measure: only cpu (the default) runs here; GPU "
                  "targets' kernels (kselect configs --arch) are refused");
  return [a] {
    refuse_other_targets(*a);
    return a->stability ? run_stability(*a) : run_sweep(*a);
  };
});

}  // namespace
}  // namespace kselect::cli
