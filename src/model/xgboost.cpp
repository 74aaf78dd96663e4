#include "model/xgboost.h"

#include <cstdint>

#include <xgboost/c_api.h>

#include <limits>
#include <stdexcept>

namespace kselect::model::xgb {

namespace {
void check(int rc) {
  if (rc != 0) throw std::runtime_error(std::string("XGBoost: ") + XGBGetLastError());
}
}  // namespace

Matrix::Matrix(const float* data, std::size_t rows, std::size_t cols, int threads) {
  check(XGDMatrixCreateFromMat_omp(data, rows, cols, std::numeric_limits<float>::quiet_NaN(),
                                   &handle_, threads));
}

Matrix::~Matrix() {
  XGDMatrixFree(handle_);
}

void Matrix::set_labels(const std::vector<float>& labels) {
  check(XGDMatrixSetFloatInfo(handle_, "label", labels.data(), labels.size()));
}

void Matrix::set_weights(const std::vector<float>& weights) {
  check(XGDMatrixSetFloatInfo(handle_, "weight", weights.data(), weights.size()));
}

void Matrix::set_base_margin(const std::vector<float>& margins) {
  check(XGDMatrixSetFloatInfo(handle_, "base_margin", margins.data(), margins.size()));
}

void Matrix::set_groups(const std::vector<unsigned>& sizes) {
  check(XGDMatrixSetUIntInfo(handle_, "group", sizes.data(), sizes.size()));
}

void Matrix::set_feature_names(const std::vector<std::string>& names) {
  std::vector<const char*> c_names;
  for (const auto& n : names) c_names.push_back(n.c_str());
  check(XGDMatrixSetStrFeatureInfo(handle_, "feature_name", c_names.data(), c_names.size()));
}

Booster::Booster(const std::vector<const Matrix*>& cache) {
  std::vector<DMatrixHandle> handles;
  for (const Matrix* m : cache) handles.push_back(m->handle());
  check(XGBoosterCreate(handles.data(), handles.size(), &handle_));
}

Booster::~Booster() {
  if (handle_) XGBoosterFree(handle_);
}

Booster::Booster(Booster&& other) noexcept : handle_(other.handle_) {
  other.handle_ = nullptr;
}

void Booster::set_param(const std::string& name, const std::string& value) {
  check(XGBoosterSetParam(handle_, name.c_str(), value.c_str()));
}

void Booster::update(int iteration, const Matrix& train) {
  check(XGBoosterUpdateOneIter(handle_, iteration, train.handle()));
}

double Booster::evaluate(int iteration, const Matrix& data, const std::string& name) {
  DMatrixHandle handles[] = {data.handle()};
  const char* names[] = {name.c_str()};
  const char* result = nullptr;
  check(XGBoosterEvalOneIter(handle_, iteration, handles, names, 1, &result));
  // "[12]\tvalid-rmse:0.1234": the value after the last ':'.
  std::string text(result);
  auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw std::runtime_error("XGBoost: unexpected eval output " + text);
  return std::stod(text.substr(colon + 1));
}

std::vector<float> Booster::predict(const Matrix& data, int tree_end, bool margin) const {
  std::string config = R"({"type": )" + std::string(margin ? "1" : "0") +
                       R"(, "training": false, "iteration_begin": 0, "iteration_end": )" +
                       std::to_string(tree_end) + R"(, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDMatrix(handle_, data.handle(), config.c_str(), &shape, &dim, &result));
  bst_ulong n = 1;
  for (bst_ulong i = 0; i < dim; ++i) n *= shape[i];
  return std::vector<float>(result, result + n);
}

std::vector<float> Booster::predict_dense(const float* rows, std::size_t n, std::size_t cols,
                                          int threads, bool margin) const {
  // numpy's __array_interface__: the data pointer as an integer, "<f4" little-endian floats.
  const std::string array = R"({"data": [)" +
                            std::to_string(reinterpret_cast<std::uintptr_t>(rows)) +
                            R"(, true], "shape": [)" + std::to_string(n) + ", " +
                            std::to_string(cols) + R"(], "typestr": "<f4", "version": 3})";
  const std::string config = R"({"type": )" + std::string(margin ? "1" : "0") +
                             R"(, "training": false, "iteration_begin": 0, "iteration_end": 0,)" +
                             R"( "strict_shape": false, "missing": NaN, "cache_id": 0,)" +
                             R"( "nthread": )" + std::to_string(threads) + "}";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDense(handle_, array.c_str(), config.c_str(), nullptr, &shape, &dim,
                                  &result));
  bst_ulong count = 1;
  for (bst_ulong i = 0; i < dim; ++i) count *= shape[i];
  return std::vector<float>(result, result + count);
}

int Booster::boosted_rounds() const {
  int rounds = 0;
  check(XGBoosterBoostedRounds(handle_, &rounds));
  return rounds;
}

Booster Booster::slice(int rounds) const {
  BoosterHandle out = nullptr;
  check(XGBoosterSlice(handle_, 0, rounds, 1, &out));
  return Booster(Adopt{}, out);
}

std::string Booster::save_json() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  check(XGBoosterSaveModelToBuffer(handle_, R"({"format": "json"})", &len, &data));
  return std::string(data, len);
}

void Booster::load(const std::string& bytes) {
  check(XGBoosterLoadModelFromBuffer(handle_, bytes.data(), bytes.size()));
}

std::vector<std::pair<std::string, double>> Booster::importances(const std::string& type) const {
  std::string config = R"({"importance_type": ")" + type + R"("})";
  bst_ulong n_features = 0, dim = 0;
  const char** names = nullptr;
  const bst_ulong* shape = nullptr;
  const float* scores = nullptr;
  check(XGBoosterFeatureScore(handle_, config.c_str(), &n_features, &names, &dim, &shape, &scores));
  std::vector<std::pair<std::string, double>> out;
  for (bst_ulong i = 0; i < n_features; ++i) out.emplace_back(names[i], scores[i]);
  return out;
}

}  // namespace kselect::model::xgb
