#pragma once
// A GEMM problem: C[M,N] = A[M,K] * B[K,N], CK's layout codes, fp32 or bf16 inputs; and the
// same problem as foreign benchmark files describe it (any dtype and layout word, a device).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/key_values.h"

namespace kselect::gemm {

// bf16: bf16 inputs, fp32 accumulation, fp32 output C.
enum class DType { kFp32, kBf16 };
// CK's layout code: storage order of A, B, C ('r' row-major, 'c' column-major). C is row-major.
enum class Layout { kRcr, kRrr, kCrr, kCcr };

std::string_view to_string(DType d);
std::string_view to_string(Layout l);
DType parse_dtype(std::string_view text);    // throws InputError
Layout parse_layout(std::string_view text);  // throws InputError
double bytes_per_element(DType d);
inline bool a_row_major(Layout l) {
  return l == Layout::kRcr || l == Layout::kRrr;
}
inline bool b_row_major(Layout l) {
  return l == Layout::kRrr || l == Layout::kCrr;
}

// A GEMM problem as any source describes it: the sizes, dtype and layout as words (CK's
// benchmarks also use fp16, fp8, ..., which the native op does not run), empty when the source
// does not say, and the device it ran on ("" for none). Every GEMM problem text is written from
// one (GemmProblem::to_string() through describe()).
struct ProblemDescription {
  std::int64_t m = 0, n = 0, k = 0, split_k = 1;
  std::string layout, dtype, device;

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  friend bool operator==(const ProblemDescription&, const ProblemDescription&) = default;
};

// Where split_k goes in a problem text. Stored problems are identities (of measurements, models,
// evaluations), and the native op and the importers wrote them in different orders, so each
// keeps its own: kNative "m,n,k,layout,dtype[,split_k]" (split_k only when not 1, no device),
// kImported "m,n,k,split_k,layout,dtype,device". Empty words are left out.
enum class TextOrder { kNative, kImported };
std::string to_text(const ProblemDescription& p, TextOrder order);

struct GemmProblem {
  std::int64_t m = 1, n = 1, k = 1;
  Layout layout = Layout::kRcr;
  DType dtype = DType::kFp32;
  std::int64_t split_k = 1;

  // Parses "m=128,n=1536,k=7168,layout=rcr,dtype=fp32[,split_k=1]"; layout defaults to rcr,
  // dtype to fp32. Throws InputError naming the field for unknown keys or impossible values.
  static GemmProblem parse(std::string_view text, const std::string& source = "");
  static GemmProblem from_key_values(const KeyValues& kv, const std::string& source = "");
  std::string to_string() const;  // canonical form accepted by parse()
  ProblemDescription describe() const;

  // Empty when the problem is possible, else why not (M, N, K >= 1; 1 <= split_k <= K; sizes
  // that fit in memory).
  std::string invalid_reason() const;

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Minimum traffic: read A and B once, write C once (fp32).
  double bytes() const;

  friend bool operator==(const GemmProblem&, const GemmProblem&) = default;
};

}  // namespace kselect::gemm
