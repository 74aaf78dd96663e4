#pragma once
// Field conversions for text importers: canonical problem values, typed kernel parameters,
// kernel names carrying their parameters, numbers with a reason when they do not parse.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/key_values.h"

namespace kselect::importers {

// A number read from text, or why not ("not a number 'abc'", "out of range '1e400'").
struct ParsedNumber {
  double value = 0;
  std::string error;  // "" when value is good (it may still be inf/nan when written so)
};
ParsedNumber parse_number(std::string_view text);

// The canonical form of a problem field's value: integral numbers without a fraction or
// exponent ("128.0", "1.28e2" -> "128"), other numbers in shortest round-trip form, text as
// it is (trimmed). nullopt with `why` set when empty or containing ',' or '='.
std::optional<std::string> canonical_value(std::string_view text, std::string& why);

// A kernel parameter: integer, other number, boolean (true/false, any case) or string.
nlohmann::json typed_value(std::string_view text);

// 0/1, true/false, yes/no (any case); nullopt otherwise.
std::optional<bool> parse_bool(std::string_view text);

// Parameters carried in a kernel name such as "type=triton_BLOCK-M=128_BLOCK-K=32_numwarps=4":
// the name is split at each '_' whose following part contains '=' (so values may contain '_');
// each part "key=value" gives key (lower-cased) -> typed_value(value); a leading part without
// '=' is kept as "base". The example gives {type: triton, block-m: 128, block-k: 32,
// numwarps: 4}.
nlohmann::json parse_kernel_name(std::string_view name);

// Floating-point operations of a problem whose fields say it is a GEMM (m, n, k: 2mnk) or a
// convolution (n, c, k, ho, wo, y, x and optionally g, do, z: 2 n k (c/g) do ho wo z y x);
// nullopt otherwise.
std::optional<double> problem_flops(const KeyValues& problem);

}  // namespace kselect::importers
