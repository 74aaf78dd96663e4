#include "ops/generic/derived.h"

#include <cmath>
#include <limits>

#include "core/text.h"
#include "ops/conv/problem.h"

namespace kselect::generic {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A numeric field, `fallback` when absent, NaN when present but not a number.
double field(const KeyValues& p, const char* key, double fallback = kNaN) {
  auto text = p.get(key);
  if (!text) return fallback;
  auto v = parse_double(*text);
  return v && std::isfinite(*v) ? *v : kNaN;
}

bool has_all(const KeyValues& p, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (!p.has(k)) return false;
  return true;
}

double bytes_per_element(const KeyValues& p) {
  auto dtype = p.get("dtype");
  return dtype_bytes(dtype ? *dtype : "");
}

// Implicit-GEMM sizes of a convolution direction, in true convolution roles (the importers
// give c, hi, wi for the convolution's input and k, ho, wo for its output in every direction).
struct GemmSizes {
  double m, n, k;
};
GemmSizes conv_gemm(const KeyValues& p, double n, double c, double k, double g, double in_sp,
                    double out_sp, double filter) {
  using conv::Direction;
  Direction dir =
      conv::parse_direction(lower(p.get("dir").value_or("F"))).value_or(Direction::kForward);
  if (dir == Direction::kBackwardData) return {n * in_sp, c, k / g * filter};
  if (dir == Direction::kBackwardWeight) return {k, c / g * filter, n * out_sp};
  return {n * out_sp, k, c / g * filter};
}

// Power-of-two divisibility (trailing zero bits, at most 10) of an integer size: kernels often
// apply only to sizes divisible by their vector width or tile, a rule trees cannot read off the
// size itself. NaN for a missing, non-integer or non-positive value.
double pow2_divisibility(double v) {
  if (!(v >= 1) || v != std::floor(v) || v > 9e15) return kNaN;
  auto i = static_cast<unsigned long long>(v);
  int zeros = 0;
  while (zeros < 10 && (i & 1ull) == 0) i >>= 1, ++zeros;
  return zeros;
}

}  // namespace

double log_feature(double v) {
  return std::log2(1.0 + std::fabs(v));
}

double dtype_bytes(const std::string& dtype) {
  if (dtype == "fp16" || dtype == "bf16" || dtype == "half" || dtype == "int16") return 2;
  if (dtype == "int8" || dtype == "fp8" || dtype == "bf8" || dtype == "i8" || dtype == "uint8")
    return 1;
  if (dtype == "fp64" || dtype == "double") return 8;
  return 4;
}

bool has_conv_fields(const KeyValues& p) {
  return has_all(p, {"n", "c", "k", "hi", "wi", "y", "x", "ho", "wo"});
}

bool has_gemm_fields(const KeyValues& p) {
  return has_all(p, {"m", "n", "k"});
}

const std::vector<std::string>& conv_feature_names() {
  static const std::vector<std::string> names = {
      "d_log_flops",   "d_log_gemm_m",       "d_log_gemm_n",       "d_log_gemm_k",
      "d_log_bytes",   "d_intensity",        "d_is_1x1",           "d_is_strided",
      "d_is_grouped",  "d_is_depthwise",     "d_log_c_per_group",  "d_log_k_per_group",
      "d_pow2_n",      "d_pow2_c_per_group", "d_pow2_k_per_group", "d_pow2_gemm_m",
      "d_pow2_gemm_n", "d_pow2_gemm_k",      "d_pow2_out_spatial"};
  return names;
}

const std::vector<std::string>& gemm_feature_names() {
  static const std::vector<std::string> names = {
      "d_log_flops",    "d_log_bytes", "d_intensity", "d_log_ratio_mn", "d_log_ratio_mk",
      "d_log_ratio_nk", "d_pow2_m",    "d_pow2_n",    "d_pow2_k"};
  return names;
}

void conv_features(const KeyValues& p, double* out) {
  const double n = field(p, "n"), c = field(p, "c"), k = field(p, "k"), g = field(p, "g", 1);
  const double di = field(p, "di", 1), hi = field(p, "hi"), wi = field(p, "wi");
  const double d_o = field(p, "do", 1), ho = field(p, "ho"), wo = field(p, "wo");
  const double z = field(p, "z", 1), y = field(p, "y"), x = field(p, "x");
  const double in_sp = di * hi * wi, out_sp = d_o * ho * wo, filter = z * y * x;
  const double flops = 2 * n * k * (c / g) * out_sp * filter;
  const double bytes =
      bytes_per_element(p) * (n * c * in_sp + k * (c / g) * filter + n * k * out_sp);
  const GemmSizes gemm = conv_gemm(p, n, c, k, g, in_sp, out_sp, filter);
  const bool strided =
      field(p, "stride_h", 1) > 1 || field(p, "stride_w", 1) > 1 || field(p, "stride_d", 1) > 1;
  const double values[] = {log_feature(flops),        log_feature(gemm.m),
                           log_feature(gemm.n),       log_feature(gemm.k),
                           log_feature(bytes),        flops / bytes,
                           filter == 1 ? 1.0 : 0.0,   strided ? 1.0 : 0.0,
                           g > 1 ? 1.0 : 0.0,         g > 1 && c / g == 1 ? 1.0 : 0.0,
                           log_feature(c / g),        log_feature(k / g),
                           pow2_divisibility(n),      pow2_divisibility(c / g),
                           pow2_divisibility(k / g),  pow2_divisibility(gemm.m),
                           pow2_divisibility(gemm.n), pow2_divisibility(gemm.k),
                           pow2_divisibility(out_sp)};
  std::copy(std::begin(values), std::end(values), out);
}

void gemm_features(const KeyValues& p, double* out) {
  const double m = field(p, "m"), n = field(p, "n"), k = field(p, "k");
  const double flops = 2 * m * n * k;
  const double bytes = bytes_per_element(p) * (m * k + k * n + m * n);
  const double values[] = {log_feature(flops),   log_feature(bytes),   flops / bytes,
                           std::log2(m / n),     std::log2(m / k),     std::log2(n / k),
                           pow2_divisibility(m), pow2_divisibility(n), pow2_divisibility(k)};
  std::copy(std::begin(values), std::end(values), out);
}

}  // namespace kselect::generic
