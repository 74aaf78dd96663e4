#include "model/train_artifacts.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

#include "core/text.h"
#include "model/file_io.h"

namespace kselect::model {

namespace {

// XGBoost names features f0, f1, ... when the booster carries no names.
std::string feature_name(const std::string& xgb_name, const std::vector<std::string>& names) {
  if (xgb_name.size() > 1 && xgb_name[0] == 'f')
    if (auto index = parse_int(std::string_view(xgb_name).substr(1));
        index && *index >= 0 && std::size_t(*index) < names.size())
      return names[std::size_t(*index)];
  return xgb_name;
}

nlohmann::json fold_json(const FoldResult& f) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"fold", f.fold},
          {"train_rows", f.train_rows},
          {"valid_rows", f.valid_rows},
          {"valid_shapes", f.valid_shapes},
          {"best_trees", f.best_trees},
          {"rmse", num(f.rmse)},
          {"r2", num(f.r2)},
          {"mean_efficiency", num(f.mean_efficiency)},
          {"p10_efficiency", num(f.p10_efficiency)},
          {"top1", num(f.top1)}};
}

nlohmann::json folds_json(const TargetResult& t) {
  nlohmann::json folds = nlohmann::json::array();
  for (const auto& f : t.folds) folds.push_back(fold_json(f));
  return folds;
}

nlohmann::json params_json(const TrainOptions& o) {
  const BoostingParams& b = o.boosting;
  return {{"objective", xgboost_objective(training_loss(o.objective))},
          {"tree_method", "hist"},
          {"grow_policy", "lossguide"},
          {"max_leaves", b.max_leaves},
          {"max_depth", b.max_depth},
          {"eta", b.eta},
          {"subsample", b.subsample},
          {"colsample_bytree", b.colsample},
          {"lambda", b.lambda},
          {"alpha", b.alpha},
          {"min_child_weight", b.min_child_weight},
          {"trees", b.trees},
          {"final_trees", o.final_trees},
          {"near_best_weight", o.near_best_weight},
          {"min_efficiency", o.min_efficiency},
          {"parallel_trees", b.parallel_trees},
          {"prior", o.prior},
          {"shortlist", o.shortlist},
          {"early_stopping", o.early_stopping},
          {"folds", o.folds},
          {"seed", b.seed}};
}

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

void save_booster(const xgb::Booster& booster, const std::string& target,
                  const std::vector<std::string>& names, const TrainOptions& o) {
  std::string json = booster.save_json();
  auto base = o.out_dir / ("model_" + target + ".json");
  std::filesystem::remove(base);
  std::filesystem::remove(base.string() + ".gz");
  if (o.compress)
    write_gzip(base.string() + ".gz", json);
  else
    write_file(base, json);
  nlohmann::json importances = nlohmann::json::object();
  for (const char* type : {"total_gain", "gain", "weight"})
    for (const auto& [name, score] : booster.importances(type))
      importances[feature_name(name, names)][type] = score;
  write_json(o.out_dir / ("feature_importances_" + target + ".json"), importances);
}

void write_cv_metrics(const TargetResult& result, const TrainOptions& o) {
  write_json(o.out_dir / ("cv_metrics_" + result.target + ".json"),
             {{"target", result.target},
              {"objective", to_string(o.objective)},
              {"folds", folds_json(result)},
              {"overall", fold_json(result.overall)}});
}

void remove_cv_files(const TrainOptions& o) {
  for (const auto& target : o.targets) {
    std::filesystem::remove(o.out_dir / ("oof_" + target + ".csv"));
    std::filesystem::remove(o.out_dir / ("cv_metrics_" + target + ".json"));
  }
}

FeatureSpec training_spec(const TrainOptions& o, const std::string& dtype,
                          const features::FeatureEngine& engine, const features::Schema& schema,
                          const std::vector<std::string>& features,
                          const nlohmann::json& engine_state, const FeatureSpec* continued) {
  FeatureSpec spec;
  spec.op = o.op;
  spec.dtype = dtype;
  spec.hardware = o.hardware;
  spec.schema = schema.name;
  spec.features = features;
  spec.feature_revisions = revisions_of(features, engine.feature_revisions());
  for (const auto& name : schema.categorical)
    if (std::find(features.begin(), features.end(), name) != features.end())
      spec.categorical.push_back(name);
  spec.targets = o.targets;
  if (continued) {  // labels must be encoded as the continued model's were
    spec.log_targets = continued->log_targets;
    spec.target_scales = continued->target_scales;
  } else if (o.objective == Objective::kRegression) {
    spec.log_targets = o.targets;
    for (const auto& t : o.targets) spec.target_scales[t] = default_scale(t);
  }
  spec.objective = o.objective;
  spec.params = params_json(o);
  spec.engine_state = engine_state;
  if (o.data_op != o.op) spec.data_op = o.data_op;
  spec.where = o.where;
  spec.time_statistic = data::to_string(o.time_statistic);
  return spec;
}

void write_manifest(const TrainResult& r, const TrainOptions& o, const Dataset& d,
                    const FeatureSpec& spec) {
  nlohmann::json trees = nlohmann::json::object();
  for (const auto& t : r.targets)
    trees[t.target] = {
        {"previous", t.previous_trees}, {"new", t.trees - t.previous_trees}, {"total", t.trees}};
  nlohmann::json manifest = {
      {"format_version", required_format_version(spec)},
      {"kselect_version", KSELECT_VERSION},
      {"warm_start_from",
       o.warm_start.empty() ? nlohmann::json() : nlohmann::json(o.warm_start.string())},
      {"trees", trees},
      {"data_rows", d.data_rows},
      {"valid_rows", d.rows.size()},
      {"unique_shapes", d.unique_shapes},
      {"timestamp", timestamp()},
      {"data_source", o.data_source},
      {"threads", o.boosting.threads}};
  write_json(o.out_dir / "train_manifest.json", manifest);
}

nlohmann::json TrainResult::to_json() const {
  nlohmann::json j = {{"dir", dir.string()},
                      {"data_rows", data_rows},
                      {"valid_rows", valid_rows},
                      {"unique_shapes", unique_shapes},
                      {"targets", nlohmann::json::array()}};
  if (!target_note.empty()) j["target_note"] = target_note;
  for (const auto& t : targets)
    j["targets"].push_back(
        {{"target", t.target},
         {"rows", t.rows},
         {"trees", t.trees},
         {"previous_trees", t.previous_trees},
         {"folds", folds_json(t)},
         {"overall", t.folds.empty() ? nlohmann::json() : fold_json(t.overall)}});
  return j;
}

}  // namespace kselect::model
