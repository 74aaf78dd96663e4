#include "select/scorer.h"

#include <optional>

#include "core/error.h"
#include "core/key_values.h"
#include "ops/operation.h"
#include "select/blend_scorer.h"
#include "select/classifier_scorer.h"
#include "select/forest_scorer.h"
#include "select/route_scorer.h"

namespace kselect::select {

Cascade Cascade::parse(const std::string& text) {
  if (text == "off" || text.empty()) return {};
  auto colon = text.find(':');
  std::optional<long> prefix, survivors;
  if (colon != std::string::npos) {
    prefix = parse_int(std::string_view(text).substr(0, colon));
    survivors = parse_int(std::string_view(text).substr(colon + 1));
  }
  if (!prefix || !survivors || *prefix < 1 || *survivors < 1)
    throw InputError(
        "", 0, "cascade",
        "expected P:S (prefix trees, survivors, both >= 1) or off, got '" + text + "'");
  return {std::size_t(*prefix), std::size_t(*survivors)};
}

std::unique_ptr<Scorer> load_scorer(const std::filesystem::path& dir,
                                    const HardwareProfile& hardware,
                                    const std::map<std::string, nlohmann::json>& kernel_configs) {
  model::FeatureSpec spec = model::FeatureSpec::load(dir);
  if (spec.objective == model::Objective::kBlend)
    return BlendScorer::load(dir, std::move(spec), hardware, kernel_configs);
  if (spec.objective == model::Objective::kRoute)
    return RouteScorer::load(dir, std::move(spec), hardware, kernel_configs);
  const Operation& op = find_operation(spec.op);
  auto engine =
      op.make_feature_engine(hardware, op.extend_feature_state(spec.engine_state, kernel_configs));
  auto stale = model::stale_features(spec, engine->feature_revisions());
  if (spec.objective == model::Objective::kClassify)
    return ClassifierScorer::load(dir, std::move(spec), std::move(stale), std::move(engine));
  return ForestScorer::load(dir, std::move(spec), std::move(stale), std::move(engine));
}

}  // namespace kselect::select
