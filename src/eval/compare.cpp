#include "eval/compare.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "eval/text_table.h"

namespace kselect::eval {

namespace {
using nlohmann::json;

// Rounding in the JSON round trip must not turn an exact limit into a rejection.
constexpr double kSlackPoints = 1e-9;

const json& require(const json& j, const char* key, json::value_t type, const std::string& source,
                    const std::string& where) {
  std::string field = where.empty() ? key : where + "." + key;
  if (!j.is_object() || !j.contains(key)) throw InputError(source, 0, field, "missing");
  const json& v = j.at(key);
  bool ok = type == json::value_t::number_float ? v.is_number() : v.type() == type;
  if (!ok)
    throw InputError(source, 0, field,
                     std::string("expected ") + (type == json::value_t::string  ? "a string"
                                                 : type == json::value_t::array ? "an array"
                                                                                : "a number"));
  return v;
}

Criterion criterion(std::string name, double baseline, double candidate, double limit_points) {
  Criterion c{std::move(name), baseline, candidate, 100.0 * (candidate - baseline), -limit_points};
  c.pass = c.delta >= c.limit - kSlackPoints;
  return c;
}

std::vector<double> efficiencies(const EvalRun& run, const std::vector<std::string>& problems) {
  std::vector<double> out;
  for (const auto& p : problems) out.push_back(run.problems.at(p).efficiency);
  return out;
}
}  // namespace

EvalRun run_from_json(const json& j, const std::string& source) {
  const json& rows = require(j, "per_problem", json::value_t::array, source, "");
  EvalRun run;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string where = "per_problem[" + std::to_string(i) + "]";
    auto problem =
        require(rows[i], "problem", json::value_t::string, source, where).get<std::string>();
    double eff =
        require(rows[i], "efficiency", json::value_t::number_float, source, where).get<double>();
    auto picked =
        require(rows[i], "picked", json::value_t::string, source, where).get<std::string>();
    if (!(eff >= 0 && eff <= 1 + 1e-9))
      throw InputError(source, 0, where + ".efficiency",
                       "expected a fraction in [0, 1], got " + std::to_string(eff));
    if (!run.problems.emplace(problem, EvalRun::Problem{eff, picked}).second)
      throw InputError(source, 0, where + ".problem", "repeated problem '" + problem + "'");
  }
  return run;
}

EvalRun load_run(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open evaluation report");
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw InputError(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
  return run_from_json(j, path);
}

CompareResult compare(const EvalRun& baseline, const EvalRun& candidate,
                      const CompareOptions& options) {
  CompareResult r;
  std::vector<std::string> common;
  for (const auto& [problem, b] : baseline.problems)
    if (candidate.problems.count(problem)) common.push_back(problem);
  r.common = long(common.size());
  r.only_baseline = long(baseline.problems.size()) - r.common;
  r.only_candidate = long(candidate.problems.size()) - r.common;
  if (common.empty()) throw InputError("", 0, "per_problem", "the two reports share no problem");
  r.baseline = summarize(efficiencies(baseline, common));
  r.candidate = summarize(efficiencies(candidate, common));
  long agree = 0;
  for (const auto& p : common) {
    const auto& b = baseline.problems.at(p);
    const auto& c = candidate.problems.at(p);
    double delta = 100.0 * (c.efficiency - b.efficiency);
    if (delta > options.same_points)
      ++r.improved;
    else if (delta < -options.same_points)
      ++r.degraded;
    else
      ++r.same;
    agree += b.picked == c.picked;
    if (delta < -options.drop_points - kSlackPoints)
      r.drops.push_back({p, b.efficiency, c.efficiency});
  }
  r.agreement = double(agree) / double(r.common);
  std::stable_sort(r.drops.begin(), r.drops.end(), [](const auto& x, const auto& y) {
    return x.baseline - x.candidate > y.baseline - y.candidate;
  });
  r.criteria = {criterion("mean", r.baseline.mean, r.candidate.mean, options.mean_points),
                criterion("median", r.baseline.p50, r.candidate.p50, options.median_points),
                criterion("p10", r.baseline.p10, r.candidate.p10, options.p10_points)};
  // The problem-level rule is judged on the problem that drops the most.
  std::string worst = common.front();
  for (const auto& p : common)
    if (candidate.problems.at(p).efficiency - baseline.problems.at(p).efficiency <
        candidate.problems.at(worst).efficiency - baseline.problems.at(worst).efficiency)
      worst = p;
  r.criteria.push_back(criterion("max_problem_drop", baseline.problems.at(worst).efficiency,
                                 candidate.problems.at(worst).efficiency, options.drop_points));
  r.accepted = std::all_of(r.criteria.begin(), r.criteria.end(), [](auto& c) { return c.pass; });
  return r;
}

void to_json(json& j, const CompareResult& r) {
  j = {{"accepted", r.accepted},           {"common", r.common},
       {"only_baseline", r.only_baseline}, {"only_candidate", r.only_candidate},
       {"improved", r.improved},           {"same", r.same},
       {"degraded", r.degraded},           {"agreement", r.agreement}};
  j["criteria"] = json::array();
  for (const auto& c : r.criteria)
    j["criteria"].push_back({{"name", c.name},
                             {"baseline", c.baseline},
                             {"candidate", c.candidate},
                             {"delta_points", c.delta},
                             {"limit_points", c.limit},
                             {"pass", c.pass}});
  j["drops"] = json::array();
  for (const auto& d : r.drops)
    j["drops"].push_back(
        {{"problem", d.problem}, {"baseline", d.baseline}, {"candidate", d.candidate}});
}

std::string format_comparison(const CompareResult& r) {
  TextTable rules({"rule", "baseline", "candidate", "delta (points)", "limit", "verdict"});
  for (const auto& c : r.criteria)
    rules.add({c.name, percent(c.baseline), percent(c.candidate), fixed(c.delta, 2),
               "at least " + fixed(c.limit, 2), c.pass ? "pass" : "FAIL"});
  std::string out = rules.str() + "\n";
  out += std::to_string(r.common) + " common problems (" + std::to_string(r.only_baseline) +
         " only in baseline, " + std::to_string(r.only_candidate) +
         " only in candidate): " + std::to_string(r.improved) + " improved, " +
         std::to_string(r.same) + " same, " + std::to_string(r.degraded) +
         " degraded; selection agreement " + percent(r.agreement, 1) + "\n";
  if (!r.drops.empty()) {
    TextTable drops({"dropped problem", "baseline", "candidate"});
    for (const auto& d : r.drops) drops.add({d.problem, percent(d.baseline), percent(d.candidate)});
    out += "\n";
    out += drops.str();
  }
  out += std::string("\nverdict: ") + (r.accepted ? "ACCEPTED" : "REJECTED") + "\n";
  return out;
}

}  // namespace kselect::eval
