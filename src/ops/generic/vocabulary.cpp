#include "ops/generic/vocabulary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.h"
#include "data/winners.h"
#include "ops/generic/derived.h"

namespace kselect::generic {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const char* const kContextFields[] = {"dir", "dtype", "layout"};

// The text of a parameter value as a category (strings as they are, bools true/false).
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

double numeric_value(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string())
    if (auto d = parse_double(v.get<std::string>()); d && std::isfinite(*d)) return *d;
  return kNaN;
}

using Problems = data::RowsByProblem;
using data::fastest;
using data::speed;

// Values of one field or parameter over the training items, with a score per occurrence.
struct Observed {
  std::vector<std::string> order;  // keys in first-seen order
  std::map<std::string, std::map<std::string, std::pair<double, long>>> scores;  // key->value->
  std::map<std::string, long> present;
  std::map<std::string, bool> numeric;
  std::map<std::string, bool> positive;

  void add(const std::string& key, const std::string& text, bool is_number, double score,
           double number) {
    if (!present.count(key)) order.push_back(key), numeric[key] = true, positive[key] = true;
    ++present[key];
    numeric[key] = numeric[key] && is_number;
    positive[key] = positive[key] && is_number && number > 0;
    auto& s = scores[key][text];
    if (std::isfinite(score)) s.first += score;
    ++s.second;
  }
};

// Category codes: by mean score (ties and "alphabetical" by text).
std::vector<std::string> order_codes(const std::map<std::string, std::pair<double, long>>& values,
                                     const std::string& encoding) {
  std::vector<std::pair<double, std::string>> keyed;
  for (const auto& [text, s] : values)
    keyed.emplace_back(encoding == "target" ? s.first / double(s.second) : 0.0, text);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> codes;
  for (auto& [score, text] : keyed) codes.push_back(text);
  return codes;
}

// Columns of the keys that vary over `total` items (a constant column carries nothing).
std::vector<Column> make_columns(const Observed& o, long total, const std::string& encoding,
                                 bool log_only_positive) {
  std::vector<Column> columns;
  for (const auto& key : o.order) {
    const auto& values = o.scores.at(key);
    if (values.size() <= 1 && o.present.at(key) == total) continue;
    Column c;
    c.key = key;
    c.categorical = !o.numeric.at(key);
    c.log = !c.categorical && (!log_only_positive || o.positive.at(key));
    if (c.categorical) c.codes = order_codes(values, encoding);
    columns.push_back(std::move(c));
  }
  return columns;
}

nlohmann::json column_json(const Column& c) {
  nlohmann::json j = {{"key", c.key}, {"categorical", c.categorical}, {"log", c.log}};
  if (c.categorical) j["codes"] = c.codes;
  return j;
}

Column column_from(const nlohmann::json& j) {
  Column c;
  c.key = j.at("key").get<std::string>();
  c.categorical = j.at("categorical").get<bool>();
  c.log = j.value("log", false);
  if (c.categorical) c.codes = j.at("codes").get<std::vector<std::string>>();
  return c;
}

double code_of(const Column& c, const std::string& text) {
  auto it = std::find(c.codes.begin(), c.codes.end(), text);
  return it == c.codes.end() ? kNaN : double(it - c.codes.begin());
}

// Writes the feature(s) of one column: the code, or the number and its log.
double* write_column(const Column& c, const std::optional<std::string>& text, double number,
                     double* out) {
  if (c.categorical) {
    *out++ = text ? code_of(c, *text) : kNaN;
    return out;
  }
  *out++ = number;
  if (c.log) *out++ = std::isfinite(number) ? log_feature(number) : kNaN;
  return out;
}

// A kernel name of the form k1=v1,k2=v2 (Kernel Tuner) as a parameter object; empty otherwise.
nlohmann::json params_from_name(const std::string& name) {
  nlohmann::json params = nlohmann::json::object();
  if (name.find('=') == std::string::npos) return params;
  try {
    KeyValues fields = KeyValues::parse(name);
    for (const auto& [k, v] : fields.items()) params[k] = v;
  } catch (const InputError&) {
    return nlohmann::json::object();
  }
  return params;
}

Problems group_rows(std::span<const data::Measurement* const> rows) {
  Problems problems = data::valid_rows_by_problem(rows);
  if (problems.empty())
    throw InputError("", 0, "", "the generic op needs valid measurements with a time to fit on");
  return problems;
}

}  // namespace

GenericVocabulary GenericVocabulary::fit(std::span<const data::Measurement* const> rows,
                                         const std::map<std::string, nlohmann::json>& configs,
                                         const FitOptions& options) {
  if (options.encoding != "target" && options.encoding != "alphabetical")
    throw InputError("", 0, "encoding", "expected target or alphabetical");
  Problems problems = group_rows(rows);
  GenericVocabulary v;
  v.encoding_ = options.encoding;
  Observed fields, params;
  std::map<std::string, KeyValues> parsed;
  bool conv = true, gemm = true;
  for (const auto& [problem, ms] : problems) {
    KeyValues kv = KeyValues::parse(problem, "problem");
    conv = conv && has_conv_fields(kv);
    gemm = gemm && has_gemm_fields(kv);
    // Problem categories are ordered by how fast the problem's best kernel runs.
    double score = std::log2(speed(*fastest(ms)));
    for (const auto& [key, value] : kv.items()) {
      if (key == "device") continue;  // context: which GPU, never a feature
      auto number = parse_double(value);
      bool is_number = number && std::isfinite(*number);
      fields.add(key, value, is_number, score, is_number ? *number : 0);
    }
    Context& ctx = v.contexts_[context(kv)];
    ++ctx.wins[fastest(ms)->kernel];
    for (const auto* m : ms) ctx.kernels.push_back(m->kernel);
  }
  for (auto& [key, ctx] : v.contexts_) {
    std::sort(ctx.kernels.begin(), ctx.kernels.end());
    ctx.kernels.erase(std::unique(ctx.kernels.begin(), ctx.kernels.end()), ctx.kernels.end());
  }
  // Kernel parameter values are ordered by the mean efficiency (speed / best speed of the
  // problem) of the kernels that have them, each kernel weighted once.
  std::map<std::string, std::pair<double, long>> kernel_eff;
  for (const auto& [problem, ms] : problems) {
    double best = speed(*fastest(ms));
    for (const auto* m : ms) {
      auto& e = kernel_eff[m->kernel];
      e.first += speed(*m) / best, ++e.second;
    }
  }
  for (const auto& [kernel, eff] : kernel_eff) {
    auto it = configs.find(kernel);
    v.configs_[kernel] =
        it != configs.end() && it->second.is_object() ? it->second : nlohmann::json::object();
    for (const auto& [key, value] : v.configs_[kernel].items()) {
      if (key == "name") continue;  // the kernel's own name: the id column covers it
      params.add(key, value_text(value), value.is_number(), eff.first / double(eff.second),
                 numeric_value(value));
    }
  }
  v.problem_ = make_columns(fields, long(problems.size()), v.encoding_, false);
  v.conv_ = conv;
  v.gemm_ = gemm && !conv;
  v.params_ = make_columns(params, long(kernel_eff.size()), v.encoding_, true);
  v.kernel_id_ = std::none_of(v.params_.begin(), v.params_.end(),
                              [](const Column& c) { return !c.categorical; });
  if (v.kernel_id_) {
    v.id_.key = "id";
    v.id_.categorical = true;
    std::map<std::string, std::pair<double, long>> ids(kernel_eff.begin(), kernel_eff.end());
    v.id_.codes = order_codes(ids, v.encoding_);
  }
  v.build_features();
  return v;
}

void GenericVocabulary::build_features() {
  features_.clear();
  for (const auto& c : problem_) {
    features_.push_back("p_" + c.key);
    if (c.log) features_.push_back("p_log_" + c.key);
  }
  if (conv_)
    features_.insert(features_.end(), conv_feature_names().begin(), conv_feature_names().end());
  if (gemm_)
    features_.insert(features_.end(), gemm_feature_names().begin(), gemm_feature_names().end());
  problem_width_ = features_.size();
  for (const auto& c : params_) {
    features_.push_back("k_" + c.key);
    if (c.log) features_.push_back("k_log_" + c.key);
  }
  if (kernel_id_) features_.push_back("k_id");
}

std::vector<std::string> GenericVocabulary::categorical() const {
  std::vector<std::string> names;
  for (const auto& c : problem_)
    if (c.categorical) names.push_back("p_" + c.key);
  for (const auto& c : params_)
    if (c.categorical) names.push_back("k_" + c.key);
  if (kernel_id_) names.push_back("k_id");
  return names;
}

void GenericVocabulary::problem_values(const KeyValues& problem, double* out) const {
  for (const auto& c : problem_) {
    auto text = problem.get(c.key);
    auto number = text ? parse_double(*text) : std::nullopt;
    out = write_column(c, text, number && std::isfinite(*number) ? *number : kNaN, out);
  }
  if (conv_) conv_features(problem, out);
  if (gemm_) gemm_features(problem, out);
}

void GenericVocabulary::kernel_values(const std::string& kernel, double* out) const {
  auto it = configs_.find(kernel);
  const nlohmann::json config = it != configs_.end() ? it->second : params_from_name(kernel);
  for (const auto& c : params_) {
    auto value = config.find(c.key);
    if (value == config.end()) {
      out = write_column(c, std::nullopt, kNaN, out);
      continue;
    }
    out = write_column(c, value_text(*value), numeric_value(*value), out);
  }
  if (kernel_id_) *out = code_of(id_, kernel);
}

void GenericVocabulary::add_kernels(const std::map<std::string, nlohmann::json>& kernel_configs) {
  for (const auto& [name, config] : kernel_configs)
    if (config.is_object()) configs_.emplace(name, config);
}

std::string GenericVocabulary::context(const KeyValues& problem) {
  std::string out;
  for (const char* key : kContextFields)
    if (auto v = problem.get(key)) out += (out.empty() ? "" : ",") + std::string(key) + "=" + *v;
  return out;
}

std::vector<std::string> GenericVocabulary::candidates(std::string_view problem) const {
  std::string ctx = context(KeyValues::parse(problem, "problem"));
  auto it = contexts_.find(ctx);
  if (it != contexts_.end()) return it->second.kernels;
  std::string seen;
  for (const auto& [key, c] : contexts_) seen += (seen.empty() ? "" : "; ") + key;
  throw InputError("", 0, "problem",
                   "no kernel was seen in training with " + (ctx.empty() ? "no context" : ctx) +
                       " (the model knows: " + seen + ")");
}

std::vector<std::string> GenericVocabulary::winner_order(std::string_view problem,
                                                         std::vector<std::string> kernels) const {
  auto it = contexts_.find(context(KeyValues::parse(problem, "problem")));
  if (it == contexts_.end()) return kernels;
  const auto& wins = it->second.wins;
  auto count = [&](const std::string& k) {
    auto w = wins.find(k);
    return w == wins.end() ? 0L : w->second;
  };
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](const auto& a, const auto& b) { return count(a) > count(b); });
  return kernels;
}

std::vector<std::string> GenericVocabulary::kernels() const {
  std::vector<std::string> names;
  for (const auto& [name, config] : configs_) names.push_back(name);
  return names;
}

nlohmann::json GenericVocabulary::to_json() const {
  nlohmann::json fields = nlohmann::json::array(), params = nlohmann::json::array();
  for (const auto& c : problem_) fields.push_back(column_json(c));
  for (const auto& c : params_) params.push_back(column_json(c));
  nlohmann::json contexts = nlohmann::json::object();
  for (const auto& [key, c] : contexts_) contexts[key] = {{"kernels", c.kernels}, {"wins", c.wins}};
  return {{"engine", "generic"},
          {"encoding", encoding_},
          {"problem_fields", fields},
          {"derived", {{"conv", conv_}, {"gemm", gemm_}}},
          {"kernel_params", params},
          {"kernel_id", kernel_id_ ? nlohmann::json(id_.codes) : nlohmann::json()},
          {"kernels", configs_},
          {"contexts", contexts},
          {"features", features_}};
}

GenericVocabulary GenericVocabulary::from_json(const nlohmann::json& j, const std::string& where) {
  GenericVocabulary v;
  try {
    v.encoding_ = j.value("encoding", "target");
    for (const auto& c : j.at("problem_fields")) v.problem_.push_back(column_from(c));
    v.conv_ = j.at("derived").value("conv", false);
    v.gemm_ = j.at("derived").value("gemm", false);
    for (const auto& c : j.at("kernel_params")) v.params_.push_back(column_from(c));
    if (!j.at("kernel_id").is_null()) {
      v.kernel_id_ = true;
      v.id_ = {"id", true, false, j.at("kernel_id").get<std::vector<std::string>>()};
    }
    v.configs_ = j.at("kernels").get<std::map<std::string, nlohmann::json>>();
    for (const auto& [key, c] : j.at("contexts").items())
      v.contexts_[key] = {c.at("kernels").get<std::vector<std::string>>(),
                          c.at("wins").get<std::map<std::string, long>>()};
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, 0, "engine_state", std::string("malformed: ") + e.what());
  }
  v.build_features();
  if (j.contains("features") && j["features"] != nlohmann::json(v.features_))
    throw InputError(where, 0, "engine_state.features",
                     "does not match the columns the state describes");
  return v;
}

}  // namespace kselect::generic
