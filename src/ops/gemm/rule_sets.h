#pragma once
// The named GEMM configuration sets generated from rules/gemm_cpu.json by the rule engine.
#include <string>
#include <string_view>
#include <vector>

#include "ops/gemm/config.h"

namespace kselect::gemm {

// Configurations of rule set `set` ("full", "profiler", "tests", "full-tests", "tiny",
// "default"), all dtypes and layouts, in a stable order. Throws InputError for an unknown set.
const std::vector<GemmConfig>& rule_set(std::string_view set);
std::vector<std::string> rule_set_names();

}  // namespace kselect::gemm
