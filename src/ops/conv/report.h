#pragma once
// How evaluation groups conv problems (Operation::report_groups): direction, dimension, dtype,
// the size of the GEMM the direction runs (CK's evaluation buckets on its M and K regimes on
// its K), the picked kernel's pipeline and specialisation (slices), and the hard cases whose
// regret is reported on its own (strata).
#include <string>
#include <string_view>

#include "ops/operation.h"

namespace kselect::conv {

// Slices: direction (fwd, bwd_data, bwd_weight), ndim (2d, 3d), dtype, gemm_m (tiny M<32,
// small M<256, medium M<4096, large), gemm_k (shallow K<512, medium K<4096, deep) of the
// per-group GEMM, and the picked kernel's pipeline and specialization. Strata: "all";
// "depthwise" (G = C = K), "grouped" (1 < G, not depthwise), "one_by_one" (1x1 filter) and
// "fewer_tiles_than_cores" (the picked kernel's G * ceil(M/tile_m) * ceil(N/tile_n) < cores).
// Text that is not a native conv problem gets the "all" stratum alone.
ReportGroups report_groups(std::string_view problem, std::string_view picked, int cores);

}  // namespace kselect::conv
