#pragma once
// The selectors ("methods") of the strict protocol (eval/listed_protocol.h), all gradient-
// boosted trees on the generic op's features, trained per cross-validation fold:
//   speed          regression of log time on the listed rows; every seen kernel is ranked by its
//                  predicted time (applicability is not learned);
//   applicability  the speed model plus a classifier of "is this kernel listed for this
//                  problem" trained on every (problem, seen kernel) pair: the pick is the
//                  fastest predicted kernel among those predicted listed (p >= 0.5);
//   joint          one pairwise ranking model over every (problem, seen kernel) pair: the
//                  listed kernels graded by their speed, unlisted ones lowest;
//   classify       a multi-class classifier of the fastest kernel from the problem's features
//                  alone (one row per problem), its most probable candidate is the pick.
// The baseline is the most frequent winner of the problem's context in the training folds.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.h"
#include "eval/listed_problem.h"
#include "features/engine.h"
#include "model/booster_fit.h"
#include "model/boosting_params.h"
#include "model/classify.h"

namespace kselect::eval {

// The selectors above.
enum class ListedMethod { kSpeed, kApplicability, kJoint, kClassify };

// "speed", "applicability", "joint", "classify".
std::string to_string(ListedMethod method);
// The method named `name`; InputError naming `field` and listing the names otherwise.
ListedMethod parse_listed_method(std::string_view name, const std::string& field = "method");

// Trains the method's models on one fold's training problems and picks for its test problems.
class FoldSelector {
 public:
  // `configs`: the kernels' parameters as stored (Store::kernel_configs). Every model boosts
  // `boosting.trees` rounds, each a step of `progress` (`done` counts them across folds).
  FoldSelector(const std::vector<const ListedProblem*>& train,
               const std::map<std::string, nlohmann::json>& configs, ListedMethod method,
               const model::BoostingParams& boosting, Progress& progress, long& done);

  // Picks of the model and of the baseline (most frequent winner) for `test`, appended in
  // `test` order; "" where the problem's context has no candidate.
  void pick(const std::vector<const ListedProblem*>& test, std::vector<std::string>& model_picks,
            std::vector<std::string>& baseline_picks) const;

 private:
  void fit_speed(const std::vector<const ListedProblem*>& train, Progress& progress, long& done);
  void fit_listed(const std::vector<const ListedProblem*>& train, Progress& progress, long& done);
  std::unique_ptr<model::xgb::Booster> fit(const model::LabelledRows& rows, model::Loss loss,
                                           Progress& progress, long& done) const;
  void pick_by_trees(const std::vector<const ListedProblem*>& test,
                     const std::vector<std::vector<std::string>>& candidates,
                     std::vector<std::string>& model_picks) const;
  bool better(const std::vector<float>& speed, const std::vector<float>& listed, std::size_t a,
              std::size_t b) const;
  void fit_classifier(const std::vector<const ListedProblem*>& train, Progress& progress,
                      long& done);
  void pick_classes(const std::vector<const ListedProblem*>& test,
                    const std::vector<std::vector<std::string>>& candidates,
                    std::vector<std::string>& model_picks) const;

  ListedMethod method_;
  model::BoostingParams boosting_;
  std::unique_ptr<features::FeatureEngine> engine_;
  // After engine_, which it reads: members are destroyed in reverse order.
  std::unique_ptr<model::ProblemFeatures> problem_features_;
  model::KernelClassifier classifier_;
  std::size_t cols_ = 0;
  std::unique_ptr<model::xgb::Booster> speed_, listed_;
};

}  // namespace kselect::eval
