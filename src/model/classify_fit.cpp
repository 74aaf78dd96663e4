// KernelClassifier fitting and saving: the XGBoost side of the classifier (selection uses
// classify.cpp alone).
#include "model/classify.h"

#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/key_values.h"
#include "model/booster_fit.h"
#include "model/file_io.h"
#include "model/xgboost.h"

namespace kselect::model {

namespace {
// The problems of one context, in the order given.
std::map<std::string, std::vector<const ClassifyExample*>> by_context(
    const std::vector<ClassifyExample>& examples, const ProblemFeatures& features) {
  std::map<std::string, std::vector<const ClassifyExample*>> out;
  for (const auto& e : examples) out[features.context(e.problem)].push_back(&e);
  return out;
}

// Feature rows and class labels of `examples`; those whose winner is not a class are skipped.
struct Rows {
  std::vector<float> x, labels;
  std::size_t size() const { return labels.size(); }
};

Rows make_rows(const std::vector<const ClassifyExample*>& examples,
               const std::vector<std::string>& classes, const ProblemFeatures& features) {
  Rows rows;
  for (const ClassifyExample* e : examples) {
    auto it = std::lower_bound(classes.begin(), classes.end(), e->winner);
    if (it == classes.end() || *it != e->winner) continue;
    rows.labels.push_back(float(it - classes.begin()));
    rows.x.resize(rows.x.size() + features.width());
    features.row(e->problem, rows.x.data() + rows.x.size() - features.width());
  }
  return rows;
}

std::unique_ptr<xgb::Matrix> make_matrix(const Rows& rows, const ProblemFeatures& features,
                                         int threads) {
  auto m = std::make_unique<xgb::Matrix>(rows.x.data(), rows.size(), features.width(), threads);
  m->set_labels(rows.labels);
  m->set_feature_names(features.names());
  return m;
}

// Boosts one context's multi:softprob model; with validation rows and early stopping, keeps
// the rounds up to the lowest validation log loss. `step` reports each round.
void fit_context(KernelClassifier::Context& c, const Rows& train, const Rows& valid,
                 const ProblemFeatures& features, const ClassifierParams& params, int rounds,
                 const std::function<void(int round)>& step) {
  const int threads = params.boosting.threads;
  auto train_m = make_matrix(train, features, threads);
  const bool stops = params.early_stopping > 0 && valid.size() > 0;
  auto valid_m = stops ? make_matrix(valid, features, threads) : nullptr;
  std::vector<const xgb::Matrix*> cache = {train_m.get()};
  if (valid_m) cache.push_back(valid_m.get());
  auto booster = std::make_unique<xgb::Booster>(cache);
  set_boosting_params(*booster, params.boosting, Loss::kSoftprob);
  booster->set_param("num_class", std::to_string(c.classes.size()));
  if (stops) booster->set_param("eval_metric", "mlogloss");
  int best_round = rounds - 1;
  double best = 0;
  for (int round = 0; round < rounds; ++round) {
    booster->update(round, *train_m);
    step(round);
    if (!stops) continue;
    double loss = booster->evaluate(round, *valid_m, "valid");
    if (round == 0 || loss < best) best = loss, best_round = round;
    if (round - best_round >= params.early_stopping) break;
  }
  c.rounds = best_round + 1;
  if (c.rounds < booster->boosted_rounds())
    booster = std::make_unique<xgb::Booster>(booster->slice(c.rounds));
  c.forest = std::make_shared<const Forest>(Forest::from_xgboost_json(
      nlohmann::json::parse(booster->save_json()), "classifier of " + c.name));
  c.booster = std::move(booster);
}

}  // namespace

KernelClassifier KernelClassifier::fit(const std::vector<ClassifyExample>& train,
                                       const ProblemFeatures& features,
                                       const ClassifierParams& params,
                                       const std::vector<ClassifyExample>& validation,
                                       const Progress& progress) {
  if (train.empty()) throw InputError("", 0, "", "the classifier needs training problems");
  const auto train_groups = by_context(train, features);
  const auto valid_groups = by_context(validation, features);
  // Progress counts each context's share of the training problems (its cost) over its rounds.
  const double total = double(train.size());
  double done = 0;
  KernelClassifier out;
  for (const auto& [context, examples] : train_groups) {
    Context& c = out.contexts_.emplace_back();
    c.name = context;
    c.problems = examples.size();
    std::set<std::string> winners;
    for (const ClassifyExample* e : examples) winners.insert(e->winner);
    c.classes.assign(winners.begin(), winners.end());
    const double share = double(examples.size()) / total;
    if (c.classes.size() > 1) {
      auto it = params.context_rounds.find(context);
      const int rounds = it != params.context_rounds.end() ? it->second : params.boosting.trees;
      auto valid = valid_groups.find(context);
      Rows valid_rows =
          valid == valid_groups.end() ? Rows{} : make_rows(valid->second, c.classes, features);
      fit_context(c, make_rows(examples, c.classes, features), valid_rows, features, params, rounds,
                  [&](int round) {
                    if (progress) progress(done + share * double(round + 1) / rounds, context);
                  });
    }
    done += share;
    if (progress) progress(done, context);
  }
  return out;
}

namespace {
// Model files of `target` a previous training may have left: model_<target>.json (another
// objective's, which an older reader would load in place of the classifier) and
// model_<target>.<n>.json of a classifier with more contexts.
void remove_model_files(const std::filesystem::path& dir, const std::string& target) {
  const std::string prefix = "model_" + target + ".";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(prefix.size());
    if (rest.size() > 3 && rest.compare(rest.size() - 3, 3, ".gz") == 0)
      rest.resize(rest.size() - 3);
    if (rest.size() < 4 || rest.compare(rest.size() - 4, 4, "json") != 0) continue;
    rest.resize(rest.size() - 4);  // "" or "<n>."
    if (rest.empty() || (rest.back() == '.' && parse_int(rest.substr(0, rest.size() - 1))))
      std::filesystem::remove(entry.path());
  }
}

// The same, with a filesystem failure reported as a StorageError naming the directory.
void remove_previous_models(const std::filesystem::path& dir, const std::string& target) {
  try {
    remove_model_files(dir, target);
  } catch (const std::filesystem::filesystem_error& e) {
    throw StorageError(dir.string() + ": cannot remove an earlier model: " + e.what());
  }
}
}  // namespace

nlohmann::json KernelClassifier::save(const std::filesystem::path& dir, const std::string& target,
                                      bool compress) const {
  remove_previous_models(dir, target);
  nlohmann::json contexts = nlohmann::json::array();
  for (std::size_t n = 0; n < contexts_.size(); ++n) {
    const Context& c = contexts_[n];
    nlohmann::json model;  // null: a single class
    if (c.forest) {
      if (!c.booster) throw std::logic_error("KernelClassifier::save: a loaded model");
      std::string file = "model_" + target + "." + std::to_string(n) + ".json";
      if (compress)
        write_gzip(dir / (file += ".gz"), c.booster->save_json());
      else
        write_file(dir / file, c.booster->save_json());
      model = file;
    }
    contexts.push_back({{"context", c.name},
                        {"classes", c.classes},
                        {"model", model},
                        {"rounds", c.rounds},
                        {"problems", c.problems}});
  }
  return {{"contexts", contexts}};
}

}  // namespace kselect::model
