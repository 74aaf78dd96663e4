#include "eval/listed_report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/csv.h"
#include "core/stats.h"
#include "eval/text_table.h"

namespace kselect::eval {

namespace {

ListedStats summarize(const std::string& context,
                      const std::vector<const ListedOutcome*>& outcomes) {
  ListedStats s;
  s.context = context;
  s.problems = long(outcomes.size());
  if (outcomes.empty()) return s;
  std::vector<double> eff;
  for (const ListedOutcome* o : outcomes) {
    s.top1 += o->hit;
    s.top1_tie_band += o->tie;
    s.unlisted += o->unlisted;
    s.mean_slowdown += o->slowdown;
    eff.push_back(o->efficiency);
  }
  double n = double(outcomes.size());
  s.top1 /= n, s.top1_tie_band /= n, s.unlisted /= n, s.mean_slowdown /= n;
  for (double e : eff) s.mean_efficiency += e / n;
  s.p10_efficiency = percentile(eff, 10);
  return s;
}

void summarize_all(const std::vector<ListedOutcome>& outcomes, ListedStats& overall,
                   std::vector<ListedStats>& by_context) {
  std::map<std::string, std::vector<const ListedOutcome*>> groups;
  std::vector<const ListedOutcome*> all;
  for (const auto& o : outcomes) {
    groups[o.context].push_back(&o);
    all.push_back(&o);
  }
  overall = summarize("", all);
  by_context.clear();
  for (const auto& [context, list] : groups) by_context.push_back(summarize(context, list));
}

nlohmann::json stats_json(const ListedStats& s) {
  return {{"context", s.context},
          {"problems", s.problems},
          {"top1", s.top1},
          {"top1_tie_band", s.top1_tie_band},
          {"unlisted", s.unlisted},
          {"mean_slowdown", s.mean_slowdown},
          {"efficiency", {{"mean", s.mean_efficiency}, {"p10", s.p10_efficiency}}}};
}

nlohmann::json stats_list(const std::vector<ListedStats>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : list) out.push_back(stats_json(s));
  return out;
}

}  // namespace

void summarize_outcomes(const std::vector<ListedOutcome>& outcomes,
                        const std::vector<ListedOutcome>& baseline, ListedReport& report) {
  summarize_all(outcomes, report.overall, report.by_context);
  for (const auto& o : outcomes) report.picks.push_back(o.pick);
  std::sort(report.picks.begin(), report.picks.end(),
            [](const ListedPick& a, const ListedPick& b) { return a.problem < b.problem; });
  auto worse = [](const ListedPick& a, const ListedPick& b) {
    return a.unlisted != b.unlisted ? a.unlisted : a.efficiency < b.efficiency;
  };
  report.worst.resize(std::min<std::size_t>(10, report.picks.size()));
  std::partial_sort_copy(report.picks.begin(), report.picks.end(), report.worst.begin(),
                         report.worst.end(), worse);
  summarize_all(baseline, report.baseline, report.baseline_by_context);
}

nlohmann::json ListedReport::to_json() const {
  nlohmann::json j = stats_json(overall);
  j.erase("context");
  j["protocol"] = "strict-listed";
  j["method"] = to_string(method);
  j["tie_band"] = tie_band;
  j["folds"] = folds;
  j["rows"] = rows;
  j["kernels"] = kernels;
  j["skipped_no_time"] = skipped_no_time;
  j["slices"] = {{"context", stats_list(by_context)}};
  nlohmann::json base = stats_json(baseline);
  base.erase("context");
  base["name"] = "most frequent winner per context";
  base["slices"] = stats_list(baseline_by_context);
  j["baseline"] = base;
  j["seconds"] = train_seconds;
  nlohmann::json worst_list = nlohmann::json::array();
  for (const auto& w : worst)
    worst_list.push_back({{"problem", w.problem},
                          {"picked", w.picked},
                          {"best", w.best},
                          {"unlisted", w.unlisted},
                          {"efficiency", w.efficiency}});
  j["worst"] = worst_list;
  return j;
}

std::string listed_picks_csv(const ListedReport& r) {
  std::ostringstream out;
  out << "problem,context,fold,picked,best,listed,unlisted,efficiency,baseline\n";
  out.precision(6);
  for (const auto& p : r.picks)
    out << csv_quote(p.problem) << ',' << csv_quote(p.context) << ',' << p.fold << ','
        << csv_quote(p.picked) << ',' << csv_quote(p.best) << ',' << p.listed << ','
        << (p.unlisted ? 1 : 0) << ',' << p.efficiency << ',' << csv_quote(p.baseline) << '\n';
  return out.str();
}

std::string listed_report_text(const ListedReport& r) {
  std::ostringstream out;
  out << "strict protocol (listed-only data), method " << to_string(r.method) << ", " << r.folds
      << "-fold CV grouped on geometry: " << r.problems << " problems, " << r.rows
      << " listed rows, " << r.kernels << " kernels";
  if (r.skipped_no_time) out << " (" << r.skipped_no_time << " problems without a valid time)";
  out << "\n\n";
  TextTable table({"context", "problems", "top1", "top1 (tie " + percent(r.tie_band, 0) + ")",
                   "unlisted", "slowdown", "eff mean", "eff P10", "baseline top1",
                   "baseline unlisted", "baseline eff"});
  auto pct = [](double v) { return percent(v, 1); };
  auto add = [&](const ListedStats& s, const ListedStats& b) {
    table.add({s.context.empty() ? "all" : s.context, std::to_string(s.problems), pct(s.top1),
               pct(s.top1_tie_band), pct(s.unlisted), pct(s.mean_slowdown), pct(s.mean_efficiency),
               pct(s.p10_efficiency), pct(b.top1), pct(b.unlisted), pct(b.mean_efficiency)});
  };
  for (std::size_t i = 0; i < r.by_context.size(); ++i)
    add(r.by_context[i], r.baseline_by_context[i]);
  add(r.overall, r.baseline);
  out << table.str();
  out << "\nunlisted: picks the data does not list for the problem (misses; their efficiency "
         "assumes the slowest listed time, an upper bound)\n";
  return out.str();
}

}  // namespace kselect::eval
