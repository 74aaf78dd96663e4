#include "model/objective.h"

#include "core/enum_names.h"

namespace kselect::model {

namespace {
constexpr EnumNames<Objective, 6> kNames("objective", {{
                                                          {Objective::kRegression, "regression"},
                                                          {Objective::kRanking, "ranking"},
                                                          {Objective::kEfficiency, "efficiency"},
                                                          {Objective::kClassify, "classify"},
                                                          {Objective::kBlend, "blend"},
                                                          {Objective::kRoute, "route"},
                                                      }});
}  // namespace

const std::vector<std::string>& objective_names() {
  static const std::vector<std::string> names = kNames.names();
  return names;
}

std::string to_string(Objective objective) {
  return kNames.name(objective);
}

Objective parse_objective(std::string_view name, const std::string& field) {
  return kNames.parse(name, field);
}

bool predicts_speed(Objective objective) {
  return objective == Objective::kRegression || objective == Objective::kEfficiency;
}

}  // namespace kselect::model
