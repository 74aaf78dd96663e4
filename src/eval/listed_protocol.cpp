#include "eval/listed_protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "core/csv.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/hardware.h"
#include "core/key_values.h"
#include "core/progress.h"
#include "core/stats.h"
#include "eval/text_table.h"
#include "model/booster_fit.h"
#include "model/classify.h"
#include "model/folds.h"
#include "model/xgboost.h"
#include "ops/operation.h"

namespace kselect::eval {

namespace {
constexpr EnumNames<ListedMethod, 4> kMethodNames(
    "method", {{
                  {ListedMethod::kSpeed, "speed"},
                  {ListedMethod::kApplicability, "applicability"},
                  {ListedMethod::kJoint, "joint"},
                  {ListedMethod::kClassify, "classify"},
              }});
}  // namespace

std::string to_string(ListedMethod method) {
  return kMethodNames.name(method);
}

ListedMethod parse_listed_method(std::string_view name, const std::string& field) {
  return kMethodNames.parse(name, field);
}

namespace {

struct Listed {
  std::string kernel;
  double ms = 0;
};

struct Problem {
  std::string text, context;
  std::vector<const data::Measurement*> rows;  // valid listed rows
  std::vector<Listed> listed;                  // fastest first
  double best_ms = 0, slowest_ms = 0;
  double time_of(const std::string& kernel) const {
    for (const auto& l : listed)
      if (l.kernel == kernel) return l.ms;
    return std::nan("");
  }
};

// The problem's (dir, dtype) for the report: layout is context for candidates but would split
// the table too finely, except a 3-D layout (NCDHW, NDHWC: its depth letter D): 3-D problems
// have their own solvers and get their own rows.
std::string report_context(const std::string& problem) {
  KeyValues kv = KeyValues::parse(problem), out;
  for (const char* key : {"dir", "dtype"})
    if (auto v = kv.get(key)) out.set(key, *v);
  if (auto layout = kv.get("layout"); layout && layout->find('D') != std::string::npos)
    out.set("layout", *layout);
  return out.to_string();
}

std::vector<Problem> collect(const std::vector<data::Measurement>& rows, long& skipped) {
  std::map<std::string, Problem> by_text;
  for (const auto& m : rows) {
    if (m.op != imported_data_operation().name()) continue;
    Problem& p = by_text[m.problem];
    p.text = m.problem;
    if (m.valid && m.median_ms > 0 && std::isfinite(m.median_ms)) {
      p.rows.push_back(&m);
      p.listed.push_back({m.kernel, m.median_ms});
    }
  }
  std::vector<Problem> out;
  skipped = 0;
  for (auto& [text, p] : by_text) {
    if (p.listed.empty()) {
      ++skipped;
      continue;
    }
    std::stable_sort(p.listed.begin(), p.listed.end(),
                     [](const Listed& a, const Listed& b) { return a.ms < b.ms; });
    p.best_ms = p.listed.front().ms;
    p.slowest_ms = p.listed.back().ms;
    p.context = report_context(text);
    out.push_back(std::move(p));
  }
  if (out.empty())
    throw InputError("", 0, "op",
                     "no imported (" + std::string(imported_data_operation().name()) +
                         ") problem with a valid listed time: import a find-db first (kselect "
                         "import miopen-fdb)");
  return out;
}

// The outcome of one pick on one problem.
struct Outcome {
  std::string context;
  bool hit = false, tie = false, unlisted = false;
  double efficiency = 0, slowdown = 0;
  ListedPick pick;
};

Outcome judge(const Problem& p, const std::string& pick, double tie_band) {
  Outcome o;
  o.context = p.context;
  double ms = pick.empty() ? std::nan("") : p.time_of(pick);
  o.unlisted = std::isnan(ms);
  if (o.unlisted) ms = p.slowest_ms;  // upper bound of the efficiency
  o.hit = !o.unlisted && ms <= p.best_ms;
  o.tie = !o.unlisted && ms <= p.best_ms * (1 + tie_band);
  o.efficiency = p.best_ms / ms;
  o.slowdown = ms / p.best_ms - 1;
  o.pick = {.problem = p.text,
            .picked = pick,
            .best = p.listed.front().kernel,
            .unlisted = o.unlisted,
            .efficiency = o.efficiency,
            .context = p.context,
            .fold = 0,
            .listed = p.listed.size(),
            .baseline = {}};
  return o;
}

ListedStats summarize(const std::string& context, const std::vector<const Outcome*>& outcomes) {
  ListedStats s;
  s.context = context;
  s.problems = long(outcomes.size());
  if (outcomes.empty()) return s;
  std::vector<double> eff;
  for (const Outcome* o : outcomes) {
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

void summarize_all(const std::vector<Outcome>& outcomes, ListedStats& overall,
                   std::vector<ListedStats>& by_context) {
  std::map<std::string, std::vector<const Outcome*>> groups;
  std::vector<const Outcome*> all;
  for (const auto& o : outcomes) {
    groups[o.context].push_back(&o);
    all.push_back(&o);
  }
  overall = summarize("", all);
  by_context.clear();
  for (const auto& [context, list] : groups) by_context.push_back(summarize(context, list));
}

std::vector<std::string> candidates_of(const features::FeatureEngine& engine,
                                       const std::string& problem) {
  try {
    return engine.candidates(problem);
  } catch (const InputError&) {
    return {};  // a context never seen in training: no candidate, the pick is a miss
  }
}

// Pairwise-ranking grade of a kernel: 0 unlisted, else 1 + 10 x its efficiency (1..11).
float grade(const Problem& p, const std::string& kernel) {
  double ms = p.time_of(kernel);
  return std::isnan(ms) ? 0.0f : float(1 + std::round(10 * p.best_ms / ms));
}

// Trains the method's models on `train` problems and returns the pick for each `test` problem.
class FoldSelector {
 public:
  FoldSelector(const std::vector<const Problem*>& train,
               const std::map<std::string, nlohmann::json>& configs, const ListedOptions& o,
               Progress& progress, long& done)
      : options_(o) {
    std::vector<const data::Measurement*> rows;
    for (const Problem* p : train) rows.insert(rows.end(), p->rows.begin(), p->rows.end());
    engine_ = imported_data_operation().fitted_feature_engine(host_hardware(), rows, configs);
    model::RowBuilder builder(*engine_);
    cols_ = builder.cols();
    if (o.method == ListedMethod::kClassify) {
      fit_classifier(train, progress, done);
      return;
    }
    if (o.method != ListedMethod::kJoint) {
      model::LabelledRows speed;
      for (const Problem* p : train) {
        std::vector<std::string> kernels;
        for (const auto& l : p->listed) {
          kernels.push_back(l.kernel);
          speed.labels.push_back(float(std::log(l.ms)));
        }
        builder.append(p->text, kernels, speed.x);
      }
      speed_ = fit(speed, model::Loss::kSquaredError, progress, done);
    }
    if (o.method != ListedMethod::kSpeed) {
      const bool joint = o.method == ListedMethod::kJoint;
      model::LabelledRows all;
      for (const Problem* p : train) {
        auto kernels = candidates_of(*engine_, p->text);
        for (const auto& k : kernels)
          all.labels.push_back(joint ? grade(*p, k) : float(!std::isnan(p->time_of(k))));
        if (joint) all.groups.push_back(unsigned(kernels.size()));
        builder.append(p->text, kernels, all.x);
      }
      listed_ = fit(all, joint ? model::Loss::kPairwise : model::Loss::kLogistic, progress, done);
    }
  }

  // Picks of the model and of the baseline (most frequent winner) for `test`.
  void pick(const std::vector<const Problem*>& test, std::vector<std::string>& model_picks,
            std::vector<std::string>& baseline_picks) const {
    std::vector<std::vector<std::string>> candidates;
    for (const Problem* p : test) {
      candidates.push_back(candidates_of(*engine_, p->text));
      auto order = engine_->winner_order(p->text, candidates.back());
      baseline_picks.push_back(order.empty() ? "" : order.front());
    }
    model::RowBuilder builder(*engine_);
    if (options_.method == ListedMethod::kClassify) {
      pick_classes(test, candidates, model_picks);
      return;
    }
    std::vector<float> x;
    for (std::size_t i = 0; i < test.size(); ++i) builder.append(test[i]->text, candidates[i], x);
    const int threads = options_.boosting.threads;
    std::vector<float> speed =
        speed_ ? model::predict_rows(*speed_, x, cols_, threads) : std::vector<float>{};
    std::vector<float> listed =
        listed_ ? model::predict_rows(*listed_, x, cols_, threads) : std::vector<float>{};
    std::size_t row = 0;
    for (std::size_t i = 0; i < test.size(); ++i) {
      const auto& kernels = candidates[i];
      std::size_t best = kernels.size();
      for (std::size_t j = 0; j < kernels.size(); ++j)
        if (best == kernels.size() || better(speed, listed, row + j, row + best)) best = j;
      model_picks.push_back(best < kernels.size() ? kernels[best] : "");
      row += kernels.size();
    }
  }

 private:
  // Boosts options_.boosting.trees rounds of `loss`, one progress step each.
  std::unique_ptr<model::xgb::Booster> fit(const model::LabelledRows& rows, model::Loss loss,
                                           Progress& progress, long& done) const {
    const std::string label = model::xgboost_objective(loss);
    return model::fit_booster(rows, cols_, options_.boosting, loss,
                              [&] { progress.update(++done, label); });
  }

  // Whether candidate row a is preferred to row b.
  bool better(const std::vector<float>& speed, const std::vector<float>& listed, std::size_t a,
              std::size_t b) const {
    if (options_.method == ListedMethod::kSpeed) return speed[a] < speed[b];
    if (options_.method == ListedMethod::kJoint) return listed[a] > listed[b];
    bool la = listed[a] >= 0.5f, lb = listed[b] >= 0.5f;
    if (la != lb) return la;
    return la ? speed[a] < speed[b] : listed[a] > listed[b];
  }

  // model::KernelClassifier, the classifier `kselect train --objective classify` deploys: per
  // context a multi-class model of the fastest listed kernel from the problem's features alone.
  void fit_classifier(const std::vector<const Problem*>& train, Progress& progress, long& done) {
    problem_features_ = std::make_unique<model::ProblemFeatures>(
        *engine_, model::ProblemFeatures::names_of(*engine_));
    std::vector<model::ClassifyExample> examples;
    for (const Problem* p : train) examples.push_back({p->text, p->listed.front().kernel});
    model::ClassifierParams classifier;
    classifier.boosting = options_.boosting;
    // Progress advances by each context's share of the rows (its cost), `trees` in all.
    const int trees = options_.boosting.trees;
    const long start = done;
    auto advance = [&](double share, const std::string& context) {
      done = start + long(double(trees) * share);
      progress.update(done, "classify " + context);
    };
    classifier_ =
        model::KernelClassifier::fit(examples, *problem_features_, classifier, {}, advance);
    done = start + trees;
    progress.update(done, "classify");
  }

  // The most probable class among the candidates; none in a context never seen in training.
  void pick_classes(const std::vector<const Problem*>& test,
                    const std::vector<std::vector<std::string>>& candidates,
                    std::vector<std::string>& model_picks) const {
    std::vector<double> scores;
    for (std::size_t i = 0; i < test.size(); ++i) {
      classifier_.score(*problem_features_, test[i]->text, candidates[i], scores);
      auto best = std::max_element(scores.begin(), scores.end());
      bool none = best == scores.end() || *best == model::KernelClassifier::kNotAClass;
      model_picks.push_back(none ? "" : candidates[i][std::size_t(best - scores.begin())]);
    }
  }

  ListedOptions options_;
  std::unique_ptr<features::FeatureEngine> engine_;
  // After engine_, which it reads: members are destroyed in reverse order.
  std::unique_ptr<model::ProblemFeatures> problem_features_;
  model::KernelClassifier classifier_;
  std::size_t cols_ = 0;
  std::unique_ptr<model::xgb::Booster> speed_, listed_;
};

}  // namespace

ListedReport evaluate_listed(const std::vector<data::Measurement>& rows,
                             const std::map<std::string, nlohmann::json>& kernel_configs,
                             const ListedOptions& o) {
  if (o.folds < 2) throw InputError("", 0, "folds", "the strict protocol needs at least 2 folds");
  model::check_boosting(o.boosting);
  auto start = std::chrono::steady_clock::now();
  ListedReport report;
  report.method = o.method;
  report.folds = o.folds;
  report.tie_band = o.tie_band;
  std::vector<Problem> problems = collect(rows, report.skipped_no_time);
  report.problems = long(problems.size());
  std::set<std::string> kernels;
  for (const auto& p : problems) {
    report.rows += long(p.listed.size());
    for (const auto& l : p.listed) kernels.insert(l.kernel);
  }
  report.kernels = long(kernels.size());

  std::vector<std::string> groups;
  {
    std::vector<const data::Measurement*> all;
    for (const auto& p : problems) all.insert(all.end(), p.rows.begin(), p.rows.end());
    auto keys =
        imported_data_operation().fitted_feature_engine(host_hardware(), all, kernel_configs);
    for (const auto& p : problems) groups.push_back(keys->group_key(p.text));
  }
  std::vector<int> fold_of = model::group_k_fold(groups, o.folds);

  int models = o.method == ListedMethod::kApplicability ? 2 : 1;
  Progress progress("eval", long(o.folds) * models * o.boosting.trees, std::cerr, o.progress);
  long done = 0;
  std::vector<Outcome> outcomes, baseline;
  for (int fold = 0; fold < o.folds; ++fold) {
    std::vector<const Problem*> train, test;
    for (std::size_t i = 0; i < problems.size(); ++i)
      (fold_of[i] == fold ? test : train).push_back(&problems[i]);
    if (test.empty()) continue;
    FoldSelector selector(train, kernel_configs, o, progress, done);
    std::vector<std::string> picks, baseline_picks;
    selector.pick(test, picks, baseline_picks);
    for (std::size_t i = 0; i < test.size(); ++i) {
      outcomes.push_back(judge(*test[i], picks[i], o.tie_band));
      baseline.push_back(judge(*test[i], baseline_picks[i], o.tie_band));
      ListedPick& pick = outcomes.back().pick;
      pick.fold = fold;
      pick.baseline = baseline_picks[i];
    }
  }
  progress.finish();
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
  report.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

namespace {
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
