#pragma once
// How evaluation groups GEMM problems (Operation::report_groups): CK's shape families and K
// regimes, the picked kernel's pipeline, layout and dtype (slices), and the hard cases whose
// regret is reported on its own (strata).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/gemm/config.h"
#include "ops/gemm/problem.h"
#include "ops/operation.h"

namespace kselect::gemm {

// fp16-table binning: tiny M<8, small 8<=M<128, medium 128<=M<1024, large M>=1024.
std::string m_family_fp16(std::int64_t m);
// CK evaluation-code binning: tiny M<32, small 32<=M<256, medium 256<=M<4096, large M>=4096.
std::string m_family_eval(std::int64_t m);
// shallow K<512, medium 512<=K<4096, deep K>=4096.
std::string k_regime(std::int64_t k);

// K at or above which a problem is in the "large_k" regret stratum (CK's deep regime).
inline constexpr std::int64_t kLargeK = 4096;

// The GEMM view of one evaluated problem: its shape (when the text is a GEMM problem) and the
// configuration of the picked kernel (when its name is a GEMM kernel name).
struct GemmView {
  std::optional<GemmProblem> problem;
  std::optional<GemmConfig> picked;
};
GemmView gemm_view(std::string_view problem, std::string_view picked);

// (slice, bucket) pairs the problem falls in: m_family_fp16, m_family_eval, k_regime, layout,
// dtype (needs the shape) and pipeline (needs the picked kernel's configuration).
std::vector<std::pair<std::string, std::string>> slice_buckets(const GemmView& view);

// Regret strata of the problem: always "all"; then "m_le_16" (M <= 16), "not_divisible_by_16"
// (M, N or K not a multiple of 16), "large_k" (K >= kLargeK) and "fewer_tiles_than_cores"
// (ceil(M/tile_m) * ceil(N/tile_n) of the picked kernel < cores).
std::vector<std::string> regret_strata(const GemmView& view, int cores);

// The slices and strata of `view` (Operation::report_groups).
ReportGroups report_groups(const GemmView& view, int cores);

}  // namespace kselect::gemm
