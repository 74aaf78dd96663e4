#pragma once
// Nearest training problems (docs/model-format.md, "neighbours.json"): what each kernel achieved
// on the training problems most like a new one, blended into the model's score. The trees
// generalize over every problem at once and smooth over problems unlike most of the training
// set; the measurements of the few most similar problems have the opposite bias, and the blend
// of the two picks better than either (experiments/conv/README.md, "Nearest problems'
// measurements blended with the model").
//
// A problem's position: the feature columns that depend on the problem alone (constant over
// each training problem's kernels, varying between problems), log2 where a column is positive
// and spans more than 16x, each standardized over the training problems. A kernel's neighbour
// score: its mean log efficiency (log of the problem's best over the kernel's speed) over the
// `count` nearest training problems that measured it; kMissing where none did.
//
// With a power a > 0, each neighbour weighs 1 / (distance^a + 0.1) in the mean instead of
// equally: a kernel valid on few problems (a wide vector, say) draws its neighbours from far
// away, and the near ones should count most (experiments/conv/README.md, "The AVX-512 study with
// neighbours").
//
// The gate (optional): a problem whose `count` nearest training problems lie farther on average
// than the gate distance (the `gate` quantile of that distance over the training problems, each
// against the others) is ranked by the model alone: where the training set is sparse the
// neighbours are unlike the problem and pull towards the kernels popular among them
// (experiments/conv/README.md, "The AVX-512 study with neighbours").
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kselect::model {

// One training row as the table is built from it.
struct NeighbourRow {
  std::size_t problem = 0;  // index into the problems given to build()
  std::string kernel;
  double efficiency = 0;  // the kernel's speed over its problem's best, in (0, 1]
};

class NeighbourTable {
 public:
  // A kernel no neighbour measured scores as if it ran at half the best speed.
  static constexpr double kMissing = -0.6931471805599453;  // log(0.5)
  static constexpr const char* kFile = "neighbours.json";

  // `features`: one row of `feature_names` columns per element of `rows` (row-major);
  // `problems` names the problems the rows index, `folds` each one's cross-validation fold
  // (-1 without). The problem columns are those equal over every row of each problem and not
  // over all problems. `count`: neighbours per kernel (>= 1); `weight`: the model's share of
  // the blend, in [0, 1); `gate`: the quantile of the gate distance, in (0, 1], or 0 for no
  // gate; `power`: the distance weights' power, in [0, 8] (0: equal weights). InputError for
  // bad settings or no problem columns.
  static NeighbourTable build(const std::vector<std::string>& feature_names,
                              std::span<const float> features,
                              const std::vector<NeighbourRow>& rows,
                              const std::vector<std::string>& problems,
                              const std::vector<int>& folds, int count, double weight,
                              double gate = 0, double power = 0);

  // <dir>/neighbours.json, or nullopt when the model has none; StorageError naming the file
  // and field when it is malformed.
  static std::optional<NeighbourTable> load(const std::filesystem::path& dir);
  void save(const std::filesystem::path& dir) const;

  int count() const { return count_; }
  double weight() const { return weight_; }
  // The gate's quantile and distance; 0 without a gate.
  double gate() const { return gate_; }
  double gate_distance() const { return gate_distance_; }
  double power() const { return power_; }
  // The feature columns a position is made of, in order.
  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t problems() const { return problems_.size(); }

  // The position of a problem from its values of columns() (a feature row's).
  std::vector<double> position(std::span<const double> values) const;
  // A training problem's stored position and fold; nullptr when it is not one.
  const std::vector<double>* position_of(std::string_view problem) const;
  int fold_of(std::string_view problem) const;

  // Each kernel's neighbour score at `position` (kMissing for a kernel no training problem
  // measured), skipping the training problems of fold `skip_fold` (out-of-fold scoring; -1:
  // none) and the problem `skip_problem` ("": none). Returns the model's share of the blend
  // there: weight(), or 1 (the model alone) where the gate finds the neighbours too far.
  double scores(std::span<const double> position, std::span<const std::string> kernels,
                std::vector<double>& out, int skip_fold = -1,
                std::string_view skip_problem = {}) const;

  // The blend: share * log_speed + (1 - share) * neighbour score, `share` as scores() returned.
  static double blend(double share, double log_speed, double neighbour_score) {
    return share * log_speed + (1 - share) * neighbour_score;
  }
  // The same from a predicted speed (a ratio scale, > 0; a speed of 0 counts as 1e-300): what
  // selection and eval both score a candidate by.
  static double blend_speed(double share, double speed, double neighbour_score) {
    return blend(share, std::log(std::max(speed, 1e-300)), neighbour_score);
  }

 private:
  struct Problem {
    std::string text;
    int fold = -1;
    std::vector<double> position;
    std::vector<std::pair<std::size_t, double>> kernels;  // (kernel index, log efficiency), sorted
  };

  int count_ = 1;
  double weight_ = 1;
  double gate_ = 0, gate_distance_ = 0;
  double power_ = 0;
  static constexpr double kDistanceFloor = 0.1;  // a neighbour at distance 0 weighs 10, not inf
  std::vector<std::string> columns_;
  std::vector<bool> logged_;
  std::vector<double> mean_, sd_;
  std::vector<std::string> kernels_;
  std::unordered_map<std::string, std::size_t> kernel_index_;
  std::vector<Problem> problems_;
  std::unordered_map<std::string, std::size_t> problem_index_;

  void index();
  // The training problems but those of fold `skip_fold` (-1: none) and `skip_problem`, as
  // (squared distance from `position`, index), the `sorted` nearest first in order.
  void by_distance(std::span<const double> position, int skip_fold, std::string_view skip_problem,
                   std::size_t sorted, std::vector<std::pair<double, std::size_t>>& order) const;
  // A neighbour's weight in a kernel's mean, from its squared distance.
  double neighbour_weight(double squared) const;
  // The mean distance of the count_ nearest problems of `order` (by_distance's, sorted at least
  // that far).
  double spread(const std::vector<std::pair<double, std::size_t>>& order) const;
  void set_gate(double gate);
};

}  // namespace kselect::model
