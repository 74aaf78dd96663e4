#include "bench/stability.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "core/error.h"
#include "data/store.h"

extern char** environ;

namespace kselect::bench {

namespace {

bool tied(const data::Measurement& best, const data::Measurement& other, double tie_band) {
  bool within_band = other.median_ms <= best.median_ms * (1.0 + tie_band);
  bool overlapping = other.ci_low_ms <= best.ci_high_ms;
  return within_band || overlapping;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

int spawn_and_wait(const std::vector<std::string>& args, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Winner pick_winner(const std::vector<data::Measurement>& rows, double tie_band) {
  Winner w;
  const data::Measurement* best = nullptr;
  for (const auto& r : rows)
    if (r.valid && (!best || r.median_ms < best->median_ms)) best = &r;
  if (!best) return w;
  w.median_ms = best->median_ms;
  for (const auto& r : rows)
    if (r.valid && tied(*best, r, tie_band)) w.ties.push_back(r.kernel);
  std::sort(w.ties.begin(), w.ties.end());
  w.kernel = w.ties.front();
  return w;
}

StabilityReport analyse_stability(const std::vector<std::vector<data::Measurement>>& per_process,
                                  double tie_band) {
  // problem -> process -> rows
  std::map<std::string, std::vector<std::vector<data::Measurement>>> by_problem;
  for (size_t p = 0; p < per_process.size(); ++p)
    for (const auto& row : per_process[p]) {
      auto& slots = by_problem[row.problem];
      slots.resize(per_process.size());
      slots[p].push_back(row);
    }
  StabilityReport report;
  for (const auto& [problem, slots] : by_problem) {
    ShapeStability shape;
    shape.problem = problem;
    for (const auto& rows : slots) shape.winners.push_back(pick_winner(rows, tie_band));
    for (size_t i = 0; i < shape.winners.size(); ++i)
      for (size_t j = i + 1; j < shape.winners.size(); ++j) {
        const Winner &a = shape.winners[i], &b = shape.winners[j];
        if (a.kernel.empty() || b.kernel.empty()) continue;
        shape.comparisons += 1;
        if (a.kernel != b.kernel && !contains(a.ties, b.kernel) && !contains(b.ties, a.kernel))
          shape.flips += 1;
      }
    report.flips += shape.flips;
    report.comparisons += shape.comparisons;
    report.shapes.push_back(std::move(shape));
  }
  report.flip_rate = report.comparisons ? double(report.flips) / double(report.comparisons) : 0.0;
  return report;
}

nlohmann::json StabilityReport::to_json() const {
  nlohmann::json shapes_json = nlohmann::json::array();
  for (const auto& s : shapes) {
    nlohmann::json winners = nlohmann::json::array();
    for (const auto& w : s.winners)
      winners.push_back({{"kernel", w.kernel}, {"median_ms", w.median_ms}, {"ties", w.ties}});
    shapes_json.push_back({{"problem", s.problem},
                           {"winners", winners},
                           {"flips", s.flips},
                           {"comparisons", s.comparisons}});
  }
  return {{"flips", flips},
          {"comparisons", comparisons},
          {"flip_rate", flip_rate},
          {"shapes", shapes_json}};
}

void StabilityReport::print_table(std::ostream& out) const {
  // Kernel names are long: number them and print the legend below the table.
  std::map<std::string, int> ids;
  auto id_of = [&](const std::string& k) {
    return ids.emplace(k, int(ids.size()) + 1).first->second;
  };
  char line[256];
  for (const auto& s : shapes) {
    std::string cells;
    for (const auto& w : s.winners) {
      std::snprintf(line, sizeof line, "  #%-3d %9.4f ms (%zu tied)",
                    w.kernel.empty() ? 0 : id_of(w.kernel), w.median_ms, w.ties.size());
      cells += line;
    }
    out << (s.flips ? "FLIP  " : "same  ") << s.problem << "\n      " << cells << "\n";
  }
  std::snprintf(line, sizeof line, "flip rate: %ld of %ld process pairs (%.1f%%)\n", flips,
                comparisons, 100.0 * flip_rate);
  out << line;
  for (const auto& [kernel, id] : ids) out << "  #" << id << " " << kernel << "\n";
}

StabilityReport run_stability(const StabilityOptions& o, std::ostream& log) {
  if (o.processes < 2) throw InputError("", 0, "processes", "must be >= 2");
  std::vector<std::vector<data::Measurement>> per_process;
  for (int p = 0; p < o.processes; ++p) {
    std::string db = o.work_dir + "/process" + std::to_string(p) + ".sqlite";
    std::string log_path = o.work_dir + "/process" + std::to_string(p) + ".log";
    std::remove(db.c_str());
    log << "kselect bench --stability: process " << p + 1 << "/" << o.processes << "\n"
        << std::flush;
    int rc = spawn_and_wait(
        {o.exe, "bench", "--op", o.op, "--rules", o.rules, "--shapes", o.shapes_csv, "--db", db,
         "--warmup", std::to_string(o.warmup), "--repeat", std::to_string(o.repeat), "--threads",
         std::to_string(o.threads), "--no-progress"},
        log_path);
    if (rc != 0)
      throw InputError(
          "", 0, "stability",
          "measuring process failed (exit code " + std::to_string(rc) + "); see " + log_path);
    data::Store store(db, data::StoreOptions{.read_only = true});
    data::MeasurementFilter filter;
    filter.op = o.op;
    per_process.push_back(store.read_measurements(filter));
  }
  return analyse_stability(per_process, o.tie_band);
}

}  // namespace kselect::bench
