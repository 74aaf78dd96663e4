#pragma once
// Selection API: ranks candidate kernels for a problem with a trained model directory, without
// XGBoost (forests are compiled into flat arrays at load time).
//
//   auto ranker = select::Ranker::load("models/gemm_fp32");
//   auto block = ranker.prepare(kernel_names);          // once per candidate set
//   auto ranked = ranker.rank("m=128,n=1536,k=7168,layout=rcr,dtype=fp32", *block);
//   ranked.front().kernel;                              // the pick
//
// A blend (`kselect blend`, docs/model-format.md) ranks by the weighted sum of its members'
// log predicted speeds, each relative to that member's own pick.
//
// Model columns are mapped by name onto the engine's features when loading, so a model trained
// on ck55, ck72 or an older list runs on today's engine; a model needing a feature the engine
// does not produce fails to load with the missing names.
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/hardware.h"
#include "features/engine.h"
#include "model/classify.h"
#include "model/feature_spec.h"
#include "model/forest.h"

namespace kselect::select {

struct Scored {
  std::string kernel;
  double score = 0;              // higher is better: what the ranking sorts by
  double tflops = std::nan("");  // predicted, when the model has a tflops regression
  double latency_ms = std::nan("");
  double bandwidth_gb_s = std::nan("");
  // Predicted fraction of the best candidate's speed (models of the efficiency objective).
  double efficiency = std::nan("");
  // Classify models: the probability that this kernel is the problem's fastest; NaN for a
  // kernel that is not a class of the problem's context (it ranks last, score
  // KernelClassifier::kNotAClass).
  double probability = std::nan("");
  // The ordering model's prediction as a speed (model::predicted_speed: TFLOPS, GB/s, 1/ms or
  // efficiency; larger is faster), for comparisons such as the default guard's; NaN for
  // ranking and classify models.
  double speed = std::nan("");
};

// Two-stage scoring, for selection latency: every candidate runs the first `prefix_trees` trees
// of the ordering model, and only the best `survivors` by that partial margin run the rest.
// The survivors' scores equal the full model's bit for bit; the others rank after every survivor
// (their score is the prefix margin minus kCutPenalty), so only a survivor can be the pick;
// a candidate cut by the prefix is never finished.
struct Cascade {
  std::size_t prefix_trees = 0;  // 0: off
  std::size_t survivors = 0;
  static constexpr double kCutPenalty = 1e9;
  // Whether a score carries the cut penalty: ranked after the others on a partial score.
  static bool is_cut(double score) { return score < -kCutPenalty / 2; }
  bool enabled() const { return prefix_trees > 0 && survivors > 0; }
  // "P:S" (prefix trees, survivors) or "off"; InputError otherwise.
  static Cascade parse(const std::string& text);
};

// Not thread-safe (it reuses a scratch buffer): use one Ranker per thread.
class Ranker {
 public:
  // Loads feature_spec.json and model_<target>.json[.gz] from `dir` (a classify model: its
  // per-context models, model::KernelClassifier; a blend: its members' directories,
  // FeatureSpec::blend, each loaded as a Ranker); hw_* features come from `hardware`.
  // StorageError for a missing or corrupt file, InputError for missing features.
  // `kernel_configs`: parameters of kernels the model may not have seen (a generic model
  // ranking held-out data; see Operation::extend_feature_state).
  static Ranker load(const std::filesystem::path& dir,
                     const HardwareProfile& hardware = host_hardware(),
                     const std::map<std::string, nlohmann::json>& kernel_configs = {});

  const model::FeatureSpec& spec() const { return spec_; }
  const features::FeatureEngine& engine() const {
    return members_.empty() ? *engine_ : members_.front().ranker->engine();
  }
  // Model features whose formula changed since the model was trained (model::stale_features):
  // the CLI warns; retraining on the same data brings the model up to date.
  const std::vector<std::string>& stale_features() const { return stale_features_; }
  bool has_target(const std::string& target) const;
  // InputError for a classify model: its small per-context forests have no ordering model to
  // cut short.
  void set_cascade(const Cascade& cascade);
  // Trees of the model that orders the ranking (a classify model: of every context's model).
  std::size_t num_trees() const;
  // The classifier of a classify model, else null.
  const model::KernelClassifier* classifier() const { return classifier_.get(); }

  // The candidates the model ranks (FeatureSpec::shortlist, docs/model-format.md): those in its
  // shortlist, and `keep` (the problem's default kernel, always a candidate), in input order.
  // Every candidate when the model has no shortlist or none of them is in it.
  std::vector<std::string> shortlisted(std::span<const std::string> kernels,
                                       std::string_view keep = {}) const;

  // Parses kernel names once (reuse the block across problems).
  std::unique_ptr<features::KernelBlock> prepare(std::span<const std::string> kernels) const;
  // Every kernel of `kernels` scored and sorted best first (ties keep the input order).
  // Throws InputError when the problem's dtype differs from the model's. A classify model
  // scores each kernel's class probability in the problem's context (problem features computed
  // once); a kernel that is not a class, and every kernel of a context never seen in training,
  // scores KernelClassifier::kNotAClass and ranks last in input order.
  std::vector<Scored> rank(std::string_view problem, const features::KernelBlock& kernels,
                           std::span<const std::string> names) const;
  std::vector<Scored> rank(std::string_view problem, std::span<const std::string> kernels) const;
  // Scores only, in input order (the fast path: no strings, no sorting).
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const;

 private:
  struct TargetModel {
    std::string target;
    model::Forest forest;
  };
  void predict(const TargetModel& m, std::size_t rows, std::vector<float>& raw) const;
  void check_dtype(std::string_view problem) const;
  // A blend (FeatureSpec::blend): its members, loaded from the directories the spec names.
  static Ranker load_blend(Ranker r, const std::filesystem::path& dir,
                           const HardwareProfile& hardware,
                           const std::map<std::string, nlohmann::json>& kernel_configs);
  std::vector<Scored> rank_blend(std::string_view problem, const features::KernelBlock& kernels,
                                 std::span<const std::string> names) const;
  void blend_scores(std::string_view problem, const features::KernelBlock& kernels,
                    std::vector<double>& out, std::vector<Scored>* detail) const;
  // Margins of the ordering model for the n feature rows at `feature_rows` (laid out as rows_:
  // this ranker's or, in a blend, the first member's), through the cascade when it is on.
  void primary_margins(const float* feature_rows, std::size_t n, std::vector<double>& out) const;
  // Margins (signed, larger is better) of the ordering model, every tree, for rows laid out as
  // rows_ (engine_->all_features() columns).
  void row_margins(std::span<const float* const> rows, std::vector<double>& out) const;
  // Member k's margins for the candidates `scored` (indices into `kernels`), in that order.
  void member_margins(std::size_t k, std::string_view problem, const features::KernelBlock& kernels,
                      std::span<const std::size_t> scored, std::vector<double>& out) const;

  model::FeatureSpec spec_;
  std::unique_ptr<features::FeatureEngine> engine_;
  std::vector<int> all_columns_;             // 0..n-1 over engine->all_features()
  std::vector<std::string> stale_features_;  // model features with another formula now
  std::vector<TargetModel> models_;          // empty for a classify model
  int primary_ = 0;                          // the model whose predictions order the ranking
  std::unique_ptr<const model::KernelClassifier> classifier_;  // classify models only
  std::unique_ptr<const model::ProblemFeatures> problem_features_;
  Cascade cascade_;
  std::unordered_set<std::string> shortlist_;  // FeatureSpec::shortlist
  struct Member {
    std::unique_ptr<Ranker> ranker;
    double weight;
    // The member's feature rows are laid out as the first member's (the same engine features),
    // so it scores the first member's extracted rows instead of extracting its own.
    bool shares_rows = false;
  };
  std::vector<Member> members_;  // blends only
  mutable std::vector<float> rows_;
};

}  // namespace kselect::select
