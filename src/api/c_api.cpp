// The C API (include/kselect/c_api.h) over kselect::Selector: every entry point catches,
// stores the message per thread and returns -1.
#include "kselect/c_api.h"

#include <algorithm>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "kselect/kselect.h"

struct KsSelectorImpl {
  kselect::Selector selector;
};
struct KsProblemImpl {
  kselect::Problem problem;
};

namespace {

thread_local std::string last_error;
thread_local std::string last_text;  // KsExplain's and KsCounters' result

template <typename F>
int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return -1;
}

void require(const void* p, const char* name) {
  if (!p) throw kselect::InputError("", 0, name, "is NULL");
}

template <typename T>
void read_field(const nlohmann::json& j, const char* key, T& into) {
  if (!j.contains(key)) return;
  try {
    into = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw kselect::InputError("", 0, key, "has the wrong type");
  }
}

kselect::SelectorOptions parse_options(const char* text) {
  kselect::SelectorOptions o;
  if (!text || !*text) return o;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw kselect::InputError("", 0, "options_json", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw kselect::InputError("", 0, "options_json", "must be a JSON object");
  static const char* known[] = {"model",
                                "op",
                                "rules",
                                "strategy",
                                "hybrid_top_k",
                                "confidence_margin",
                                "measure_budget_ms",
                                "measure_repeats",
                                "threads",
                                "cache_file",
                                "lockfile",
                                "replay_lockfile",
                                "controls",
                                "require_model",
                                "verbose",
                                "cascade",
                                "default_margin",
                                "all_candidates"};
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      throw kselect::InputError("", 0, key, "unknown option");
  read_field(j, "model", o.model);
  read_field(j, "op", o.op);
  read_field(j, "rules", o.rules);
  read_field(j, "strategy", o.strategy);
  read_field(j, "hybrid_top_k", o.hybrid_top_k);
  read_field(j, "confidence_margin", o.confidence_margin);
  read_field(j, "measure_budget_ms", o.measure_budget_ms);
  read_field(j, "measure_repeats", o.measure_repeats);
  read_field(j, "threads", o.threads);
  read_field(j, "cache_file", o.cache_file);
  read_field(j, "lockfile", o.lockfile);
  read_field(j, "replay_lockfile", o.replay_lockfile);
  read_field(j, "controls", o.controls);
  read_field(j, "require_model", o.require_model);
  read_field(j, "verbose", o.verbose);
  read_field(j, "cascade", o.cascade);
  read_field(j, "default_margin", o.default_margin);
  read_field(j, "all_candidates", o.all_candidates);
  return o;
}

}  // namespace

extern "C" {

const char* KsGetLastError(void) {
  return last_error.c_str();
}
const char* KsVersion(void) {
  return kselect::version();
}

int KsSelectorCreate(const char* options_json, KsSelector* out) {
  return guarded([&] {
    require(out, "out");
    *out = new KsSelectorImpl{kselect::Selector(parse_options(options_json))};
  });
}

int KsSelectorFree(KsSelector selector) {
  return guarded([&] { delete selector; });
}

int KsSelectorNumKernels(KsSelector selector, int* out) {
  return guarded([&] {
    require(selector, "selector"), require(out, "out");
    *out = int(selector->selector.kernels().size());
  });
}

int KsSelectorKernelName(KsSelector selector, int index, const char** out) {
  return guarded([&] {
    require(selector, "selector"), require(out, "out");
    const auto& kernels = selector->selector.kernels();
    if (index < 0 || std::size_t(index) >= kernels.size())
      throw kselect::InputError("", 0, "index",
                                "out of range (0.." + std::to_string(kernels.size()) + ")");
    *out = kernels[std::size_t(index)].c_str();
  });
}

int KsProblemCreate(KsSelector selector, const char* text, KsProblem* out) {
  return guarded([&] {
    require(selector, "selector"), require(text, "text"), require(out, "out");
    *out = new KsProblemImpl{selector->selector.problem(text)};
  });
}

int KsProblemFree(KsProblem problem) {
  return guarded([&] { delete problem; });
}

int KsProblemText(KsProblem problem, const char** out) {
  return guarded([&] {
    require(problem, "problem"), require(out, "out");
    *out = problem->problem.text().c_str();
  });
}

int KsSelect(KsSelector selector, KsProblem problem, const char** kernel, int* kernel_index,
             const char** level) {
  return guarded([&] {
    require(selector, "selector"), require(problem, "problem");
    const kselect::Selection s = selector->selector.select(problem->problem);
    // Names and levels are NUL-terminated strings owned by the selector and the library.
    if (kernel) *kernel = s.kernel.data();
    if (kernel_index) *kernel_index = int(s.kernel_index);
    if (level) *level = s.level.data();
  });
}

int KsExplain(KsSelector selector, KsProblem problem, int json, int top, const char** out) {
  return guarded([&] {
    require(selector, "selector"), require(problem, "problem"), require(out, "out");
    last_text = selector->selector.explain(problem->problem, json != 0, top);
    *out = last_text.c_str();
  });
}

int KsRun(KsSelector selector, KsProblem problem, void* const* operands, int num_operands,
          int verify, double* ms, const char** kernel) {
  return guarded([&] {
    require(selector, "selector"), require(problem, "problem"), require(operands, "operands");
    if (num_operands < 0) throw kselect::InputError("", 0, "num_operands", "must be >= 0");
    const auto r = selector->selector.run(
        problem->problem, std::span<void* const>(operands, std::size_t(num_operands)), verify != 0);
    if (!r.verify_error.empty())
      throw kselect::InputError("", 0, "verify", "the output is wrong: " + r.verify_error);
    if (ms) *ms = r.ms;
    if (kernel) *kernel = r.selection.kernel.data();
  });
}

int KsSaveCache(KsSelector selector, const char* path) {
  return guarded([&] {
    require(selector, "selector");
    selector->selector.save_cache(path ? path : "");
  });
}

int KsSaveLockfile(KsSelector selector, const char* path) {
  return guarded([&] {
    require(selector, "selector");
    selector->selector.save_lockfile(path ? path : "");
  });
}

int KsCounters(KsSelector selector, const char** out) {
  return guarded([&] {
    require(selector, "selector"), require(out, "out");
    const kselect::Counters c = selector->selector.counters();
    last_text = nlohmann::json{{"selects", c.selects},
                               {"cache_hits", c.cache_hits},
                               {"cache_misses", c.cache_misses},
                               {"cache_rebuilds", c.cache_rebuilds},
                               {"model_fallbacks", c.model_fallbacks},
                               {"measured_decisions", c.measured_decisions},
                               {"kernels_measured", c.kernels_measured},
                               {"lockfile_replays", c.lockfile_replays},
                               {"pins_applied", c.pins_applied},
                               {"denied", c.denied},
                               {"not_allowed", c.not_allowed},
                               {"over_workspace", c.over_workspace},
                               {"measured_ms", c.measured_ms}}
                    .dump();
    *out = last_text.c_str();
  });
}

}  // extern "C"
