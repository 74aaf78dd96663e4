#pragma once
// The fitted state of the generic feature engine (docs/generic-op.md): which problem fields and
// kernel parameters become features, the category codes of the non-numeric ones, the
// configurations of the kernels seen in training, and per context (dir, dtype, layout) the
// kernels seen and how often each was the fastest. Fitted once from training data, saved as
// feature_spec.json's "engine_state", and reloaded for selection, so both use the same codes.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key_values.h"
#include "data/measurement.h"

namespace kselect::generic {

// One problem field or kernel parameter that became features.
struct Column {
  std::string key;
  bool categorical = false;
  bool log = false;                // numeric: also a log2(1 + |v|) feature
  std::vector<std::string> codes;  // categorical: the value of code i
};

// How category codes are ordered: "target" (by the mean efficiency, or for problem fields the
// mean log best time, of the training rows with that value) or "alphabetical".
struct FitOptions {
  std::string encoding = "target";
};

class GenericVocabulary {
 public:
  // `rows` are the valid training measurements; `kernel_configs` maps kernel names to their
  // parameter objects (kernels missing from it have no parameters). InputError when empty.
  static GenericVocabulary fit(std::span<const data::Measurement* const> rows,
                               const std::map<std::string, nlohmann::json>& kernel_configs,
                               const FitOptions& options = {});
  // InputError naming `where` and the field for a malformed state.
  static GenericVocabulary from_json(const nlohmann::json& j, const std::string& where);
  nlohmann::json to_json() const;

  // Feature names in row order: p_* (problem), d_* (derived), k_* (kernel).
  const std::vector<std::string>& features() const { return features_; }
  std::vector<std::string> categorical() const;
  std::size_t problem_width() const { return problem_width_; }
  std::size_t kernel_width() const { return features_.size() - problem_width_; }

  // The p_* and d_* values of a problem (problem_width() doubles).
  void problem_values(const KeyValues& problem, double* out) const;
  // The k_* values of a kernel (kernel_width() doubles). A kernel not seen in training takes
  // its parameters from its name when that is key=value text, else they are missing (NaN).
  void kernel_values(const std::string& kernel, double* out) const;

  // Adds the configurations of kernels not yet known (a warm start on new data); codes and
  // columns are unchanged.
  void add_kernels(const std::map<std::string, nlohmann::json>& kernel_configs);

  // "dir=F,dtype=fp32,layout=NCHW": the problem's context fields that exist, in that order.
  static std::string context(const KeyValues& problem);
  // The kernels seen in training with the problem's context; InputError when none were.
  std::vector<std::string> candidates(std::string_view problem) const;
  // `kernels` ordered by how often each won in the problem's context in training (most first,
  // ties keep the given order): the no-model pick is the first of them.
  std::vector<std::string> winner_order(std::string_view problem,
                                        std::vector<std::string> kernels) const;
  // Every kernel seen in training, sorted.
  std::vector<std::string> kernels() const;
  const std::string& encoding() const { return encoding_; }

 private:
  struct Context {
    std::vector<std::string> kernels;  // sorted
    std::map<std::string, long> wins;
  };
  void build_features();

  std::string encoding_ = "target";
  std::vector<Column> problem_;
  bool conv_ = false, gemm_ = false;  // derived d_* features
  std::vector<Column> params_;
  bool kernel_id_ = false;
  Column id_;  // codes of kernel names when kernel_id_
  std::map<std::string, nlohmann::json> configs_;
  std::map<std::string, Context> contexts_;
  std::vector<std::string> features_;
  std::size_t problem_width_ = 0;
};

}  // namespace kselect::generic
