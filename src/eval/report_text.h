#pragma once
// The human form of an evaluation report (stdout of `kselect eval` without --json).
#include <string>

#include "eval/evaluate.h"

namespace kselect::eval {

std::string format_report(const EvalReport& report);

}  // namespace kselect::eval
