#include "features/fixed_schema_engine.h"

#include "core/error.h"
#include "core/text.h"

namespace kselect::features {

std::vector<std::string> concat_names(
    std::initializer_list<const std::vector<std::string>*> parts) {
  std::vector<std::string> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

std::vector<std::string> hardware_name_list() {
  const auto& hw = hardware_feature_names();
  return {hw.begin(), hw.end()};
}

const std::vector<std::string>& ck_tile_names() {
  static const std::vector<std::string> names = {
      "num_tiles_m",   "num_tiles_n", "num_tiles_k", "total_output_tiles",
      "tile_eff_m",    "tile_eff_n",  "tile_eff_k",  "overall_tile_efficiency",
      "cu_utilization"};
  return names;
}

std::array<double, kTileFitCount> ck_tile_fit(double m, double n, double k, double tm, double tn,
                                              double tk, double batch, double cus) {
  auto tiles = [](double dim, double tile) { return std::ceil(dim / std::max(tile, 1.0)); };
  const double tiles_m = tiles(m, tm), tiles_n = tiles(n, tn), tiles_k = tiles(k, tk);
  const double out_tiles = batch * (tiles_m * tiles_n);
  const double eff_m = ck_tile_eff(m, tm), eff_n = ck_tile_eff(n, tn), eff_k = ck_tile_eff(k, tk);
  return {tiles_m,
          tiles_n,
          tiles_k,
          out_tiles,
          eff_m,
          eff_n,
          eff_k,
          eff_m * eff_n * eff_k,
          out_tiles / std::max(cus, 1.0),
          m / tm,
          n / tn,
          k / tk,
          flag(m < tm),
          flag(n < tn),
          flag(k < tk)};
}

FixedSchemaEngine::FixedSchemaEngine(const HardwareProfile& hardware,
                                     const std::vector<Schema>& schemas,
                                     const std::vector<std::string>& all, std::string what)
    : hardware_(hardware),
      hw_(hardware_features(hardware)),
      schemas_(schemas),
      all_(all),
      what_(std::move(what)) {}

std::vector<std::string> FixedSchemaEngine::schema_names() const {
  std::vector<std::string> names;
  for (const auto& s : schemas_) names.push_back(s.name);
  return names;
}

const std::string& FixedSchemaEngine::default_schema() const {
  return schemas_.front().name;
}

const Schema& FixedSchemaEngine::schema(std::string_view name) const {
  for (const auto& s : schemas_)
    if (s.name == name) return s;
  throw InputError("", 0, "schema",
                   "unknown " + what_ + " feature schema '" + std::string(name) +
                       "' (known: " + join(schema_names(), ", ") + ")");
}

}  // namespace kselect::features
