#include "model/feature_spec.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/key_values.h"
#include "data/measurement.h"
#include "model/file_io.h"

namespace kselect::model {

const Prior* FeatureSpec::prior(const std::string& target) const {
  auto it = priors.find(target);
  return it == priors.end() ? nullptr : &it->second;
}

bool FeatureSpec::is_log(const std::string& target) const {
  return std::find(log_targets.begin(), log_targets.end(), target) != log_targets.end();
}

double FeatureSpec::scale(const std::string& target) const {
  auto it = target_scales.find(target);
  return it == target_scales.end() ? 1.0 : it->second;
}

double FeatureSpec::encode(const std::string& target, double value) const {
  double v = value * scale(target);
  return is_log(target) ? std::log1p(v) : v;
}

double FeatureSpec::decode(const std::string& target, double prediction) const {
  if (objective == Objective::kEfficiency) return std::exp(prediction);
  double v = is_log(target) ? std::expm1(prediction) : prediction;
  return v / scale(target);
}

void widen_ranges(std::map<std::string, FieldRange>& ranges,
                  const std::map<std::string, FieldRange>& more) {
  for (const auto& [field, range] : more) {
    auto [it, added] = ranges.emplace(field, range);
    if (!added)
      it->second = {std::min(it->second.min, range.min), std::max(it->second.max, range.max)};
  }
}

void combine_shortlists(FeatureSpec& combined, const std::vector<FeatureSpec>& members) {
  combined.shortlist.clear();
  combined.shortlist_tolerance = 0;
  if (std::any_of(members.begin(), members.end(),
                  [](const FeatureSpec& s) { return s.shortlist.empty(); }))
    return;
  std::set<std::string> shortlist;
  for (const FeatureSpec& s : members) {
    shortlist.insert(s.shortlist.begin(), s.shortlist.end());
    combined.shortlist_tolerance = std::max(combined.shortlist_tolerance, s.shortlist_tolerance);
  }
  combined.shortlist.assign(shortlist.begin(), shortlist.end());
}

bool higher_is_better(const std::string& target) {
  return target != "latency";
}

double score_sign(Objective objective, const std::string& target) {
  return objective == Objective::kRegression && !higher_is_better(target) ? -1.0 : 1.0;
}

double predicted_speed(Objective objective, const std::string& target, double decoded) {
  if (objective == Objective::kEfficiency) return decoded;
  if (objective != Objective::kRegression) return std::nan("");
  return higher_is_better(target) ? decoded : 1.0 / decoded;
}

int required_format_version(const FeatureSpec& spec) {
  if (!spec.route.empty()) return 6;
  if (!spec.blend.empty()) return spec.blend_survivors > 0 ? 5 : 4;
  if (!spec.priors.empty()) return 3;
  return spec.objective == Objective::kClassify ? 2 : 1;
}

void to_json(nlohmann::json& j, const FeatureSpec& s) {
  j = nlohmann::json{{"format", "kselect-model"},
                     {"format_version", required_format_version(s)},
                     {"op", s.op},
                     {"dtype", s.dtype},
                     {"hardware", s.hardware},
                     {"schema", s.schema},
                     {"feature_names", s.features},
                     {"categorical_features", s.categorical},
                     {"targets", s.targets},
                     {"log_targets", s.log_targets},
                     {"target_scales", s.target_scales},
                     {"objective", to_string(s.objective)},
                     {"params", s.params}};
  if (!s.engine_state.is_null()) j["engine_state"] = s.engine_state;
  if (!s.data_op.empty()) j["data_op"] = s.data_op;
  if (!s.where.empty()) j["where"] = s.where;
  if (!s.classifier.is_null()) j["classifier"] = s.classifier;
  j["time_statistic"] = s.time_statistic;
  if (!s.feature_revisions.empty()) j["feature_revisions"] = s.feature_revisions;
  for (const auto& [target, prior] : s.priors)
    j["priors"][target] = {{"feature", prior.feature}, {"scale", prior.scale}};
  if (!s.shortlist.empty())
    j["shortlist"] = {{"tolerance", s.shortlist_tolerance}, {"kernels", s.shortlist}};
  for (const auto& m : s.blend) j["blend"].push_back({{"model", m.model}, {"weight", m.weight}});
  if (!s.blend.empty() && s.blend_survivors > 0) j["blend_survivors"] = s.blend_survivors;
  if (!s.route.empty()) j["route"] = s.route;
  for (const auto& [field, range] : s.training_ranges)
    j["training_ranges"][field] = nlohmann::json::array({range.min, range.max});
}

namespace {
// CK Tile's dispatcher writes feature_spec.json without kselect's format fields:
// {op_type, dtype, arch, feature_names, categorical_features, targets, log_targets, params}
// (../shared/reference/ck-heuristics.md, section 6). Its GEMM models train log1p(TFLOPS) on the
// ck55/ck72 feature names, which kselect's GEMM engine computes under the same names.
bool is_ck_spec(const nlohmann::json& j) {
  return !j.contains("format_version") && j.contains("op_type");
}

void ck_spec_from_json(const nlohmann::json& j, FeatureSpec& s) {
  s = FeatureSpec{};
  s.format_version = 1;
  const auto op_type = j.at("op_type").get<std::string>();
  s.op = op_type.rfind("gemm", 0) == 0 ? "gemm" : op_type;
  s.dtype = j.at("dtype").get<std::string>();
  s.schema = "ck";
  s.features = j.at("feature_names").get<std::vector<std::string>>();
  s.categorical = j.value("categorical_features", std::vector<std::string>{});
  s.targets = j.value("targets", std::vector<std::string>{"tflops"});
  // A list of targets, or one flag for all of them.
  const nlohmann::json logs = j.value("log_targets", nlohmann::json(true));
  s.log_targets = logs.is_boolean() ? (logs.get<bool>() ? s.targets : std::vector<std::string>{})
                                    : logs.get<std::vector<std::string>>();
  s.params = j.value("params", nlohmann::json::object());
  s.params["ck_arch"] = j.value("arch", "");
  s.params["ck_op_type"] = op_type;
}
}  // namespace

void from_json(const nlohmann::json& j, FeatureSpec& s) {
  if (is_ck_spec(j)) return ck_spec_from_json(j, s);
  s.format_version = j.at("format_version").get<int>();
  s.op = j.at("op").get<std::string>();
  s.dtype = j.at("dtype").get<std::string>();
  s.hardware = j.value("hardware", nlohmann::json::object()).get<HardwareProfile>();
  s.schema = j.value("schema", "");
  s.features = j.at("feature_names").get<std::vector<std::string>>();
  s.categorical = j.value("categorical_features", std::vector<std::string>{});
  s.targets = j.at("targets").get<std::vector<std::string>>();
  s.log_targets = j.value("log_targets", std::vector<std::string>{});
  s.target_scales = j.value("target_scales", std::map<std::string, double>{});
  s.objective = parse_objective(j.value("objective", to_string(Objective::kRegression)));
  s.params = j.value("params", nlohmann::json::object());
  s.engine_state = j.value("engine_state", nlohmann::json());
  s.data_op = j.value("data_op", "");
  s.where = j.value("where", "");
  s.classifier = j.value("classifier", nlohmann::json());
  s.time_statistic = j.value("time_statistic", "median");
  s.feature_revisions = j.value("feature_revisions", std::map<std::string, int>{});
  s.priors.clear();
  const nlohmann::json priors = j.value("priors", nlohmann::json::object());
  for (const auto& [target, prior] : priors.items())
    s.priors[target] = {prior.at("feature").get<std::string>(), prior.at("scale").get<double>()};
  const nlohmann::json shortlist = j.value("shortlist", nlohmann::json::object());
  s.shortlist = shortlist.value("kernels", std::vector<std::string>{});
  s.shortlist_tolerance = shortlist.value("tolerance", 0.0);
  s.blend.clear();
  for (const auto& m : j.value("blend", nlohmann::json::array()))
    s.blend.push_back({m.at("model").get<std::string>(), m.at("weight").get<double>()});
  s.blend_survivors = j.value("blend_survivors", std::size_t(0));
  s.route = j.value("route", std::vector<std::string>{});
  const nlohmann::json ranges = j.value("training_ranges", nlohmann::json::object());
  for (const auto& [field, range] : ranges.items())
    s.training_ranges[field] = {range.at(0).get<double>(), range.at(1).get<double>()};
}

namespace {
int revision(const std::map<std::string, int>& revisions, const std::string& name) {
  auto it = revisions.find(name);
  return it == revisions.end() ? 1 : it->second;
}
}  // namespace

std::vector<std::string> stale_features(const FeatureSpec& spec,
                                        const std::map<std::string, int>& engine_revisions) {
  std::vector<std::string> stale;
  for (const auto& name : spec.features)
    if (revision(spec.feature_revisions, name) != revision(engine_revisions, name))
      stale.push_back(name);
  return stale;
}

std::map<std::string, int> revisions_of(const std::vector<std::string>& features,
                                        const std::map<std::string, int>& engine_revisions) {
  std::map<std::string, int> out;
  for (const auto& name : features)
    if (revision(engine_revisions, name) != 1) out[name] = revision(engine_revisions, name);
  return out;
}

namespace {
// A feature, target or shortlisted kernel listed twice shifts or doubles what a model reads:
// every list of names in a spec holds each name once.
void check_unique(const std::vector<std::string>& names, const std::string& field,
                  const std::string& where) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty())
      throw StorageError(where + ": " + field + "[" + std::to_string(i) + "] is empty");
    if (!seen.insert(names[i]).second)
      throw StorageError(where + ": " + field + " lists '" + names[i] + "' twice (again at " +
                         std::to_string(i) + ")");
  }
}

// Each name of `subset` is one of `names`.
void check_subset(const std::vector<std::string>& subset, const std::string& field,
                  const std::vector<std::string>& names, const std::string& of,
                  const std::string& where) {
  const std::set<std::string> known(names.begin(), names.end());
  for (const auto& name : subset)
    if (!known.count(name))
      throw StorageError(where + ": " + field + " lists '" + name + "', which is not in " + of);
}

void check_names(const FeatureSpec& spec, const std::string& where) {
  check_unique(spec.features, "feature_names", where);
  check_unique(spec.categorical, "categorical_features", where);
  check_subset(spec.categorical, "categorical_features", spec.features, "feature_names", where);
  if (predicts_speed(spec.objective) && spec.targets.empty())
    throw StorageError(where + ": targets is empty");
  check_unique(spec.targets, "targets", where);
  check_subset(spec.log_targets, "log_targets", spec.targets, "targets", where);
  check_unique(spec.shortlist, "shortlist", where);
}
}  // namespace

FeatureSpec FeatureSpec::load(const std::filesystem::path& dir) {
  auto path = dir / "feature_spec.json";
  if (!std::filesystem::exists(path))
    throw StorageError(path.string() + ": missing (is '" + dir.string() + "' a model directory?)");
  nlohmann::json j = read_json(path);
  FeatureSpec spec;
  try {
    spec = j.get<FeatureSpec>();
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(path.string() + ": malformed feature spec (" + e.what() + ")");
  } catch (const InputError& e) {
    throw StorageError(path.string() + ": " + e.what());
  }
  check_names(spec, path.string());
  if (spec.format_version > kModelFormatVersion)
    throw StorageError(path.string() + ": model format version " +
                       std::to_string(spec.format_version) + " is newer than this kselect (" +
                       std::to_string(kModelFormatVersion) + ")");
  for (const auto& [target, prior] : spec.priors) {
    if (std::find(spec.features.begin(), spec.features.end(), prior.feature) == spec.features.end())
      throw StorageError(path.string() + ": the prior of " + target + " reads '" + prior.feature +
                         "', which is not in feature_names");
    if (!(prior.scale > 0 && std::isfinite(prior.scale)))
      throw StorageError(path.string() + ": the prior of " + target + " has scale " +
                         std::to_string(prior.scale) + " (must be finite and > 0)");
  }
  if (!(spec.shortlist_tolerance >= 0 && spec.shortlist_tolerance < 1))
    throw StorageError(path.string() + ": shortlist tolerance " +
                       std::to_string(spec.shortlist_tolerance) + " is not in [0, 1)");
  if ((spec.objective == Objective::kBlend) != !spec.blend.empty() ||
      (!spec.blend.empty() && spec.blend.size() < 2))
    throw StorageError(path.string() + ": a blend lists at least two members under 'blend', " +
                       "and only a blend does (objective '" + to_string(spec.objective) + "', " +
                       std::to_string(spec.blend.size()) + " members)");
  if ((spec.objective == Objective::kRoute) != !spec.route.empty() ||
      (!spec.route.empty() && spec.route.size() < 2))
    throw StorageError(path.string() + ": a route lists at least two members under 'route', " +
                       "and only a route does (objective '" + to_string(spec.objective) + "', " +
                       std::to_string(spec.route.size()) + " members)");
  for (const auto& m : spec.blend)
    if (!(m.weight > 0 && std::isfinite(m.weight)) || m.model.empty())
      throw StorageError(path.string() + ": blend member '" + m.model + "' has weight " +
                         std::to_string(m.weight) + " (needs a model and a finite weight > 0)");
  if (!data::find_time_statistic(spec.time_statistic))
    throw StorageError(path.string() + ": time_statistic '" + spec.time_statistic +
                       "' is neither median nor min");
  return spec;
}

void widen_training_ranges(std::map<std::string, FieldRange>& into,
                           const std::vector<std::string>& problems) {
  std::map<std::string, FieldRange> seen;
  std::set<std::string> not_numeric;
  for (const auto& problem : problems) {
    const KeyValues fields = KeyValues::parse(problem);
    for (const auto& [field, text] : fields.items()) {
      const auto value = parse_double(text);
      if (!value) {
        not_numeric.insert(field);
        continue;
      }
      auto [it, fresh] = seen.try_emplace(field, FieldRange{*value, *value});
      it->second.min = std::min(it->second.min, *value);
      it->second.max = std::max(it->second.max, *value);
    }
  }
  for (const auto& [field, range] : seen) {
    if (not_numeric.count(field)) continue;
    auto [it, fresh] = into.try_emplace(field, range);
    it->second.min = std::min(it->second.min, range.min);
    it->second.max = std::max(it->second.max, range.max);
  }
}

std::vector<OutOfRange> outside_training_ranges(const FeatureSpec& spec,
                                                const std::string& problem) {
  std::vector<OutOfRange> out;
  const KeyValues fields = KeyValues::parse(problem, "problem");
  for (const auto& [field, text] : fields.items()) {
    auto range = spec.training_ranges.find(field);
    const auto value = parse_double(text);
    if (range == spec.training_ranges.end() || !value) continue;
    if (*value < range->second.min || *value > range->second.max)
      out.push_back({field, *value, range->second});
  }
  return out;
}

void FeatureSpec::save(const std::filesystem::path& dir) const {
  write_json(dir / "feature_spec.json", nlohmann::json(*this));
}

std::filesystem::path model_file(const std::filesystem::path& dir, const std::string& target) {
  // kselect's XGBoost JSON first, then LightGBM text models as CK's dispatcher names them.
  for (const char* suffix : {".json", ".json.gz", ".txt", ".txt.gz", ".lgbm", ".lgbm.gz"}) {
    auto file = dir / ("model_" + target + suffix);
    if (std::filesystem::exists(file)) return file;
  }
  return {};
}

}  // namespace kselect::model
