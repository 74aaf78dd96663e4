#pragma once
// Scores candidates with compiled forests (model::Forest) over each candidate's feature row:
// a model of the regression, efficiency or ranking objective, one forest per target. The
// ordering forest (tflops when the model has it, else its only target) gives the scores; the
// others add their predictions to the detailed ranking.
//
// A model trained with nearest training problems (neighbours.json, model/neighbours.h) blends
// each candidate's neighbour score into the ordering forest's log predicted speed in score() and
// scored(); a blend's members (select/blend_scorer.h) read the forests' margins without it.
//
// Model columns are mapped by name onto the engine's features when loading, so a model trained
// on ck55, ck72 or an older list runs on today's engine; a model needing a feature the engine
// does not produce fails to load with the missing names.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/forest.h"
#include "model/neighbours.h"
#include "select/scorer.h"

namespace kselect::select {

class ForestScorer final : public Scorer {
 public:
  // The forests of `spec`'s targets, model_<target>.json[.gz] in `dir`, reading `engine`'s
  // rows. StorageError for a missing or corrupt file, InputError for missing features.
  static std::unique_ptr<ForestScorer> load(const std::filesystem::path& dir,
                                            model::FeatureSpec spec,
                                            std::vector<std::string> stale_features,
                                            std::unique_ptr<features::FeatureEngine> engine);

  const features::FeatureEngine& engine() const override { return *engine_; }
  std::size_t num_trees() const override;
  void set_cascade(const Cascade& cascade) override { cascade_ = cascade; }
  std::unique_ptr<features::KernelBlock> prepare(
      std::span<const std::string> kernels) const override;
  // Extracts the candidates' feature rows (kept: extracted_rows()) and scores them: the
  // ordering forest's signed margins, or with neighbours their blend.
  void score(std::string_view problem, const features::KernelBlock& kernels,
             std::vector<double>& out) const override;
  // The scores, and every target's decoded prediction (none for a ranking model, whose scores
  // have no unit).
  std::vector<Scored> scored(std::string_view problem, const features::KernelBlock& kernels,
                             std::span<const std::string> names) const override;

  // What a blend reads of its members (select/blend_scorer.h).
  // The feature rows this thread's last score() extracted, row_width() columns each.
  const float* extracted_rows() const;
  std::size_t row_width() const { return all_columns_.size(); }
  // Margins (signed, larger is better) of the ordering forest for the n rows at `rows`, laid
  // out as extracted_rows(), through the cascade when it is on.
  void ordering_margins(const float* rows, std::size_t n, std::vector<double>& out) const;
  // Margins of the ordering forest, every tree, for rows laid out as extracted_rows().
  void full_margins(std::span<const float* const> rows, std::vector<double>& out) const;
  // The model's nearest training problems; null when it has none.
  const model::NeighbourTable* neighbours() const { return neighbours_ ? &*neighbours_ : nullptr; }
  // The ordering forest's target ("tflops", "latency", "bandwidth").
  const std::string& ordering_target() const { return models_[primary_].target; }
  // The ordering forest's prediction in the target's unit, from its signed margin.
  double decoded(double margin) const;
  // A decoded prediction as a speed, larger is faster (model::predicted_speed).
  double speed(double decoded) const;

 private:
  struct TargetModel {
    std::string target;
    model::Forest forest;
  };
  ForestScorer(model::FeatureSpec spec, std::vector<std::string> stale_features,
               std::unique_ptr<features::FeatureEngine> engine);
  void load_targets(const std::filesystem::path& dir);
  void predict(const TargetModel& m, std::size_t rows, std::vector<double>& raw) const;
  void load_neighbours(const std::filesystem::path& dir);
  // Extracts the rows and puts the ordering forest's margins in `out`.
  void margins(std::string_view problem, const features::KernelBlock& kernels,
               std::vector<double>& out) const;
  // Replaces each margin of `scores` (but a cascade's cut ones) by its blend with the
  // candidate's neighbour score, at the position of this thread's extracted rows' problem.
  // `near`, when given, receives each candidate's neighbour score. Returns the model's share of
  // the blend (1: no neighbours, or the gate left them out).
  double blend_neighbours(const features::KernelBlock& kernels, std::vector<double>& scores,
                          std::vector<double>* near = nullptr) const;

  std::unique_ptr<features::FeatureEngine> engine_;
  std::vector<int> all_columns_;     // 0..n-1 over engine_->all_features()
  std::vector<TargetModel> models_;  // one per target, spec order
  int primary_ = 0;                  // the model whose predictions order the ranking
  Cascade cascade_;
  std::optional<model::NeighbourTable> neighbours_;
  std::vector<int> neighbour_columns_;  // the table's columns within engine_->all_features()
};

}  // namespace kselect::select
