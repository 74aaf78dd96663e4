#pragma once
// Thin RAII layer over XGBoost's C API, used only for training (selection never needs it).
// Every failing call throws std::runtime_error with XGBoost's last error message.
#include <cstdint>
#include <string>
#include <vector>

namespace kselect::model::xgb {

class Matrix {
 public:
  // Dense row-major floats; NaN marks a missing value.
  Matrix(const float* data, std::size_t rows, std::size_t cols, int threads);
  ~Matrix();
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;

  void set_labels(const std::vector<float>& labels);
  void set_weights(const std::vector<float>& weights);      // one per row
  void set_base_margin(const std::vector<float>& margins);  // EXPERIMENT
  // Sizes of consecutive query groups (ranking objectives).
  void set_groups(const std::vector<unsigned>& sizes);
  void set_feature_names(const std::vector<std::string>& names);
  void* handle() const { return handle_; }

 private:
  void* handle_ = nullptr;
};

class Booster {
 public:
  explicit Booster(const std::vector<const Matrix*>& cache = {});
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  Booster(Booster&& other) noexcept;
  Booster& operator=(Booster&&) = delete;

  void set_param(const std::string& name, const std::string& value);
  void update(int iteration, const Matrix& train);
  // Value of the (last) evaluation metric on `data` after `iteration`.
  double evaluate(int iteration, const Matrix& data, const std::string& name);
  // Predictions using the trees of rounds [0, tree_end) (0: all rounds); with `margin`, the
  // untransformed margins (n x classes for a multi-class model, row-major).
  std::vector<float> predict(const Matrix& data, int tree_end = 0, bool margin = false) const;
  // XGBoosterPredictFromDense (in-place prediction, no DMatrix) on `n` dense row-major rows of
  // `cols` floats, with `threads` threads; margins when `margin`.
  std::vector<float> predict_dense(const float* rows, std::size_t n, std::size_t cols, int threads,
                                   bool margin) const;
  int boosted_rounds() const;
  // A new booster holding the trees of rounds [0, rounds): an early-stopped model's best prefix.
  Booster slice(int rounds) const;
  std::string save_json() const;
  void load(const std::string& bytes);  // JSON model text
  // Total gain per feature name (features never used in a split are absent).
  std::vector<std::pair<std::string, double>> importances(const std::string& type) const;

 private:
  struct Adopt {};
  Booster(Adopt, void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

}  // namespace kselect::model::xgb
