// The Python module `kselect`: kselect::Selector (include/kselect/kselect.h) with keyword
// arguments mirroring SelectorOptions, and read_store(), the measurements of a kselect store as
// a list of dicts (pandas.DataFrame(rows) takes it). Errors are Python exceptions carrying the
// library's message: kselect.InputError (a ValueError) and kselect.StorageError (an OSError).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/store.h"
#include "kselect/kselect.h"

namespace py = pybind11;

namespace {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return out;
    }
    default:
      return py::none();
  }
}

py::dict selection_dict(const kselect::Selection& s) {
  py::dict d;
  d["kernel"] = std::string(s.kernel);
  d["kernel_index"] = s.kernel_index;
  d["level"] = std::string(s.level);
  d["decided_by"] = std::string(s.decided_by);
  return d;
}

// A problem argument: a kselect.Problem or its text.
using ProblemArg = py::handle;

// The Python Selector: the C++ one, taking problems as Problem objects or text.
class PySelector {
 public:
  explicit PySelector(const kselect::SelectorOptions& o) : selector_(o) {}

  kselect::Problem problem(ProblemArg p) const {
    if (py::isinstance<kselect::Problem>(p)) return p.cast<kselect::Problem>();
    if (py::isinstance<py::str>(p)) return selector_.problem(p.cast<std::string>());
    throw py::type_error("a problem is a kselect.Problem or its text");
  }
  kselect::Selector& operator*() { return selector_; }
  kselect::Selector* operator->() { return &selector_; }

 private:
  kselect::Selector selector_;
};

py::object number_or_none(double v) {
  if (std::isnan(v)) return py::none();
  return py::float_(v);
}

py::list read_store(const std::string& path, const std::optional<std::string>& op,
                    const std::optional<std::string>& dtype, bool valid_only, long run_id,
                    bool with_repeats, bool latest_per_pair) {
  std::vector<kselect::data::Measurement> rows;
  {
    py::gil_scoped_release release;
    kselect::data::Store store(path, kselect::data::StoreOptions{.read_only = true});
    kselect::data::MeasurementFilter filter;
    filter.op = op.value_or("");
    filter.dtype = dtype.value_or("");
    filter.valid_only = valid_only;
    filter.run_id = run_id;
    filter.with_repeats = with_repeats;
    filter.latest_per_pair = latest_per_pair;
    rows = store.read_measurements(filter);
  }
  py::list out;
  for (const auto& m : rows) {
    py::dict d;
    d["op"] = m.op;
    d["problem"] = m.problem;
    // The problem's fields as columns (m, n, k, layout, dtype, ...); a measurement's own
    // column of the same name, set after them, wins.
    const nlohmann::json fields = kselect::data::problem_fields_json(m.problem);
    for (const auto& [k, v] : fields.items()) d[py::str(k)] = to_python(v);
    d["kernel"] = m.kernel;
    d["valid"] = m.valid;
    d["reason"] = m.reason;
    d["median_ms"] = m.median_ms;
    d["min_ms"] = m.min_ms;
    d["mean_ms"] = m.mean_ms;
    d["stddev_ms"] = m.stddev_ms;
    d["ci_low_ms"] = m.ci_low_ms;
    d["ci_high_ms"] = m.ci_high_ms;
    d["tflops"] = m.tflops;
    d["bandwidth_gb_s"] = m.bandwidth_gb_s;
    d["run_id"] = m.run_id;
    d["verified"] = m.verified;
    d["load1"] = m.load1;
    d["other_cpu"] = m.other_cpu;
    if (with_repeats) d["repeats_ms"] = m.repeats_ms;
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(kselect, m) {
  m.doc() = "kselect: learned kernel selection (include/kselect/kselect.h, docs/install.md)";
  py::register_exception<kselect::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<kselect::StorageError>(m, "StorageError", PyExc_OSError);
  m.attr("__version__") = kselect::version();

  py::class_<kselect::Problem>(m, "Problem")
      .def_property_readonly("text", &kselect::Problem::text)
      .def_property_readonly("hash", &kselect::Problem::hash)
      .def("__str__", &kselect::Problem::text)
      .def("__repr__",
           [](const kselect::Problem& p) { return "kselect.Problem('" + p.text() + "')"; });

  const kselect::SelectorOptions d;
  py::class_<PySelector>(m, "Selector")
      .def(py::init([](const std::string& model, const std::string& op, const std::string& rules,
                       const std::string& strategy, int hybrid_top_k, double confidence_margin,
                       double measure_budget_ms, int measure_repeats, int threads,
                       const std::string& cache_file, const std::string& lockfile,
                       bool replay_lockfile, const std::string& controls, bool require_model,
                       bool verbose, const std::string& cascade, double default_margin,
                       bool all_candidates, std::function<void(const std::string&)> log) {
             kselect::SelectorOptions o;
             o.model = model;
             o.op = op;
             o.rules = rules;
             o.strategy = strategy;
             o.hybrid_top_k = hybrid_top_k;
             o.confidence_margin = confidence_margin;
             o.measure_budget_ms = measure_budget_ms;
             o.measure_repeats = measure_repeats;
             o.threads = threads;
             o.cache_file = cache_file;
             o.lockfile = lockfile;
             o.replay_lockfile = replay_lockfile;
             o.controls = controls;
             o.require_model = require_model;
             o.verbose = verbose;
             o.cascade = cascade;
             o.default_margin = default_margin;
             o.all_candidates = all_candidates;
             if (log) o.log = std::move(log);
             return new PySelector(o);
           }),
           py::kw_only(), py::arg("model") = d.model, py::arg("op") = d.op,
           py::arg("rules") = d.rules, py::arg("strategy") = d.strategy,
           py::arg("hybrid_top_k") = d.hybrid_top_k,
           py::arg("confidence_margin") = d.confidence_margin,
           py::arg("measure_budget_ms") = d.measure_budget_ms,
           py::arg("measure_repeats") = d.measure_repeats, py::arg("threads") = d.threads,
           py::arg("cache_file") = d.cache_file, py::arg("lockfile") = d.lockfile,
           py::arg("replay_lockfile") = d.replay_lockfile, py::arg("controls") = d.controls,
           py::arg("require_model") = d.require_model, py::arg("verbose") = d.verbose,
           py::arg("cascade") = d.cascade, py::arg("default_margin") = d.default_margin,
           py::arg("all_candidates") = d.all_candidates, py::arg("log") = py::none())
      .def_property_readonly("op", [](PySelector& s) { return std::string(s->op()); })
      .def_property_readonly("has_model", [](PySelector& s) { return s->has_model(); })
      .def_property_readonly("kernels", [](PySelector& s) { return s->kernels(); })
      .def(
          "problem", [](PySelector& s, const std::string& text) { return s->problem(text); },
          py::arg("text"))
      .def(
          "select",
          [](PySelector& s, ProblemArg p) { return selection_dict(s->select(s.problem(p))); },
          py::arg("problem"))
      .def(
          "rank",
          [](PySelector& s, ProblemArg p, int top) {
            py::list out;
            for (const auto& r : s->rank(s.problem(p), top)) {
              py::dict d;
              d["kernel"] = r.kernel;
              d["score"] = number_or_none(r.score);
              d["predicted_tflops"] = number_or_none(r.predicted_tflops);
              d["predicted_latency_ms"] = number_or_none(r.predicted_latency_ms);
              d["measured_ms"] = number_or_none(r.measured_ms);
              out.append(d);
            }
            return out;
          },
          py::arg("problem"), py::arg("top") = 10)
      .def(
          "explain",
          [](PySelector& s, ProblemArg p, bool json, int top) -> py::object {
            const std::string text = s->explain(s.problem(p), json, top);
            if (!json) return py::str(text);
            return to_python(nlohmann::json::parse(text));
          },
          py::arg("problem"), py::arg("json") = true, py::arg("top") = 5)
      .def("operand_names",
           [](PySelector& s, ProblemArg p) { return s->operand_names(s.problem(p)); })
      .def(
          "save_cache", [](PySelector& s, const std::string& path) { s->save_cache(path); },
          py::arg("path") = "")
      .def(
          "save_lockfile", [](PySelector& s, const std::string& path) { s->save_lockfile(path); },
          py::arg("path") = "")
      .def("counters", [](PySelector& s) {
        const kselect::Counters c = s->counters();
        py::dict d;
        d["selects"] = c.selects;
        d["cache_hits"] = c.cache_hits;
        d["cache_misses"] = c.cache_misses;
        d["cache_rebuilds"] = c.cache_rebuilds;
        d["model_fallbacks"] = c.model_fallbacks;
        d["measured_decisions"] = c.measured_decisions;
        d["kernels_measured"] = c.kernels_measured;
        d["lockfile_replays"] = c.lockfile_replays;
        d["pins_applied"] = c.pins_applied;
        d["denied"] = c.denied;
        d["not_allowed"] = c.not_allowed;
        d["over_workspace"] = c.over_workspace;
        d["measured_ms"] = c.measured_ms;
        return d;
      });

  m.def("read_store", &read_store, py::arg("path"), py::kw_only(), py::arg("op") = py::none(),
        py::arg("dtype") = py::none(), py::arg("valid_only") = false, py::arg("run_id") = 0,
        py::arg("with_repeats") = false, py::arg("latest_per_pair") = false,
        "The measurements of a kselect store (kselect bench, import): one dict per measurement "
        "with the problem's fields as columns; pandas.DataFrame(rows) takes the list.");
}
