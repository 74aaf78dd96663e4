#pragma once
// The feature engine seam: each operation turns (problem, candidate kernels) into a row-major
// float matrix, one row per kernel, under a named schema (an ordered list of feature names).
// Training and selection both call extract(), so there is exactly one code path; a single row
// is a batch of one.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"

namespace kselect::features {

// Row-major values, `names.size()` columns.
struct FeatureMatrix {
  std::vector<std::string> names;
  std::vector<float> values;
  std::size_t rows = 0;

  std::size_t cols() const { return names.size(); }
  float at(std::size_t row, std::size_t col) const { return values[row * cols() + col]; }
  const float* row(std::size_t r) const { return values.data() + r * cols(); }
};

// A named, ordered feature list.
struct Schema {
  std::string name;
  std::vector<std::string> features;
  std::vector<std::string> categorical;  // subset of `features` holding category codes
};

// Kernels parsed once so that repeated extraction (selection for many problems over one
// candidate set) does not parse names again.
class KernelBlock {
 public:
  virtual ~KernelBlock() = default;
  virtual std::size_t size() const = 0;
  // The kernels at `rows` (indices into this block, in that order), without parsing anything
  // again: a selector prepares its whole catalogue once and scores each problem's supported
  // kernels.
  virtual std::unique_ptr<KernelBlock> subset(std::span<const std::uint32_t> rows) const = 0;

  // The kernels' names in block order. Every engine's prepare() and every subset() keep them,
  // so a scorer that looks kernels up by name (model/neighbours.h) can read them here.
  std::vector<std::string> names;

 protected:
  // Copies the names of `rows` into `out` (what every subset() does).
  void copy_names(std::span<const std::uint32_t> rows, KernelBlock& out) const {
    out.names.reserve(rows.size());
    for (std::uint32_t r : rows) out.names.push_back(names.at(r));
  }
};

class FeatureEngine {
 public:
  virtual ~FeatureEngine() = default;
  virtual std::string_view op() const = 0;
  virtual std::vector<std::string> schema_names() const = 0;
  virtual const std::string& default_schema() const = 0;
  // Throws InputError listing the known schemas.
  virtual const Schema& schema(std::string_view name) const = 0;
  // Every feature the engine can produce; the columns given to extract_rows() index this list.
  virtual const std::vector<std::string>& all_features() const = 0;
  // The hardware profile the hw_* features are filled from.
  virtual const HardwareProfile& hardware() const = 0;
  // Features whose formula changed since they were first shipped, with their revision (a
  // feature absent here is at revision 1). A model records the revisions it was trained on
  // (FeatureSpec::feature_revisions), so a model fed a newer formula can say so.
  virtual std::map<std::string, int> feature_revisions() const { return {}; }
  // A feature proportional to the kernel's expected throughput on the problem (TFLOPS up to a
  // scale), which a regression on tflops may start from (model::TrainOptions::prior); "" when
  // the engine has none.
  virtual std::string throughput_prior() const { return {}; }

  // Parses kernel names; throws InputError for a name that is not one of this op's kernels.
  virtual std::unique_ptr<KernelBlock> prepare(std::span<const std::string> kernels) const = 0;
  // Writes kernels.size() rows of columns.size() floats to `out`: the one extraction path.
  // Throws InputError for malformed problem text.
  virtual void extract_rows(std::string_view problem, const KernelBlock& kernels,
                            std::span<const int> columns, float* out) const = 0;

  // Cross-validation group of a problem: the problem tuple without layout and dtype, so the
  // same shape never lands in two folds.
  virtual std::string group_key(std::string_view problem) const = 0;
  // The data type of a problem ("fp32", "bf16", ...): models are trained per dtype.
  virtual std::string dtype(std::string_view problem) const = 0;

  // Engines fitted from training data know the kernels they saw; the next four describe them.
  // Engines with fixed schemas know none: their candidates come from the op's rule sets.
  // The selection context of a problem (for example "dir=F,dtype=fp32,layout=NCHW"): the
  // kernels seen and the winners counted are per context. "" for fixed-schema engines.
  virtual std::string context(std::string_view problem) const {
    (void)problem;
    return {};
  }
  // The kernels seen in training with the problem's context; InputError when none were.
  virtual std::vector<std::string> candidates(std::string_view problem) const {
    (void)problem;
    return {};
  }
  // `kernels` ordered by how often each won in the problem's context in training (most first,
  // ties keep the given order): the no-model pick is the first.
  virtual std::vector<std::string> winner_order(std::string_view problem,
                                                std::vector<std::string> kernels) const {
    (void)problem;
    return kernels;
  }
  // Every kernel seen in training, sorted.
  virtual std::vector<std::string> known_kernels() const { return {}; }
  // The leading features that depend on the problem alone (a per-context classifier's inputs);
  // empty when the engine does not keep them apart from the kernel's.
  virtual std::vector<std::string> problem_features() const { return {}; }

  // Rows of schema `schema` for `kernels` on `problem` (prepare + extract_rows).
  FeatureMatrix extract(std::string_view schema, std::string_view problem,
                        std::span<const std::string> kernels) const;
  // Indices of `names` within all_features(); InputError listing any it lacks.
  std::vector<int> columns_of(const std::vector<std::string>& names,
                              const std::string& context) const;
};

// Column index of each name of `wanted` within `available`; throws InputError listing every
// name of `wanted` that `available` lacks (a model needing features this engine cannot make).
std::vector<int> map_columns(const std::vector<std::string>& wanted,
                             const std::vector<std::string>& available, const std::string& context);

}  // namespace kselect::features
