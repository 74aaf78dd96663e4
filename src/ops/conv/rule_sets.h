#pragma once
// The named conv configuration sets generated from rules/conv_cpu.json by the rule engine.
#include <string>
#include <string_view>
#include <vector>

#include "ops/conv/config.h"
#include "rules/sets.h"

namespace kselect::conv {

// Configurations of rule set `set` ("full", "profiler", "tests", "full-tests", "tiny",
// "default"), every direction, dtype and dimension, in a stable order. Throws InputError for an
// unknown set.
const std::vector<ConvConfig>& rule_set(std::string_view set);
std::vector<std::string> rule_set_names();

// Problems with a rule file of CK's GPU kernels (rules/conv_gfx942.json, conv_gfx950.json:
// kernels kselect lists but cannot run): every configuration's name must parse as a CK
// grouped-conv name (ck_names.h) back to the configuration's fields and format back to itself.
// Each axis the parsed name also has must be equal; an optional-suffix axis (its values "" and
// "_<suffix>") holds the suffix text, so "" is the field's default and "_dsb" a flag set to 1,
// "_filter3x3" the specialization filter3x3, "_streamk_tree" streamk tree. A parsed suffix
// field that no axis sets must be at its default.
std::vector<std::string> check_ck_names(const rules::RuleSets& sets);

}  // namespace kselect::conv
