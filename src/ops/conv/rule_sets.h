#pragma once
// The named conv configuration sets generated from rules/conv_cpu.json by the rule engine.
#include <string>
#include <string_view>
#include <vector>

#include "ops/conv/config.h"

namespace kselect::conv {

// Configurations of rule set `set` ("full", "profiler", "tests", "full-tests", "tiny",
// "default"), every direction, dtype and dimension, in a stable order. Throws InputError for an
// unknown set.
const std::vector<ConvConfig>& rule_set(std::string_view set);
std::vector<std::string> rule_set_names();

}  // namespace kselect::conv
