#pragma once
// What the feature engines of ops with fixed schemas (gemm, conv) share: a list of named
// schemas over one full feature list, the hardware the hw_* features are filled from, blocks
// of parsed kernel configurations, and CK's tile formulas. Each engine keeps its own features
// and extraction; this is the part that does not depend on the op.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "features/engine.h"
#include "features/hardware_features.h"

namespace kselect::features {

// The lists in order, one after another.
std::vector<std::string> concat_names(std::initializer_list<const std::vector<std::string>*> parts);
// CK's twelve hw_* names as a list.
std::vector<std::string> hardware_name_list();

class FixedSchemaEngine : public FeatureEngine {
 public:
  // `schemas` (the first is the default) and `all` (every feature, the columns extract_rows
  // indexes) outlive the engine; `what` names the op in errors ("GEMM", "conv").
  FixedSchemaEngine(const HardwareProfile& hardware, const std::vector<Schema>& schemas,
                    const std::vector<std::string>& all, std::string what);

  std::vector<std::string> schema_names() const override;
  const std::string& default_schema() const override;
  // InputError listing the known schemas.
  const Schema& schema(std::string_view name) const override;
  const HardwareProfile& hardware() const override { return hardware_; }
  const std::vector<std::string>& all_features() const override { return all_; }

 protected:
  const HardwareFeatures& hw_features() const { return hw_; }

 private:
  HardwareProfile hardware_;
  HardwareFeatures hw_;
  const std::vector<Schema>& schemas_;
  const std::vector<std::string>& all_;
  std::string what_;
};

// Kernels parsed once into the op's configuration type.
template <typename Config>
struct ConfigBlock : KernelBlock {
  std::vector<Config> configs;

  // `parse(name)` returns a Config or throws InputError.
  template <typename Parse>
  static std::unique_ptr<ConfigBlock> parse(std::span<const std::string> kernels, Parse parse) {
    auto block = std::make_unique<ConfigBlock>();
    block->configs.reserve(kernels.size());
    for (const auto& name : kernels) block->configs.push_back(parse(name));
    block->names.assign(kernels.begin(), kernels.end());
    return block;
  }
  std::size_t size() const override { return configs.size(); }
  std::unique_ptr<KernelBlock> subset(std::span<const std::uint32_t> rows) const override {
    auto out = std::make_unique<ConfigBlock>();
    out->configs.reserve(rows.size());
    for (std::uint32_t r : rows) out->configs.push_back(configs.at(r));
    copy_names(rows, *out);
    return out;
  }
};

inline double flag(bool b) {
  return b ? 1.0 : 0.0;
}
// CK's tile efficiency: the fill of the last tile, 1 when the tile divides the dimension.
inline double ck_tile_eff(double dim, double tile) {
  const double rem = std::fmod(dim, tile);
  return rem > 0 ? rem / tile : 1.0;
}
// Useful fraction of the padded extent: dim / (tiles * tile).
inline double tile_fill(double dim, double tile) {
  return dim / (std::ceil(dim / std::max(tile, 1.0)) * tile);
}

// CK's tile-fit features of an M x N x K GEMM on tm x tn x tk blocks, in CK's order:
// num_tiles_m/n/k, total_output_tiles (of `batch` such GEMMs), tile_eff_m/n/k,
// overall_tile_efficiency, cu_utilization (output tiles / `cus`), the ratios M/tm, N/tn, K/tk
// and problem_smaller_than_tile_m/n/k. GEMM's and conv's schemas (on CK's and on the real
// mapping) list these fifteen in this order.
inline constexpr std::size_t kTileFitCount = 15;
// The names of ck_tile_fit's first nine, the same in every CK schema (the ratios' names differ).
const std::vector<std::string>& ck_tile_names();
std::array<double, kTileFitCount> ck_tile_fit(double m, double n, double k, double tm, double tn,
                                              double tk, double batch, double cus);

// Writes a row's values one run after another; written() says how many, which the engine
// checks against its feature count.
class RowWriter {
 public:
  explicit RowWriter(double* out) : start_(out), at_(out) {}
  RowWriter& operator()(std::initializer_list<double> values) {
    for (double v : values) *at_++ = v;
    return *this;
  }
  template <std::size_t N>
  RowWriter& operator()(const std::array<double, N>& values) {
    for (double v : values) *at_++ = v;
    return *this;
  }
  std::size_t written() const { return std::size_t(at_ - start_); }

 private:
  double* start_;
  double* at_;
};

}  // namespace kselect::features
