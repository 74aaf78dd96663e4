// The public C++ API (include/kselect/kselect.h) over the dispatcher (select/dispatcher.h).
#include <cmath>

#include "kselect/kselect.h"
#include "select/dispatcher.h"

namespace kselect {

namespace {

select::DispatchOptions dispatch_options(const SelectorOptions& o) {
  select::DispatchOptions d;
  d.model = o.model;
  d.op = o.op;
  d.selection.rules = o.rules;
  d.selection.rules_given = o.rules != SelectorOptions{}.rules;
  d.selection.cascade = o.cascade;
  d.selection.default_margin = o.default_margin;
  d.selection.all_candidates = o.all_candidates;
  d.strategy = select::parse_strategy(o.strategy);
  d.hybrid_top_k = o.hybrid_top_k;
  d.confidence_margin = o.confidence_margin;
  d.measure_budget_ms = o.measure_budget_ms;
  if (o.measure_repeats < 1) throw InputError("", 0, "measure_repeats", "must be at least 1");
  if (o.threads < 1) throw InputError("", 0, "threads", "must be at least 1");
  d.measure.repeats = o.measure_repeats;
  d.measure.threads = o.threads;
  d.cache_file = o.cache_file;
  d.lockfile = o.lockfile;
  d.replay_lockfile = o.replay_lockfile;
  d.controls = o.controls;
  d.require_model = o.require_model;
  d.verbose = o.verbose;
  d.log = o.log;
  return d;
}

}  // namespace

Selector::Selector(const SelectorOptions& options)
    : impl_(std::make_unique<select::Dispatcher>(dispatch_options(options))) {}
Selector::~Selector() = default;
Selector::Selector(Selector&&) noexcept = default;
Selector& Selector::operator=(Selector&&) noexcept = default;

std::string_view Selector::op() const {
  return impl_->op().name();
}
bool Selector::has_model() const {
  return impl_->has_model();
}
const std::vector<std::string>& Selector::kernels() const {
  return impl_->catalogue().names();
}

Problem Selector::problem(std::string_view text) const {
  std::string canonical = impl_->canonical(text);
  const std::size_t hash = select::ProblemKey::hash_of(canonical);
  return Problem(std::move(canonical), hash);
}

Selection Selector::to_selection(std::uint32_t kernel, int level, int decided_by) const {
  return Selection{impl_->catalogue().name(kernel), kernel,
                   select::to_string(select::Source(level)),
                   select::to_string(select::Source(decided_by))};
}

Selection Selector::select(const Problem& problem) {
  const select::Decision d = impl_->select(select::ProblemKey{problem.text(), problem.hash()});
  return to_selection(d.kernel, int(d.source), int(d.decided_by));
}

std::vector<RankedKernel> Selector::rank(const Problem& problem, int top) {
  std::vector<RankedKernel> out;
  for (const auto& k : impl_->explain(problem.text(), top).top)
    out.push_back({k.predicted.kernel, k.predicted.score, k.predicted.tflops,
                   k.predicted.latency_ms, k.measured_ms});
  return out;
}

std::string Selector::explain(const Problem& problem, bool json, int top) {
  const select::Explanation e = impl_->explain(problem.text(), top);
  return json ? e.to_json().dump(2) : e.to_table();
}

std::vector<std::string> Selector::operand_names(const Problem& problem) const {
  return impl_->op().operand_names(problem.text());
}

RunResult Selector::run(const Problem& problem, std::span<void* const> operands, bool verify) {
  const select::RunResult r = impl_->run(problem.text(), operands, verify);
  return {to_selection(r.decision.kernel, int(r.decision.source), int(r.decision.decided_by)), r.ms,
          r.verify_error};
}

void Selector::save_cache(const std::string& path) const {
  impl_->save_cache(path);
}
void Selector::save_lockfile(const std::string& path) const {
  impl_->save_lockfile(path);
}

Counters Selector::counters() const {
  const select::DispatchCounts c = impl_->counts();
  return {c.selects,          c.cache_hits,           c.cache_misses,
          c.cache_rebuilds,   c.model_fallbacks,      c.measured_decisions,
          c.kernels_measured, c.lockfile_replays,     c.controls.pins_applied,
          c.controls.denied,  c.controls.not_allowed, c.controls.over_workspace,
          c.measured_ms};
}

const char* version() {
  return KSELECT_VERSION;
}

}  // namespace kselect
