#pragma once
// The feature engine seam: each operation turns (problem, candidate kernels) into a row-major
// float matrix, one row per kernel, under a named schema (an ordered list of feature names).
// Training and selection both call extract(), so there is exactly one code path; a single row
// is a batch of one.
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "data/measurement.h"

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

  // Rows of schema `schema` for `kernels` on `problem` (prepare + extract_rows).
  FeatureMatrix extract(std::string_view schema, std::string_view problem,
                        std::span<const std::string> kernels) const;
  // Indices of `names` within all_features(); InputError listing any it lacks.
  std::vector<int> columns_of(const std::vector<std::string>& names,
                              const std::string& context) const;
};

// The engine of operation `op` filling hw_* features from `hardware`. `engine_state` is the
// fitted state of engines whose features are learnt from data (the generic op: required, see
// fit_engine_state); engines with fixed schemas (GEMM) ignore it. Throws InputError for an
// operation without a feature engine or a missing or malformed state.
std::unique_ptr<FeatureEngine> make_engine(std::string_view op, const HardwareProfile& hardware,
                                           const nlohmann::json& engine_state = nullptr);

// Fits the state of an engine that learns its features from training data: `rows` are the
// training measurements, `kernel_configs` the kernels' parameters, `encoding` the category-code
// order ("target" or "alphabetical"). Null for engines with fixed schemas.
nlohmann::json fit_engine_state(std::string_view op, std::span<const data::Measurement* const> rows,
                                const std::map<std::string, nlohmann::json>& kernel_configs,
                                const std::string& encoding = "target");

// `engine_state` with the parameters of kernels it does not know yet added (the generic op:
// kernels of held-out data or of a warm start's new data; their codes are unchanged).
// Unchanged for engines without fitted state.
nlohmann::json extend_engine_state(std::string_view op, const nlohmann::json& engine_state,
                                   const std::map<std::string, nlohmann::json>& kernel_configs);

// Column index of each name of `wanted` within `available`; throws InputError listing every
// name of `wanted` that `available` lacks (a model needing features this engine cannot make).
std::vector<int> map_columns(const std::vector<std::string>& wanted,
                             const std::vector<std::string>& available, const std::string& context);

}  // namespace kselect::features
