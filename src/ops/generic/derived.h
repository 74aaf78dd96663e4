#pragma once
// Derived features of the generic op (docs/generic-op.md, "Derived features"): when a problem's
// fields say it is a convolution (n,c,k,hi,wi,y,x,ho,wo,...) or a GEMM (m,n,k), the flops,
// implicit-GEMM sizes, bytes and arithmetic intensity that the raw fields only imply.
#include <string>
#include <vector>

#include "core/key_values.h"

namespace kselect::generic {

// log2(1 + |v|): defined for 0 and negative values, monotonic in |v|.
double log_feature(double v);

bool has_conv_fields(const KeyValues& problem);
bool has_gemm_fields(const KeyValues& problem);

const std::vector<std::string>& conv_feature_names();
const std::vector<std::string>& gemm_feature_names();
// Write conv_feature_names().size() (gemm_...) values; NaN where a needed field is missing.
void conv_features(const KeyValues& problem, double* out);
void gemm_features(const KeyValues& problem, double* out);

// Bytes per element of a dtype name (fp32 4, fp16/bf16 2, int8/fp8 1, ...); 4 when unknown.
double dtype_bytes(const std::string& dtype);

}  // namespace kselect::generic
