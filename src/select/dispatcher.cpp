#include "select/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.h"
#include "core/hardware.h"
#include "core/hash.h"
#include "model/neighbours.h"

namespace kselect::select {

namespace {

constexpr std::string_view kStrategyNames[] = {"auto", "ml", "default", "exhaustive", "hybrid"};
constexpr std::string_view kSourceNames[] = {"pinned",   "lockfile", "cache",
                                             "measured", "model",    "default"};

std::optional<Source> parse_source(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kSourceNames); ++i)
    if (kSourceNames[i] == text) return Source(i);
  return std::nullopt;
}

bool env_verbose() {
  const char* v = std::getenv("KSELECT_VERBOSE");
  return v && *v && std::string_view(v) != "0";
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The model's content: every file of its directory and of its blend or route members' (which
// may lie outside it), in path order.
std::string model_fingerprint(const std::filesystem::path& dir) {
  Fnv1a h;
  const model::FeatureSpec spec = model::FeatureSpec::load(dir);
  for (const auto& member : spec.route) h.field(member).field(model_fingerprint(dir / member));
  for (const auto& member : spec.blend)
    h.field(member.model).field(model_fingerprint(dir / member.model));
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) {
      const std::string name = e.path().filename().string();
      if (name == "feature_spec.json" || name == model::NeighbourTable::kFile ||
          name.rfind("model_", 0) == 0)
        files.push_back(e.path());
    }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    h.field(std::filesystem::relative(f, dir).generic_string()).field(file_text(f));
  return h.hex();
}

std::string strategy_fingerprint(const DispatchOptions& o) {
  Fnv1a h;
  h.field(to_string(o.strategy)).field(std::to_string(o.hybrid_top_k));
  h.field(std::to_string(o.confidence_margin)).field(o.selection.cascade);
  h.field(std::to_string(o.selection.default_margin));
  h.field(o.selection.all_candidates ? "all" : "shortlist");
  return h.hex();
}

}  // namespace

std::string_view to_string(Strategy s) {
  return kStrategyNames[std::size_t(s)];
}
std::string_view to_string(Source s) {
  return kSourceNames[std::size_t(s)];
}

Strategy parse_strategy(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kStrategyNames); ++i)
    if (kStrategyNames[i] == text) return Strategy(i);
  throw InputError("", 0, "strategy",
                   "unknown strategy '" + std::string(text) +
                       "' (known: auto, ml, default, exhaustive, hybrid)");
}

// Everything one decision found out; select() keeps the kernel and the level, explain() all.
struct Dispatcher::Detail {
  Decision decision;
  std::string strategy;  // what decided
  std::vector<std::string> notes;
  std::vector<model::OutOfRange> out_of_range;
  std::vector<Scored> ranked;      // the model's ranking, or the default order
  std::vector<Measured> measured;  // what the strategy measured
  std::size_t supported = 0;
  std::vector<Rejection> rejected;
};

Dispatcher::Dispatcher(DispatchOptions options) : options_(std::move(options)) {
  options_.verbose = options_.verbose || env_verbose();
  if (options_.hybrid_top_k < 1) throw InputError("", 0, "hybrid_top_k", "must be at least 1");
  if (!std::isfinite(options_.measure_budget_ms) || options_.measure_budget_ms < 0)
    throw InputError("", 0, "measure_budget_ms", "must be a number of milliseconds >= 0");
  if (!options_.model.empty()) {
    try {
      model_ = std::make_unique<ModelSelector>(
          ModelSelector::load(options_.model, options_.op, options_.selection));
    } catch (const std::exception& e) {
      if (options_.require_model) throw;
      model_missing_ = "model " + options_.model.string() + " not used: " + e.what();
      log(model_missing_ + "; deciding by the default order");
    }
  }
  if (model_) {
    op_ = &model_->op();
    catalogue_ = &model_->catalogue();
  } else {
    if (options_.op.empty())
      throw InputError("", 0, "op",
                       options_.model.empty() ? "give an op or a model"
                                              : "the model could not be loaded: give an op");
    op_ = &find_operation(options_.op);
    if (!op_->capabilities().kernels_from_rule_sets)
      throw InputError("", 0, "model",
                       "the " + std::string(op_->name()) +
                           " op ranks the kernels a model saw in training: it needs a model" +
                           (model_missing_.empty() ? "" : " (" + model_missing_ + ")"));
    own_catalogue_ =
        op_->catalogue(rule_set_catalogue(*op_, options_.selection.rules, rule_set_size_));
    catalogue_ = own_catalogue_.get();
  }
  in_default_set_.assign(catalogue_->size(), 0);
  if (op_->capabilities().kernels_from_rule_sets)
    for (const auto& k : op_->kernel_names("default", KeyValues{}))
      if (auto i = catalogue_->find(k); i != KernelCatalogue::npos) in_default_set_[i] = 1;
  std::string controls_text;
  if (!options_.controls.empty()) {
    controls_ = Controls::load(options_.controls, *op_, *catalogue_);
    controls_text = file_text(options_.controls);
  }
  Fnv1a catalogue_hash;
  for (const auto& k : catalogue_->names()) catalogue_hash.field(k);
  catalogue_hash.field(controls_text);
  keys_.hardware = Fnv1a().add(nlohmann::json(host_hardware()).dump()).hex();
  keys_.catalogue = catalogue_hash.hex();
  keys_.model = Fnv1a()
                    .field(model_ ? model_fingerprint(options_.model) : "no model")
                    .field(strategy_fingerprint(options_))
                    .hex();
  if (options_.replay_lockfile) load_lockfile();
  if (!options_.cache_file.empty() && std::filesystem::exists(options_.cache_file))
    load_cache_file();
}

Dispatcher::~Dispatcher() = default;

void Dispatcher::log(const std::string& line) const {
  if (options_.log)
    options_.log(line);
  else
    std::cerr << "kselect: " << line << "\n";
}

std::string Dispatcher::canonical(std::string_view text, const std::string& source) const {
  return op_->canonical_problem(text, source);
}

// Reads the cache file; a stale or corrupt one is dropped (it will be rebuilt by save_cache),
// logged and counted, never silently trusted.
void Dispatcher::load_cache_file() {
  try {
    DecisionFile file = read_decision_file(options_.cache_file, "decision cache");
    if (!(file.keys == keys_)) {
      std::string what = file.keys.hardware != keys_.hardware ? "the hardware"
                         : file.keys.catalogue != keys_.catalogue
                             ? "the kernel catalogue or controls"
                             : "the model or strategy";
      ++rebuilds_;
      log("decision cache " + options_.cache_file.string() + " is stale (" + what +
          " changed): rebuilding it");
      return;
    }
    std::vector<std::pair<std::string, CachedDecision>> entries;
    long line = 2;
    for (const auto& l : file.lines) {
      ++line;
      const std::size_t kernel = catalogue_->find(l.kernel);
      auto source = parse_source(l.source);
      if (kernel == KernelCatalogue::npos)
        throw InputError(options_.cache_file.string(), line, "kernel",
                         "unknown kernel '" + l.kernel + "'");
      if (!source)
        throw InputError(options_.cache_file.string(), line, "source",
                         "unknown source '" + l.source + "'");
      entries.emplace_back(l.problem, CachedDecision{std::uint32_t(kernel), std::uint8_t(*source)});
    }
    for (const auto& [problem, d] : entries)
      cache_.insert(ProblemKey{problem, ProblemKey::hash_of(problem)}, d);
  } catch (const InputError& e) {
    ++rebuilds_;
    log("decision cache is corrupt (" + std::string(e.what()) + "): rebuilding it");
  }
}

// A lockfile's decisions are replayed as they are: a kernel the catalogue lacks is an error,
// since the decisions could no longer be reproduced.
void Dispatcher::load_lockfile() {
  if (options_.lockfile.empty())
    throw InputError("", 0, "lockfile", "replaying needs a lockfile path");
  DecisionFile file = read_decision_file(options_.lockfile, "lockfile");
  if (!(file.keys == keys_))
    log("lockfile " + options_.lockfile.string() +
        " was written with another hardware, catalogue or model: replaying its decisions as "
        "recorded");
  long line = 2;
  for (const auto& l : file.lines) {
    ++line;
    const std::size_t kernel = catalogue_->find(l.kernel);
    if (kernel == KernelCatalogue::npos)
      throw InputError(options_.lockfile.string(), line, "kernel",
                       "unknown kernel '" + l.kernel + "': the lockfile cannot be replayed");
    if (!parse_source(l.source))
      throw InputError(options_.lockfile.string(), line, "source",
                       "unknown source '" + l.source + "'");
    const std::string problem = canonical(l.problem, options_.lockfile.string());
    cache_.insert(
        ProblemKey{problem, ProblemKey::hash_of(problem)},
        CachedDecision{std::uint32_t(kernel), std::uint8_t(*parse_source(l.source)), true});
  }
}

std::vector<std::uint32_t> Dispatcher::supported(std::string_view problem) const {
  if (model_) return model_->candidates(problem);
  std::vector<std::uint32_t> out = catalogue_->supported(problem);
  // Only the rule set's kernels are candidates; the default set's extra ones are not.
  out.erase(std::remove_if(out.begin(), out.end(), [&](auto i) { return i >= rule_set_size_; }),
            out.end());
  return out;
}

// The op's no-model order: the `default` set's kernels first (the first is the no-model pick),
// then the others, each part in the op's heuristic order.
std::vector<std::uint32_t> Dispatcher::default_order(
    std::string_view problem, std::span<const std::uint32_t> candidates) const {
  std::vector<std::string> first, rest;
  for (std::uint32_t i : candidates)
    (in_default_set_[i] ? first : rest).push_back(catalogue_->name(i));
  std::vector<std::uint32_t> out;
  auto append = [&](std::vector<std::string> names) {
    if (op_->capabilities().kernels_from_rule_sets)
      names = op_->heuristic_order(problem, std::move(names));
    else if (model_)
      names = model_->ranker().engine().winner_order(problem, std::move(names));
    for (const auto& n : names) out.push_back(std::uint32_t(catalogue_->find(n)));
  };
  append(std::move(first));
  append(std::move(rest));
  return out;
}

void Dispatcher::rank_with_model(std::string_view problem,
                                 std::span<const std::uint32_t> candidates, Detail& d) {
  d.ranked = model_->rank(problem, candidates).ranked;
}

// Measures `kernels` (one at a time across threads: concurrent runs would disturb each other)
// and returns the fastest; the first when none ran.
std::uint32_t Dispatcher::measure_best(std::string_view problem,
                                       std::span<const std::uint32_t> kernels, Detail& d) {
  const auto start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(measure_mutex_);
  d.measured = measure_kernels(*op_, *catalogue_, problem, kernels, options_.measure);
  measured_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++measured_decisions_;
  kernels_measured_ += kernels.size();
  const Measured* best = nullptr;
  for (const auto& m : d.measured) {
    if (!m.error.empty()) {
      d.notes.push_back("measuring " + catalogue_->name(m.kernel) + " failed: " + m.error);
      continue;
    }
    if (!best || m.ms < best->ms) best = &m;
  }
  if (!best) {
    d.notes.push_back("no measured kernel ran: keeping the first of the order");
    return kernels.front();
  }
  return best->kernel;
}

// auto: the model where it can be trusted, measuring where it cannot. Out of range: a problem
// field outside the values the model was trained on (FeatureSpec::training_ranges).
// Unconfident: the pick is predicted less than confidence_margin faster than the runner-up,
// so the model's error decides between them. Either sends the problem to hybrid while the
// measurement budget lasts.
Strategy Dispatcher::resolve_auto(std::string_view problem, Detail& d) {
  const bool can_measure = op_->capabilities().kernels_from_rule_sets;
  double spent = 0;
  {
    std::lock_guard<std::mutex> lock(measure_mutex_);
    spent = measured_ms_;
  }
  const bool budget_left = can_measure && spent < options_.measure_budget_ms;
  if (!model_) {
    d.notes.push_back("auto without a model: " +
                      std::string(budget_left ? "measuring the default order's top k"
                                              : "the default order (no measurement budget left)"));
    return budget_left ? Strategy::kHybrid : Strategy::kDefault;
  }
  model::FeatureSpec ranges;
  ranges.training_ranges = model_->training_ranges();
  d.out_of_range = model::outside_training_ranges(ranges, std::string(problem));
  std::string doubt;
  if (ranges.training_ranges.empty())
    d.notes.push_back("the model records no training ranges: the range check is skipped");
  if (!d.out_of_range.empty()) doubt = "the problem lies outside the model's training ranges";
  if (doubt.empty() && d.ranked.size() >= 2) {
    const double first = d.ranked[0].speed, second = d.ranked[1].speed;
    if (std::isnan(first) || std::isnan(second))
      d.notes.push_back("the model predicts no speeds: its confidence is not judged");
    else if (first < (1 + options_.confidence_margin) * second) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "the model is not confident: its pick is predicted %.1f%% faster than the "
                    "runner-up (margin %.1f%%)",
                    100 * (first / second - 1), 100 * options_.confidence_margin);
      doubt = text;
    }
  }
  if (doubt.empty()) {
    d.notes.push_back("auto: the model (inside its training ranges and confident)");
    return Strategy::kModel;
  }
  if (!budget_left) {
    d.notes.push_back("auto: " + doubt + ", but the measurement budget is spent: the model");
    return Strategy::kModel;
  }
  d.notes.push_back("auto: " + doubt + ": measuring the model's top " +
                    std::to_string(options_.hybrid_top_k));
  return Strategy::kHybrid;
}

Dispatcher::Detail Dispatcher::decide(std::string_view problem, bool explain) {
  Detail d;
  const std::vector<std::uint32_t> candidates = supported(problem);
  d.supported = candidates.size();
  if (explain && op_->capabilities().kernels_from_rule_sets)
    for (std::uint32_t i = 0; i < catalogue_->size(); ++i) {
      if (std::find(candidates.begin(), candidates.end(), i) != candidates.end()) continue;
      std::string why = catalogue_->unsupported_reason(i, problem);
      if (why.empty()) why = "not in rule set '" + options_.selection.rules + "'";
      d.rejected.push_back({i, "unsupported", std::move(why)});
    }
  const std::vector<std::uint32_t> allowed =
      controls_.filter(problem, candidates, *catalogue_, explain ? &d.rejected : nullptr);

  std::optional<std::uint32_t> pinned = controls_.pinned(problem);
  if (pinned) {
    const std::string why = catalogue_->unsupported_reason(*pinned, problem);
    if (why.empty()) {
      d.decision = {*pinned, Source::kPinned, Source::kPinned};
      d.strategy = "pinned";
      d.notes.push_back("pinned by the controls: " + catalogue_->name(*pinned));
      if (!explain) return d;
    } else {
      log("pin " + catalogue_->name(*pinned) + " cannot run " + std::string(problem) + " (" + why +
          "): ignored");
      d.notes.push_back("the pin " + catalogue_->name(*pinned) + " cannot run the problem: " + why);
      pinned.reset();
    }
  }
  if (allowed.empty()) {
    if (pinned) return d;
    throw InputError(
        "", 0, "problem",
        "no kernel of rule set '" + options_.selection.rules + "' can run " + std::string(problem) +
            (candidates.empty() ? std::string()
                                : " within the controls (" + std::to_string(candidates.size()) +
                                      " support it; the allow and deny lists and "
                                      "the workspace budget exclude them all)"));
  }

  Strategy strategy = options_.strategy;
  const bool wants_model = strategy != Strategy::kDefault && strategy != Strategy::kExhaustive;
  bool model_failed = false;
  if (model_ && (wants_model || explain)) {
    try {
      rank_with_model(problem, allowed, d);
    } catch (const InputError& e) {
      model_failed = true;
      d.ranked.clear();
      ++fallbacks_;
      log("the model cannot rank " + std::string(problem) + " (" + e.what() +
          "): deciding by the default order");
      d.notes.push_back(std::string("the model cannot rank the problem: ") + e.what());
    }
  }
  if (strategy == Strategy::kAuto)
    strategy = model_failed ? Strategy::kDefault : resolve_auto(problem, d);
  if (strategy == Strategy::kModel && (!model_ || model_failed)) {
    if (!model_failed) {
      ++fallbacks_;
      d.notes.push_back("no model" + (model_missing_.empty() ? "" : " (" + model_missing_ + ")") +
                        ": the default order");
    }
    strategy = Strategy::kDefault;
  }
  const bool ranked_by_model = !d.ranked.empty();
  std::vector<std::uint32_t> order;
  if (ranked_by_model && strategy != Strategy::kDefault && strategy != Strategy::kExhaustive)
    for (const auto& s : d.ranked) order.push_back(std::uint32_t(catalogue_->find(s.kernel)));
  else
    order = default_order(problem, allowed);
  if (!ranked_by_model && explain)
    for (std::uint32_t i : order) d.ranked.push_back(Scored{catalogue_->name(i)});

  std::uint32_t pick = order.front();
  Source source =
      ranked_by_model && strategy == Strategy::kModel ? Source::kModel : Source::kDefault;
  if (strategy == Strategy::kHybrid && !model_) ++fallbacks_;
  if (strategy == Strategy::kExhaustive) {
    pick = measure_best(problem, order, d);
    source = Source::kMeasured;
  } else if (strategy == Strategy::kHybrid) {
    const std::size_t k = std::min<std::size_t>(order.size(), std::size_t(options_.hybrid_top_k));
    pick = measure_best(problem, std::span(order).first(k), d);
    source = Source::kMeasured;
  }
  d.strategy = std::string(to_string(strategy));
  if (!pinned) d.decision = {pick, source, source};
  return d;
}

Decision Dispatcher::select(const ProblemKey& key) {
  CachedDecision cached;
  if (cache_.find(key, cached)) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    const Decision d{cached.kernel, cached.locked ? Source::kLockfile : Source::kCache,
                     Source(cached.source)};
    if (cached.locked) replays_.fetch_add(1, std::memory_order_relaxed);
    if (options_.verbose)
      log("select," + std::string(key.text) + "," + catalogue_->name(d.kernel) + "," +
          std::string(to_string(d.source)) + "," + std::string(to_string(d.decided_by)));
    return d;
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  const Detail detail = decide(key.text, false);
  cache_.insert(key, {detail.decision.kernel, std::uint8_t(detail.decision.decided_by), false});
  if (options_.verbose)
    log("select," + std::string(key.text) + "," + catalogue_->name(detail.decision.kernel) + "," +
        std::string(to_string(detail.decision.source)) + "," + detail.strategy);
  return detail.decision;
}

Explanation Dispatcher::explain(std::string_view problem, int top) {
  Detail d = decide(problem, true);
  Explanation e;
  e.problem = std::string(problem);
  e.strategy = std::string(to_string(options_.strategy));
  e.decided_strategy = d.strategy;
  e.kernel = catalogue_->name(d.decision.kernel);
  e.source = std::string(to_string(d.decision.source));
  e.notes = d.notes;
  // The explained decision is the one select() gives: a problem decided before keeps its
  // decision (a fresh one, which measurement noise may change, is only noted); one decided
  // now is kept like select()'s.
  const ProblemKey key{problem, ProblemKey::hash_of(problem)};
  CachedDecision held;
  if (cache_.find(key, held)) {
    const std::string& kept = catalogue_->name(held.kernel);
    if (kept != e.kernel)
      e.notes.push_back("decided afresh: " + e.kernel + " (" + e.source + "); the " +
                        (held.locked ? "lockfile" : "cache") + " holds " + kept);
    e.kernel = kept;
    e.source = std::string(to_string(held.locked ? Source::kLockfile : Source::kCache));
    e.cached_kernel = kept;
  } else {
    cache_.insert(key, {d.decision.kernel, std::uint8_t(d.decision.decided_by), false});
  }
  e.out_of_range = d.out_of_range;
  e.candidates = d.supported;
  for (auto& r : d.rejected) e.rejected.emplace_back(catalogue_->name(r.kernel), std::move(r));
  const std::size_t n = top <= 0 ? d.ranked.size() : std::min(d.ranked.size(), std::size_t(top));
  for (std::size_t i = 0; i < n; ++i) {
    ExplainedKernel k{d.ranked[i]};
    for (const auto& m : d.measured)
      if (catalogue_->name(m.kernel) == k.predicted.kernel) k.measured_ms = m.ms;
    e.top.push_back(std::move(k));
  }
  for (const auto& m : d.measured) {  // measured kernels beyond the shown ranking
    const std::string& name = catalogue_->name(m.kernel);
    if (std::none_of(e.top.begin(), e.top.end(),
                     [&](auto& k) { return k.predicted.kernel == name; }))
      e.top.push_back({Scored{name}, m.ms});
  }
  if (model_) {
    try {
      const auto& engine = model_->ranker().engine();
      const auto& features = model_->ranker().spec().features;
      const std::vector<int> columns = engine.columns_of(features, "model");
      const std::vector<std::string> one{e.kernel};
      std::vector<float> row(columns.size());
      engine.extract_rows(problem, *engine.prepare(one), columns, row.data());
      for (std::size_t i = 0; i < columns.size(); ++i) e.features[features[i]] = row[i];
    } catch (const std::exception& ex) {
      e.notes.push_back(std::string("features not shown: ") + ex.what());
    }
  }
  return e;
}

RunResult Dispatcher::run(std::string_view problem, std::span<void* const> operands, bool verify) {
  RunResult r;
  r.decision = select(problem);
  auto workload = op_->wrap_buffers(problem, operands);
  auto bound = op_->bind(catalogue_->name(r.decision.kernel), *workload, options_.measure.threads);
  const auto start = std::chrono::steady_clock::now();
  bound->run();
  r.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (verify) r.verify_error = bound->verify();
  return r;
}

void Dispatcher::write(const std::filesystem::path& path, const std::string& kind) const {
  DecisionFile file{kind, keys_, {}};
  for (const auto& [problem, d] : cache_.entries())
    file.lines.push_back(
        {problem, catalogue_->name(d.kernel), std::string(to_string(Source(d.source)))});
  write_decision_file(path, std::move(file));
}

void Dispatcher::save_cache(const std::filesystem::path& path) const {
  const auto& target = path.empty() ? options_.cache_file : path;
  if (target.empty()) throw InputError("", 0, "cache_file", "no decision cache file was given");
  write(target, "decision cache");
}

void Dispatcher::save_lockfile(const std::filesystem::path& path) const {
  const auto& target = path.empty() ? options_.lockfile : path;
  if (target.empty()) throw InputError("", 0, "lockfile", "no lockfile was given");
  write(target, "lockfile");
}

DispatchCounts Dispatcher::counts() const {
  DispatchCounts c;
  c.cache_hits = hits_.load();
  c.cache_misses = misses_.load();
  c.selects = c.cache_hits + c.cache_misses;
  c.cache_rebuilds = rebuilds_.load();
  c.model_fallbacks = fallbacks_.load();
  c.measured_decisions = measured_decisions_.load();
  c.kernels_measured = kernels_measured_.load();
  c.lockfile_replays = replays_.load();
  {
    std::lock_guard<std::mutex> lock(measure_mutex_);
    c.measured_ms = measured_ms_;
  }
  c.controls = controls_.counts();
  return c;
}

}  // namespace kselect::select
