#include "ops/gemm/problem.h"

#include "core/error.h"

namespace kselect::gemm {

std::string_view to_string(DType d) {
  return d == DType::kFp32 ? "fp32" : "bf16";
}

std::string_view to_string(Layout l) {
  switch (l) {
    case Layout::kRcr:
      return "rcr";
    case Layout::kRrr:
      return "rrr";
    case Layout::kCrr:
      return "crr";
    case Layout::kCcr:
      return "ccr";
  }
  return "?";
}

DType parse_dtype(std::string_view text) {
  if (text == "fp32") return DType::kFp32;
  if (text == "bf16") return DType::kBf16;
  throw InputError("", 0, "dtype",
                   "unknown dtype '" + std::string(text) + "' (expected fp32 or bf16)");
}

Layout parse_layout(std::string_view text) {
  for (Layout l : {Layout::kRcr, Layout::kRrr, Layout::kCrr, Layout::kCcr})
    if (to_string(l) == text) return l;
  throw InputError("", 0, "layout",
                   "unknown layout '" + std::string(text) + "' (expected rcr, rrr, crr or ccr)");
}

double bytes_per_element(DType d) {
  return d == DType::kFp32 ? 4.0 : 2.0;
}

GemmProblem GemmProblem::parse(std::string_view text, const std::string& source) {
  return from_key_values(KeyValues::parse(text, source), source);
}

GemmProblem GemmProblem::from_key_values(const KeyValues& kv, const std::string& source) {
  auto unknown = kv.unknown_keys({"m", "n", "k", "layout", "dtype", "split_k"});
  if (!unknown.empty())
    throw InputError(source, 0, unknown.front(),
                     "unknown GEMM problem field (expected m, n, k, layout, dtype, split_k)");
  GemmProblem p;
  p.m = kv.require_int("m");
  p.n = kv.require_int("n");
  p.k = kv.require_int("k");
  p.split_k = kv.get_int("split_k", 1);
  if (auto l = kv.get("layout")) p.layout = parse_layout(*l);
  if (auto d = kv.get("dtype")) p.dtype = parse_dtype(*d);
  if (std::string why = p.invalid_reason(); !why.empty()) throw InputError(source, 0, "", why);
  return p;
}

std::string to_text(const ProblemDescription& p, TextOrder order) {
  KeyValues out;
  auto word = [&out](const char* key, const std::string& value) {
    if (!value.empty()) out.set(key, value);
  };
  out.set("m", std::to_string(p.m));
  out.set("n", std::to_string(p.n));
  out.set("k", std::to_string(p.k));
  if (order == TextOrder::kImported) out.set("split_k", std::to_string(p.split_k));
  word("layout", p.layout);
  word("dtype", p.dtype);
  if (order == TextOrder::kNative && p.split_k != 1) out.set("split_k", std::to_string(p.split_k));
  if (order == TextOrder::kImported) word("device", p.device);
  return out.to_string();
}

ProblemDescription GemmProblem::describe() const {
  return {
      m, n, k, split_k, std::string(gemm::to_string(layout)), std::string(gemm::to_string(dtype)),
      ""};
}

std::string GemmProblem::to_string() const {
  return to_text(describe(), TextOrder::kNative);
}

std::string GemmProblem::invalid_reason() const {
  if (m < 1 || n < 1 || k < 1) return "M, N and K must be >= 1";
  if (split_k < 1 || split_k > k) return "split_k must be between 1 and K";
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 33;  // 32 GiB of fp32: beyond any host
  if (m > kMaxElements / k || k > kMaxElements / n || m > kMaxElements / n)
    return "problem too large for host memory (an operand exceeds 2^33 elements)";
  return "";
}

double GemmProblem::bytes() const {
  double in = bytes_per_element(dtype);
  return in * (double(m) * double(k) + double(k) * double(n)) + 4.0 * double(m) * double(n);
}

}  // namespace kselect::gemm
