#include "model/booster_fit.h"

namespace kselect::model {

void set_boosting_params(xgb::Booster& booster, const BoostingParams& params, Loss loss) {
  for (const auto& [name, value] : booster_settings(params, loss)) booster.set_param(name, value);
}

RowBuilder::RowBuilder(const features::FeatureEngine& engine) : engine_(engine) {
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

std::unique_ptr<xgb::Booster> fit_booster(const LabelledRows& rows, std::size_t cols,
                                          const BoostingParams& params, Loss loss,
                                          const std::function<void()>& round_done) {
  xgb::Matrix m(rows.x.data(), rows.rows(), cols, params.threads);
  m.set_labels(rows.labels);
  if (!rows.groups.empty()) m.set_groups(rows.groups);
  auto booster = std::make_unique<xgb::Booster>(std::vector<const xgb::Matrix*>{&m});
  set_boosting_params(*booster, params, loss);
  for (int round = 0; round < params.trees; ++round) {
    booster->update(round, m);
    if (round_done) round_done();
  }
  return booster;
}

std::vector<float> predict_rows(const xgb::Booster& booster, const std::vector<float>& x,
                                std::size_t cols, int threads) {
  if (x.empty()) return {};
  xgb::Matrix m(x.data(), x.size() / cols, cols, threads);
  return booster.predict(m);
}

}  // namespace kselect::model
