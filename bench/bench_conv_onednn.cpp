// Our best fp32 conv configuration against oneDNN's convolution, side by side in one run, on the
// distinct conv layers of ResNet-50 (src/ops/conv/shapes.cpp) in every direction.
//
//   bench_conv_onednn --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       Google Benchmark: oneDNN in our layout, with its own weight layout and with all its own
//       layouts, and our configuration listed in kCases for each (layer, direction, threads);
//   bench_conv_onednn --table[=CASE_SUBSTRING]
//       ours (verified against the direct reference first) and the three oneDNN variants,
//       interleaved run by run (so load from other jobs hits them alike), as a markdown table of
//       median GFLOPS and ours / oneDNN;
//   bench_conv_onednn --search[=CASE_SUBSTRING]
//       times the plausible configurations of `full` for each case, times the fastest five
//       again as --table does (between oneDNN's runs), and prints them and a kCases line: how
//       kCases was chosen (experiments/conv-kernels/README.md).
//
// Batch N = 1: single-image inference is the CPU's usual conv workload, and it keeps a whole
// table (25 layers x 3 directions x every candidate in --search) to minutes on one core; at N = 1
// the late layers are small GEMMs (M = 49 output pixels at 7x7), which is where a library's
// overheads show.
//
// Layouts: ours are CK's NHWGC / GKYXC / NHWGK, which for G = 1 are oneDNN's nhwc / ohwi / nhwc,
// so "oneDNN" reads and writes the very buffers ours does. oneDNN 2.6 has no optimised kernel
// for some of these combinations on an AVX2 machine (it then runs its reference, "ref:any"), so
// two more variants give context: "oneDNN nhwc" keeps our activations but lets oneDNN pick its
// weight layout (format_tag::any: blocked, e.g. OIhw8i8o), and "oneDNN any" lets it pick every
// layout. Their reorders (ours into its layouts) are outside the timing: upper bounds of
// oneDNN's kernels on these layers.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ops/conv/config.h"
#include "ops/conv/kernel.h"
#include "ops/conv/operation.h"
#include "ops/conv/reference.h"
#include "ops/conv/rule_sets.h"
#include "ops/conv/shapes.h"
#include "ops/cpu_gemm_core/placed_buffer.h"

namespace {

using kselect::conv::ConvConfig;
using kselect::conv::Direction;
using kselect::conv::Problem;
using kselect::conv::Specialization;

// Our configuration per (layer, direction, threads), found with --search. Layer labels:
// c{C}k{K}_{H}_{Y}x{X}s{stride} (layer_label).
struct Best {
  const char* isa;  // the micro-kernels' instruction set the search ran on (kernels::to_string)
  const char* layer;
  const char* dir;
  int threads;
  const char* config;
};

const std::vector<Best> kCases = {
    {"avx2", "c3k64_224_7x7s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec1_1_1"},
    {"avx2", "c3k64_224_7x7s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_12x16x2_vec1_"
     "1_1"},
    {"avx2", "c64k64_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c64k64_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c64k64_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c64k64_56_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_12x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c64k64_56_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec8_8_"
     "1_filter3x3"},
    {"avx2", "c64k64_56_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_"
     "1_filter3x3"},
    {"avx2", "c64k256_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_96x32x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c64k256_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_96x32x128_1x1x1_12x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c64k256_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_96x32x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c256k64_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x16x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c256k64_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c256k64_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_64x32x128_1x1x1_8x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c256k128_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x16x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c256k128_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_96x16x128_1x1x1_12x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c256k128_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c128k128_56_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c128k128_56_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter3x3"},
    {"avx2", "c128k128_56_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_"
     "1_filter3x3"},
    {"avx2", "c128k512_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c128k512_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_12x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c128k512_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_32x64x128_1x1x1_8x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c256k512_56_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec8_1_1_"
     "filter1x1pad0"},
    {"avx2", "c256k512_56_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter1x1pad0"},
    {"avx2", "c256k512_56_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x16x128_1x1x1_12x16x2_vec8_"
     "1_1_filter1x1pad0"},
    {"avx2", "c512k128_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_96x32x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c512k128_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_12x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c512k128_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c128k128_28_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c128k128_28_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_32x64x128_1x1x1_8x16x2_vec8_8_1_"
     "filter3x3"},
    {"avx2", "c128k128_28_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec8_"
     "1_1_filter3x3"},
    {"avx2", "c512k256_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c512k256_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c512k256_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x64x128_1x1x1_6x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c256k256_28_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c256k256_28_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter3x3"},
    {"avx2", "c256k256_28_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec8_"
     "1_1_filter3x3"},
    {"avx2", "c256k1024_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_32x16x128_1x1x1_8x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c256k1024_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x16x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c256k1024_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x64x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c512k1024_28_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x16x2_vec8_1_1_"
     "filter1x1pad0"},
    {"avx2", "c512k1024_28_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_8_1_"
     "filter1x1pad0"},
    {"avx2", "c512k1024_28_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_16x32x128_1x1x1_8x16x2_vec8_1_"
     "1_filter1x1pad0"},
    {"avx2", "c1024k256_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c1024k256_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c1024k256_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_48x64x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c256k256_14_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c256k256_14_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_16x64x128_1x1x1_4x16x2_vec8_8_1_"
     "filter3x3"},
    {"avx2", "c256k256_14_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x64x128_1x1x1_6x16x2_vec8_1_"
     "1_filter3x3"},
    {"avx2", "c1024k512_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c1024k512_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c1024k512_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x64x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c512k512_14_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_12x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c512k512_14_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_12x16x2_vec8_8_"
     "1_filter3x3"},
    {"avx2", "c512k512_14_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_12x16x2_vec8_"
     "1_1_filter3x3"},
    {"avx2", "c512k2048_7_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c512k2048_7_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c512k2048_7_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x32x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx2", "c1024k2048_14_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_12x16x2_vec8_1_1_"
     "filter1x1pad0"},
    {"avx2", "c1024k2048_14_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x16x128_1x1x1_6x16x2_vec8_8_1_"
     "filter1x1pad0"},
    {"avx2", "c1024k2048_14_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_48x32x128_1x1x1_12x16x2_vec8_"
     "1_1_filter1x1pad0"},
    {"avx2", "c2048k512_7_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x16x128_1x1x1_6x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c2048k512_7_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_32x32x128_1x1x1_8x16x2_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx2", "c2048k512_7_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x64x128_1x1x1_6x16x2_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx2", "c512k512_7_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x16x2_vec8_1_1_"
     "filter3x3"},
    {"avx2", "c512k512_7_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x32x1_vec8_8_1_"
     "filter3x3"},
    {"avx2", "c512k512_7_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_"
     "1_1_filter3x3"},
    {"avx512", "c3k64_224_7x7s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1"},
    {"avx512", "c64k64_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c64k64_56_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c64k256_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k64_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k128_56_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c128k128_56_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c128k512_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k512_56_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_1_1_"
     "filter1x1pad0"},
    {"avx512", "c512k128_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c128k128_28_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c512k256_28_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k256_28_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c256k1024_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c512k1024_28_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv4_default_intrawave_48x32x128_1x1x1_6x32x1_vec8_1_1_"
     "filter1x1pad0"},
    {"avx512", "c1024k256_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k256_14_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c1024k512_14_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c512k512_14_3x3s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c512k2048_7_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c1024k2048_14_1x1s2", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x32x1_vec8_1_1_"
     "filter1x1pad0"},
    {"avx512", "c2048k512_7_1x1s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c512k512_7_3x3s1", "fwd", 1,
     "grouped_conv_fwd_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_1_1_"
     "filter3x3"},
    {"avx512", "c3k64_224_7x7s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x32x1_vec1_1_"
     "1"},
    {"avx512", "c64k64_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c64k64_56_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x32x1_vec8_8_1_"
     "filter3x3"},
    {"avx512", "c64k256_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k64_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c256k128_56_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c128k128_56_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter3x3"},
    {"avx512", "c128k512_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c256k512_56_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter1x1pad0"},
    {"avx512", "c512k128_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c128k128_28_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec8_8_1_"
     "filter3x3"},
    {"avx512", "c512k256_28_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k256_28_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter3x3"},
    {"avx512", "c256k1024_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c512k1024_28_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter1x1pad0"},
    {"avx512", "c1024k256_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c256k256_14_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_8_1_"
     "filter3x3"},
    {"avx512", "c1024k512_14_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c512k512_14_3x3s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter3x3"},
    {"avx512", "c512k2048_7_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x32x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c1024k2048_14_1x1s2", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_8_"
     "1_filter1x1pad0"},
    {"avx512", "c2048k512_7_1x1s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_1_"
     "filter1x1stride1pad0"},
    {"avx512", "c512k512_7_3x3s1", "bwd_data", 1,
     "grouped_conv_bwd_data_fp32_nhwgc_2d_compv3_default_intrawave_24x64x128_1x1x1_6x32x1_vec8_8_1_"
     "filter3x3"},
    {"avx512", "c3k64_224_7x7s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_"
     "1"},
    {"avx512", "c64k64_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c64k64_56_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter3x3"},
    {"avx512", "c64k256_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c256k64_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c256k128_56_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_12x16x2_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c128k128_56_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_"
     "1_1_filter3x3"},
    {"avx512", "c128k512_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c256k512_56_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_"
     "1_1_filter1x1pad0"},
    {"avx512", "c512k128_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x32x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c128k128_28_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_"
     "1_filter3x3"},
    {"avx512", "c512k256_28_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_"
     "1_filter1x1stride1pad0"},
    {"avx512", "c256k256_28_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_"
     "1_1_filter3x3"},
    {"avx512", "c256k1024_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c512k1024_28_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_"
     "1_filter1x1pad0"},
    {"avx512", "c1024k256_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c256k256_14_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_24x128x128_1x1x1_6x32x1_vec8_"
     "1_1_filter3x3"},
    {"avx512", "c1024k512_14_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c512k512_14_3x3s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec8_1_"
     "1_filter3x3"},
    {"avx512", "c512k2048_7_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c1024k2048_14_1x1s2", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1pad0"},
    {"avx512", "c2048k512_7_1x1s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv4_default_intrawave_24x128x128_1x1x1_6x32x1_vec1_"
     "1_1_filter1x1stride1pad0"},
    {"avx512", "c512k512_7_3x3s1", "bwd_weight", 1,
     "grouped_conv_bwd_weight_fp32_nhwgc_2d_compv3_default_intrawave_48x64x128_1x1x1_6x32x1_vec1_1_"
     "1_filter3x3"},
};

// The distinct ResNet-50 layers at N = 1, fp32, 2-D, in network order.
std::vector<Problem> resnet50_layers() {
  kselect::conv::ShapeOptions o;
  o.family = "resnet50";
  o.count = 1000;  // every layer x batch x direction the family has
  o.max_gflop = 1e6;
  o.spatial_dims = {2};
  o.directions = {Direction::kForward};
  std::vector<Problem> layers;
  for (const Problem& p : kselect::conv::generate_shapes(o))
    if (p.n == 1) layers.push_back(p);
  return layers;
}

std::string layer_label(const Problem& p) {
  return "c" + std::to_string(p.c) + "k" + std::to_string(p.k) + "_" + std::to_string(p.hi) + "_" +
         std::to_string(p.y) + "x" + std::to_string(p.x) + "s" + std::to_string(p.stride[1]);
}

struct Case {
  Problem p;
  int threads;
  std::string config;  // empty in --search

  std::string name() const {
    return layer_label(p) + "/" + std::string(kselect::conv::ck_direction(*p.dir)) +
           "/threads:" + std::to_string(threads);
  }
};

Problem in_direction(Problem p, Direction d) {
  p.dir = d;
  return p;
}

// The instruction set our micro-kernels run here: kCases lists configurations per ISA, since
// the fastest register tile differs (6x32 on AVX-512, 6x16 or 12x16 on AVX2).
const std::string& our_isa() {
  static const std::string isa = kselect::conv::ConvKernel(ConvConfig{}).isa();
  return isa;
}

// Every (layer, direction) for `threads`, with its kCases configuration where it has one.
std::vector<Case> all_cases(int threads) {
  std::vector<Case> out;
  for (const Problem& layer : resnet50_layers())
    for (Direction d :
         {Direction::kForward, Direction::kBackwardData, Direction::kBackwardWeight}) {
      Case c{in_direction(layer, d), threads, ""};
      for (const Best& b : kCases)
        if (b.isa == our_isa() && b.threads == threads && layer_label(layer) == b.layer &&
            kselect::conv::ck_direction(d) == b.dir)
          c.config = b.config;
      out.push_back(c);
    }
  return out;
}

// One tensor in placed memory (kernels::PlacedBuffer): the same cache placement in every
// process, as kselect's own workloads place theirs, so a rerun of the table meets the same set
// conflicts as the last one.
struct PlacedFloats {
  kselect::kernels::PlacedBuffer memory;
  size_t count;
  PlacedFloats(size_t n, kselect::kernels::Placement where)
      : memory(std::max<size_t>(n, 1) * sizeof(float), where), count(n) {}
  float* data() const { return reinterpret_cast<float*>(memory.data()); }
  float* begin() const { return data(); }
  float* end() const { return data() + count; }
};

// The three tensors in CK's layouts, fp32, random in [-1, 1]; the direction's result is one of
// them, overwritten.
struct Tensors {
  PlacedFloats x, w, y;
  explicit Tensors(const Problem& p)
      : x(size_t(kselect::conv::x_elements(p)), kselect::kernels::Placement::kOperandA),
        w(size_t(kselect::conv::w_elements(p)), kselect::kernels::Placement::kOperandB),
        y(size_t(kselect::conv::y_elements(p)), kselect::kernels::Placement::kOperandC) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto* v : {&x, &w, &y})
      for (float& e : *v) e = d(rng);
  }
};

// What a Google Benchmark row times: one run of ours or of a oneDNN primitive.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void run() = 0;
};

// Ours through the conv op's public seam: the caller's buffers wrapped, the kernel bound.
class Ours final : public Runner {
 public:
  Ours(const Case& c, Tensors& t, const std::string& config) {
    const auto& op = kselect::conv::operation();
    void* x = t.x.data();
    void* w = t.w.data();
    void* y = t.y.data();
    std::vector<void*> operands;
    switch (*c.p.dir) {
      case Direction::kForward:
        operands = {x, w, y};
        break;
      case Direction::kBackwardData:
        operands = {y, w, x};
        break;
      case Direction::kBackwardWeight:
        operands = {x, y, w};
        break;
    }
    workload_ = op.wrap_buffers(kselect::conv::native_text(c.p), operands);
    bound_ = op.bind(config, *workload_, c.threads);
  }
  void run() override { bound_->run(); }
  // "" when the last run's result matches the direct reference convolution, else the first
  // element that does not.
  std::string verify() { return bound_->verify(); }

 private:
  std::unique_ptr<kselect::Workload> workload_;
  std::unique_ptr<kselect::BoundKernel> bound_;
};

// Which tensors oneDNN may lay out as it likes (format_tag::any); the others are ours.
enum class Layouts { kOurs, kOurActivations, kAny };

// oneDNN's primitive for the case: tensors in our layout are our buffers; those in layouts it
// picked are its own memory, filled by reorders from ours.
class OneDnn final : public Runner {
 public:
  OneDnn(const Case& c, Tensors& t, Layouts layouts)
      : eng_(dnnl::engine::kind::cpu, 0), stream_(eng_) {
    using dnnl::memory;
    using tag = memory::format_tag;
    omp_set_num_threads(c.threads);  // before the primitive is created: it sizes its work by it
    const Problem& p = c.p;
    const memory::dims src_dims{p.n, p.c, p.hi, p.wi}, w_dims{p.k, p.c, p.y, p.x},
        dst_dims{p.n, p.k, p.ho, p.wo};
    const memory::dims strides{p.stride[1], p.stride[2]}, pad_l{p.pad[1], p.pad[2]},
        pad_r{p.right_pad(1), p.right_pad(2)};
    auto md = [&](const memory::dims& dims, tag plain, bool free) {
      return memory::desc(dims, memory::data_type::f32, free ? tag::any : plain);
    };
    const bool any = layouts == Layouts::kAny;
    const memory::desc src_md = md(src_dims, tag::nhwc, any),
                       w_md = md(w_dims, tag::ohwi, layouts != Layouts::kOurs),
                       dst_md = md(dst_dims, tag::nhwc, any);
    const auto algo = dnnl::algorithm::convolution_direct;
    // Backward primitives take the forward training primitive as their hint.
    dnnl::convolution_forward::primitive_desc fwd(
        {*p.dir == Direction::kForward ? dnnl::prop_kind::forward_inference
                                       : dnnl::prop_kind::forward_training,
         algo, src_md, w_md, dst_md, strides, pad_l, pad_r},
        eng_);
    memory::desc x_md, w_used, y_md;
    switch (*p.dir) {
      case Direction::kForward:
        prim_ = dnnl::convolution_forward(fwd);
        impl_ = fwd.impl_info_str();
        x_md = fwd.src_desc(), w_used = fwd.weights_desc(), y_md = fwd.dst_desc();
        break;
      case Direction::kBackwardData: {
        dnnl::convolution_backward_data::primitive_desc pd(
            {algo, src_md, w_md, dst_md, strides, pad_l, pad_r}, eng_, fwd);
        prim_ = dnnl::convolution_backward_data(pd);
        impl_ = pd.impl_info_str();
        x_md = pd.diff_src_desc(), w_used = pd.weights_desc(), y_md = pd.diff_dst_desc();
        break;
      }
      case Direction::kBackwardWeight: {
        dnnl::convolution_backward_weights::primitive_desc pd(
            {algo, src_md, w_md, dst_md, strides, pad_l, pad_r}, eng_, fwd);
        prim_ = dnnl::convolution_backward_weights(pd);
        impl_ = pd.impl_info_str();
        x_md = pd.src_desc(), w_used = pd.diff_weights_desc(), y_md = pd.diff_dst_desc();
        break;
      }
    }
    auto place = [&](const memory::desc& want, const memory::dims& dims, tag plain,
                     const PlacedFloats& ours) {
      memory plain_mem({dims, memory::data_type::f32, plain}, eng_, ours.data());
      if (want == plain_mem.get_desc()) return plain_mem;
      memory own(want, eng_);
      dnnl::reorder(plain_mem, own).execute(stream_, plain_mem, own);
      stream_.wait();
      return own;
    };
    const memory x = place(x_md, src_dims, tag::nhwc, t.x),
                 w = place(w_used, w_dims, tag::ohwi, t.w),
                 y = place(y_md, dst_dims, tag::nhwc, t.y);
    switch (*p.dir) {
      case Direction::kForward:
        args_ = {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}};
        break;
      case Direction::kBackwardData:
        args_ = {{DNNL_ARG_DIFF_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_DST, y}};
        break;
      case Direction::kBackwardWeight:
        args_ = {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_WEIGHTS, w}, {DNNL_ARG_DIFF_DST, y}};
        break;
    }
  }
  const std::string& impl() const {
    return impl_;
  }  // oneDNN's implementation, e.g. brg:avx512_core
  void run() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }

 private:
  dnnl::engine eng_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  std::string impl_;
};

void set_gflops(benchmark::State& state, const Problem& p) {
  state.counters["GFLOPS"] =
      benchmark::Counter(p.flops() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bench(benchmark::State& state, const Case& c,
           const std::function<std::unique_ptr<Runner>(Tensors&)>& make) {
  Tensors t(c.p);
  auto runner = make(t);
  for (auto _ : state) runner->run();
  set_gflops(state, c.p);
}

// The calling thread's CPU time (s). One-thread runs are timed by it, not by the wall clock:
// on a shared machine the wall clock also counts the time other jobs hold the core, which
// varies from run to run (load average 7-14 on 2 cores while this table was made).
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Seconds of one run: the median of `rounds` timings, each over enough runs for ~2 ms; thread
// CPU time for one thread, wall time for more.
template <typename R>
double seconds_per_run(R& r, int rounds, int threads) {
  r.run();
  auto now = [&] {
    return threads == 1
               ? cpu_seconds()
               : std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
                     .count();
  };
  auto time = [&](int runs) {
    const double t0 = now();
    for (int i = 0; i < runs; ++i) r.run();
    return (now() - t0) / runs;
  };
  const int runs = std::max(1, int(2e-3 / time(1)));
  std::vector<double> t;
  for (int i = 0; i < rounds; ++i) t.push_back(time(runs));
  std::nth_element(t.begin(), t.begin() + rounds / 2, t.end());
  return t[size_t(rounds / 2)];
}

// The `full` rule set's fp32 2-D configurations for the case's direction that run it, pruned
// to the plausible ones so a search takes seconds per case: no task splitting on one thread
// (warp_m = warp_n = warp_k = 1, no two_stage: they only add partial sums), the most specific
// specialisation the layer allows (each removes work from the default path and none adds any).
std::vector<ConvConfig> candidates(const Case& c) {
  const auto& op = kselect::conv::operation();
  const std::string text = kselect::conv::native_text(c.p);
  const Problem& p = c.p;
  const bool one_by_one = p.y == 1 && p.x == 1 && p.pad[1] == 0 && p.pad[2] == 0;
  const Specialization best_special =
      one_by_one ? (p.stride[1] == 1 && p.stride[2] == 1 ? Specialization::kFilter1x1Stride1Pad0
                                                         : Specialization::kFilter1x1Pad0)
      : p.y == 3 && p.x == 3 ? Specialization::kFilter3x3
                             : Specialization::kDefault;
  std::vector<ConvConfig> out;
  for (const ConvConfig& g : kselect::conv::rule_set("full")) {
    if (g.dir != *p.dir || g.dtype != "fp32" || g.ndim != 2) continue;
    if (g.specialization != best_special) continue;
    if (c.threads == 1 && (g.warp_m * g.warp_n * g.warp_k != 1 || g.two_stage)) continue;
    if (op.unsupported_reason(g.name(), text).empty()) out.push_back(g);
  }
  return out;
}

// The benchmark claims "the best configuration of `full`": refuse names outside it.
bool in_full_set(const std::string& name) {
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> out;
    for (const ConvConfig& g : kselect::conv::rule_set("full")) out.insert(g.name());
    return out;
  }();
  return names.count(name) > 0;
}

bool wanted(const Case& c, const std::string& filter) {
  return c.name().find(filter) != std::string::npos;
}

int search(const std::string& filter, int threads) {
  for (const Case& c : all_cases(threads)) {
    if (!wanted(c, filter)) continue;
    Tensors t(c.p);
    std::vector<std::pair<double, std::string>> ranked;
    const std::vector<ConvConfig> list = candidates(c);
    for (size_t i = 0; i < list.size(); ++i) {
      std::fprintf(stderr, "\r%s: %zu/%zu   ", c.name().c_str(), i, list.size());
      Ours ours(c, t, list[i].name());
      ranked.emplace_back(c.p.flops() / seconds_per_run(ours, 3, c.threads) / 1e9, list[i].name());
    }
    std::sort(ranked.rbegin(), ranked.rend());
    // Back to back, a kernel runs with its operands hot; --table times it between oneDNN's
    // runs. The five fastest are timed again that way (7 rounds, median), so the pick is the
    // fastest where it is compared.
    ranked.resize(std::min<size_t>(5, ranked.size()));
    OneDnn dnn(c, t, Layouts::kOurActivations);
    std::vector<std::unique_ptr<Ours>> top;
    for (const auto& [rate, name] : ranked) top.push_back(std::make_unique<Ours>(c, t, name));
    std::vector<std::vector<double>> times(top.size());
    for (int round = 0; round < 7; ++round)
      for (size_t i = 0; i < top.size(); ++i) {
        times[i].push_back(seconds_per_run(*top[i], 1, c.threads));
        seconds_per_run(dnn, 1, c.threads);
      }
    for (size_t i = 0; i < top.size(); ++i) {
      std::nth_element(times[i].begin(), times[i].begin() + 3, times[i].end());
      ranked[i].first = c.p.flops() / times[i][3] / 1e9;
    }
    std::sort(ranked.rbegin(), ranked.rend());
    std::fprintf(stderr, "\n");
    std::printf("%s: %zu candidates\n", c.name().c_str(), ranked.size());
    for (size_t i = 0; i < std::min<size_t>(5, ranked.size()); ++i)
      std::printf("  %8.1f GFLOPS  %s\n", ranked[i].first, ranked[i].second.c_str());
    if (!ranked.empty())
      std::printf("  kCases: {\"%s\", \"%s\", \"%s\", %d, \"%s\"},\n", our_isa().c_str(),
                  layer_label(c.p).c_str(),
                  std::string(kselect::conv::ck_direction(*c.p.dir)).c_str(), threads,
                  ranked[0].second.c_str());
    std::fflush(stdout);
  }
  return 0;
}

// One markdown row per case: median GFLOPS of ours and oneDNN's three layout variants, timed in
// alternation, with oneDNN's implementation names (ref:any is its reference convolution).
int table(const std::string& filter, int threads) {
  std::printf(
      "| layer | dir | ours | oneDNN | ours / oneDNN | oneDNN nhwc | ours / oneDNN nhwc | "
      "oneDNN any | oneDNN impls (same, nhwc, any) | our configuration |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : all_cases(threads)) {
    if (!wanted(c, filter) || c.config.empty()) continue;
    Tensors t(c.p);
    Ours ours(c, t, c.config);
    ours.run();  // verified before it is timed: a fast wrong kernel is no result
    if (std::string why = ours.verify(); !why.empty()) {
      std::printf("| %s | %s | %s: %s |\n", layer_label(c.p).c_str(),
                  std::string(kselect::conv::ck_direction(*c.p.dir)).c_str(), c.config.c_str(),
                  why.c_str());
      continue;
    }
    OneDnn same(c, t, Layouts::kOurs), nhwc(c, t, Layouts::kOurActivations),
        any(c, t, Layouts::kAny);
    // oneDNN's reference convolution (ref:any: its fallback where no optimised kernel takes the
    // layouts) takes seconds per run and is no kernel to compare with: not timed.
    OneDnn* dnn[3] = {&same, &nhwc, &any};
    std::vector<double> times[4];
    for (int round = 0; round < 7; ++round) {
      times[0].push_back(seconds_per_run(ours, 1, c.threads));
      for (int i = 0; i < 3; ++i)
        if (dnn[i]->impl().rfind("ref", 0) != 0)
          times[i + 1].push_back(seconds_per_run(*dnn[i], 1, c.threads));
    }
    char g[4][32], ratio[2][32];
    double rate[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
      std::vector<double>& v = times[i];
      std::snprintf(g[i], sizeof g[i], "-");
      if (v.empty()) continue;
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      rate[i] = c.p.flops() / v[v.size() / 2] / 1e9;
      std::snprintf(g[i], sizeof g[i], "%.1f", rate[i]);
    }
    for (int i = 0; i < 2; ++i) {
      std::snprintf(ratio[i], sizeof ratio[i], "-");
      if (rate[i + 1] > 0) std::snprintf(ratio[i], sizeof ratio[i], "%.2f", rate[0] / rate[i + 1]);
    }
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s | %s |\n",
                layer_label(c.p).c_str(),
                std::string(kselect::conv::ck_direction(*c.p.dir)).c_str(), g[0], g[1], ratio[0],
                g[2], ratio[1], g[3], same.impl().c_str(), nhwc.impl().c_str(), any.impl().c_str(),
                c.config.c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--threads=", 10) == 0) threads = std::atoi(argv[i] + 10);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--search", 8) == 0)
      return search(argv[i][8] == '=' ? argv[i] + 9 : "", threads);
    if (std::strncmp(argv[i], "--table", 7) == 0)
      return table(argv[i][7] == '=' ? argv[i] + 8 : "", threads);
  }
  for (int th : {1, 2}) {
    for (const Case& c : all_cases(th)) {
      if (c.config.empty()) continue;
      if (!in_full_set(c.config)) {
        std::fprintf(stderr, "%s is not in the full rule set: rerun --search\n", c.config.c_str());
        return 1;
      }
      // Each variant on its own Google Benchmark row: "onednn", "onednn_nhwc", "onednn_any",
      // "kselect" + the case.
      auto add = [&c](const std::string& label,
                      std::function<std::unique_ptr<Runner>(Tensors&)> make) {
        benchmark::RegisterBenchmark((label + c.name()).c_str(),
                                     [c, make](benchmark::State& s) { bench(s, c, make); })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      };
      add("onednn/", [c](Tensors& t) { return std::make_unique<OneDnn>(c, t, Layouts::kOurs); });
      add("onednn_nhwc/",
          [c](Tensors& t) { return std::make_unique<OneDnn>(c, t, Layouts::kOurActivations); });
      add("onednn_any/", [c](Tensors& t) { return std::make_unique<OneDnn>(c, t, Layouts::kAny); });
      add("kselect/", [c](Tensors& t) { return std::make_unique<Ours>(c, t, c.config); });
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
