#include "eval/boosting.h"

namespace kselect::eval {

RowBuilder::RowBuilder(const generic::GenericFeatureEngine& engine) : engine_(engine) {
  columns_.resize(engine.all_features().size());
  for (std::size_t i = 0; i < columns_.size(); ++i) columns_[i] = int(i);
}

void RowBuilder::append(const std::string& problem, const std::vector<std::string>& kernels,
                        std::vector<float>& x) {
  std::string key;
  for (const auto& k : kernels) key += k + '\n';
  auto it = blocks_.find(key);
  if (it == blocks_.end()) it = blocks_.emplace(key, engine_.prepare(kernels)).first;
  std::size_t offset = x.size();
  x.resize(offset + kernels.size() * cols());
  engine_.extract_rows(problem, *it->second, columns_, x.data() + offset);
}

std::map<std::string, std::string> protocol_booster_settings(const BoostParams& p) {
  return {{"objective", p.objective},
          {"tree_method", "hist"},
          {"grow_policy", "lossguide"},
          {"max_leaves", std::to_string(p.max_leaves)},
          {"max_depth", std::to_string(p.max_depth)},
          {"eta", std::to_string(p.eta)},
          {"subsample", "0.8"},
          {"colsample_bytree", "0.8"},
          {"min_child_weight", std::to_string(p.min_child_weight)},
          {"seed", std::to_string(p.seed)},
          {"nthread", std::to_string(p.threads)},
          {"verbosity", "0"}};
}

std::unique_ptr<model::xgb::Booster> fit_booster(const Dataset& d, std::size_t cols,
                                                 const BoostParams& p, Progress& progress,
                                                 long& done) {
  model::xgb::Matrix m(d.x.data(), d.rows(), cols, p.threads);
  m.set_labels(d.labels);
  if (!d.groups.empty()) m.set_groups(d.groups);
  auto booster = std::make_unique<model::xgb::Booster>(std::vector<const model::xgb::Matrix*>{&m});
  for (const auto& [k, v] : protocol_booster_settings(p)) booster->set_param(k, v);
  if (p.num_class > 0) booster->set_param("num_class", std::to_string(p.num_class));
  for (int round = 0; round < p.trees; ++round) {
    booster->update(round, m);
    progress.update(++done, p.objective);
  }
  return booster;
}

std::vector<float> predict_rows(const model::xgb::Booster& b, const std::vector<float>& x,
                                std::size_t cols, int threads) {
  if (x.empty()) return {};
  model::xgb::Matrix m(x.data(), x.size() / cols, cols, threads);
  return b.predict(m);
}

}  // namespace kselect::eval
