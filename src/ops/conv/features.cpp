#include "ops/conv/features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "core/error.h"
#include "ops/conv/cpu/driver.h"
#include "ops/cpu_gemm_cost/cycle_estimate.h"

namespace kselect::conv {

namespace {

using kernels::ceil_div;

// CK's 38 problem features, in CK's order (its 30 2-D ones, then the 8 it added for 3-D).
const std::vector<std::string> kCkProblem = {"N",
                                             "C",
                                             "K",
                                             "G",
                                             "Hi",
                                             "Wi",
                                             "Y",
                                             "X",
                                             "stride_h",
                                             "stride_w",
                                             "pad_h",
                                             "pad_w",
                                             "Ho",
                                             "Wo",
                                             "log2_N",
                                             "log2_C",
                                             "log2_K",
                                             "log2_G",
                                             "log2_Hi",
                                             "log2_Wi",
                                             "log2_spatial",
                                             "log2_filter",
                                             "log2_output",
                                             "arithmetic_intensity",
                                             "filter_area",
                                             "is_1x1_conv",
                                             "is_3x3_conv",
                                             "channels_per_group",
                                             "aspect_ratio_hw",
                                             "aspect_ratio_filter",
                                             "is_3d",
                                             "Di",
                                             "Z",
                                             "Do",
                                             "stride_d",
                                             "pad_d",
                                             "dilation_h",
                                             "dilation_w"};

// CK's 8 group features.
const std::vector<std::string> kCkGroup = {"log2_channels_per_group",
                                           "log2_output_channels_per_group",
                                           "is_depthwise",
                                           "group_density",
                                           "is_small_group",
                                           "channels_product_per_group",
                                           "batch_group_product",
                                           "is_small_batch_grouped"};

// CK's 21 kernel features. CK describes a GPU kernel; each is filled from the CPU
// configuration's analogous axis (compute_row says which), and the ones with no analogue are
// constant 0.
const std::vector<std::string> kCkKernel = {"block_size",
                                            "gemm_m_per_block",
                                            "gemm_n_per_block",
                                            "pipeline",
                                            "num_warps",
                                            "tile_volume",
                                            "tile_mn",
                                            "lds_usage_estimate",
                                            "lds_usage_ratio",
                                            "block_tile_ratio_m",
                                            "block_tile_ratio_n",
                                            "block_efficiency",
                                            "is_compv3",
                                            "is_compv4",
                                            "is_compv5",
                                            "is_intrawave",
                                            "has_dsb",
                                            "has_si",
                                            "is_basic",
                                            "is_compv6",
                                            "is_mem"};

// CK's 18 interaction features, on CK's forward-style mapping for every direction: the GEMM,
// features::ck_tile_names, the ratios.
const std::vector<std::string> kCkGemmOutput = {"gemm_m_output", "gemm_n_output", "gemm_k_output"};
const std::vector<std::string> kCkRatios = {
    "ratio_gemm_m_to_tile_m",      "ratio_gemm_n_to_tile_n",      "ratio_gemm_k_to_tile_k",
    "problem_smaller_than_tile_m", "problem_smaller_than_tile_n", "problem_smaller_than_tile_k"};

// CK's kernel features that kselect keeps: those with a CPU meaning that no feature below
// repeats (block_size is tile_k, gemm_*_per_block are tile_m and tile_n; the pipelines and
// suffixes the CPU has not are constant).
const std::vector<std::string> kCkKernelKept = {
    "pipeline",        "num_warps",        "tile_volume",  "tile_mn", "lds_usage_estimate",
    "lds_usage_ratio", "block_efficiency", "is_intrawave", "has_dsb"};

// kselect's features (docs/features.md, "Conv features", says why each exists): the problem's
// words, the implicit GEMM each direction runs (per group; G is its batch count), every
// configuration field, the tile fit on that GEMM, and the CPU driver's costs.
const std::vector<std::string> kKselect = {
    // problem
    "direction", "ndim", "bytes_per_element", "dilation_d", "asymmetric_padding",
    // the direction's GEMM
    "gemm_m", "gemm_n", "gemm_k", "log2_gemm_m", "log2_gemm_n", "log2_gemm_k", "log2_gemm_mnk",
    "gemm_arithmetic_intensity", "gathered_run",
    // the configuration
    "kernel_direction", "kernel_ndim", "kernel_bytes_per_element", "tile_m", "tile_n", "tile_k",
    "warp_m", "warp_n", "warp_k", "warp_tile_m", "warp_tile_n", "warp_tile_k", "scheduler",
    "epilogue", "specialization", "vec_a", "vec_b", "vec_c", "two_stage",
    // the tiles on the direction's GEMM
    "gemm_tiles_m", "gemm_tiles_n", "gemm_tiles_k", "gemm_output_tiles", "gemm_tile_eff_m",
    "gemm_tile_eff_n", "gemm_tile_eff_k", "gemm_overall_tile_efficiency", "gemm_cu_utilization",
    "ratio_gemm_m_tile", "ratio_gemm_n_tile", "ratio_gemm_k_tile", "gemm_smaller_than_tile_m",
    "gemm_smaller_than_tile_n", "gemm_smaller_than_tile_k",
    // the CPU driver
    "tile_util_m", "tile_util_n", "tile_util_k", "padded_work_efficiency", "micro_util_m",
    "micro_util_n", "micro_tiles_per_block", "accumulator_vectors", "k_parts", "tasks",
    "tasks_per_core", "wave_quantization_efficiency", "k_tiles_per_task", "log2_flops_per_task",
    "a_gathered", "a_packed", "b_gathered", "b_packed", "b_cached", "vector_gather",
    "gather_bytes_per_flop", "l1_panel_ratio", "l2_block_ratio", "log2_micro_calls",
    "log2_flops_per_micro_call", "log2_est_cycles", "est_flops_per_cycle", "est_copy_share",
    "est_overhead_share",
    // the paths the problem decides (cpu::problem_paths)
    "col2im", "direct_a", "direct_b", "dense_b", "k_outer",
    // the micro-kernel calls of that path
    "log2_path_micro_calls", "path_call_depth", "path_call_fill", "path_call_ratio"};

const std::vector<features::Schema>& schemas() {
  using features::concat_names;
  static const std::vector<std::string> hw = features::hardware_name_list();
  static const std::vector<features::Schema> all = {
      {"kselect",
       concat_names({&kCkProblem, &kCkGroup, &kCkKernelKept, &hw, &kKselect}),
       {"pipeline", "direction", "kernel_direction", "scheduler", "epilogue", "specialization"}},
      {"ck97",
       concat_names({&kCkProblem, &kCkGroup, &kCkKernel, &kCkGemmOutput, &features::ck_tile_names(),
                     &kCkRatios, &hw}),
       {"pipeline"}},
  };
  return all;
}

// Every feature: ck97's, then kselect's that ck97 lacks.
const std::vector<std::string>& full_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = schemas()[1].features;
    out.insert(out.end(), kKselect.begin(), kKselect.end());
    return out;
  }();
  return names;
}

constexpr int kCkCount = 38 + 8 + 21 + 18 + 12;
constexpr int kFullCount = kCkCount + 86;

double log2_max1(double x) {
  return std::log2(std::max(x, 1.0));
}
using features::flag;

// Pieces of [0, len) cut at every multiple of a and of b.
double cut_pieces(std::int64_t len, std::int64_t a, std::int64_t b) {
  if (len <= 0) return 0;
  const std::int64_t last = len - 1, both = std::lcm(a, b);
  return double(last / a + last / b - last / both + 1);
}

// The micro-kernel calls one group's GEMM makes along M, N and K. The blocked walk makes one per
// register tile and K slice; the image read in place (cpu/direct.h) cuts them finer: forward's
// and backward data's rows (output pixels) at every output-row end, backward weight's K (output
// pixels) likewise, and the columns read in place (A's for forward, B's for backward weight) at
// every end of a contiguous range. Each call loads and stores its C tile, so a path that cuts a
// problem into short calls costs more than its flops say (experiments/conv/README.md).
struct PathCalls {
  double m = 0, n = 0, k = 0;
  cpu::GemmShape gemm{};  // the GEMM they walk: the direction's, or col2im's column product
};

PathCalls path_calls(const Problem& p, const ConvConfig& c, const cpu::GemmShape& s,
                     const cpu::ProblemPaths& paths) {
  const std::int64_t sub_m = c.tile_m / c.warp_m, sub_n = c.tile_n / c.warp_n;
  const std::int64_t ks = c.tile_k / c.warp_k, mr = c.warp_tile_m, nr = c.warp_tile_n;
  PathCalls calls{kernels::micro_calls(double(s.m), double(sub_m), double(mr)),
                  kernels::micro_calls(double(s.n), double(sub_n), double(nr)),
                  ceil_div(double(s.k), double(ks)), s};
  if (paths.col2im) {  // the column product (cpu/col2im.h): per image, no cache blocks
    const std::int64_t out_pixels = p.do_ * p.ho * p.wo;
    const cpu::GemmShape columns{p.n * out_pixels, p.z * p.y * p.x * (p.c / p.g), p.k / p.g};
    return {double(p.n) * ceil_div(double(out_pixels), double(mr)),
            ceil_div(double(columns.n), double(nr)), ceil_div(double(columns.k), double(c.tile_k)),
            columns};
  }
  if (!paths.direct_a && !paths.direct_b) return calls;
  const bool flipped = *p.dir == Direction::kBackwardData;
  const std::int64_t run = flipped ? p.k / p.g : p.c / p.g;
  const bool contiguous = !flipped && p.g == 1 && p.dil[2] == 1;
  const std::int64_t range = contiguous ? p.x * run : run;  // DirectImage::longest_run
  if (paths.direct_a) {
    calls.m = cut_pieces(s.m, mr, flipped ? p.wi : p.wo);  // blocks hold whole register tiles
    calls.k = cut_pieces(s.k, ks, range);
    return calls;
  }
  calls.k = cut_pieces(s.k, ks, p.wo);
  // Columns cut at block and range ends, each piece walked in nr-wide panels.
  calls.n = 0;
  for (std::int64_t col = 0; col < s.n;) {
    const std::int64_t end = std::min({s.n, (col / sub_n + 1) * sub_n, (col / range + 1) * range});
    calls.n += ceil_div(double(end - col), double(nr));
    col = end;
  }
  return calls;
}

// How the driver (cpu/driver.cpp) reaches each operand of the direction's GEMM, and what it
// copies per group before the micro-kernel runs.
struct Copies {
  bool a_gathered = false, a_packed = false, b_gathered = false, b_packed = false;
  bool b_cached = false;
  double gathered = 0;  // elements gathered (im2col) per group
  double cycles = 0;    // gathers and packing per group
};

// Copies of one group, as the driver makes them: A is gathered (forward, backward data, unless
// filter1x1stride1pad0 makes the image a plain matrix) once per column block of tasks, and
// compv4 packs it after; B is packed (forward's weights, a plain image) or gathered (backward
// data's weights, backward weight's image) once per column block when every K slot of it fits
// the 4 MiB cache of packed panels, else once per task. Packing moves 16 bytes a cycle as in
// the GEMM estimate; a scalar gather (vec 1) copies value by value, a quarter of that; every
// gathered run (a pixel's channels for one tap) costs the computation of its source: forward's
// a multiply and bounds test per axis (13 cycles), backward data's a division by the stride per
// axis (30 cycles), backward weight's 4 (fitted to the study's sweep by
// experiments/conv/fit_gather_cost.py).
Copies copies(const Problem& p, const ConvConfig& c, const cpu::GemmShape& s, double threads,
              double bpe, const cpu::ProblemPaths& paths, double k_share) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  const double sub_m = double(c.tile_m) / c.warp_m, sub_n = double(c.tile_n) / c.warp_n;
  const double ks = double(c.tile_k) / c.warp_k, mr = c.warp_tile_m, nr = c.warp_tile_n;
  const bool v4 = c.pipeline == Pipeline::kCompV4;
  const bool plain = c.specialization == Specialization::kFilter1x1Stride1Pad0;
  const bool bwd_weight = c.dir == Direction::kBackwardWeight;
  Copies out;
  // Forward's and backward data's B, the weights, is packed once per bound kernel
  // (PackedWeights), as every measurement runs: the runs themselves copy none of it.
  const bool weights_bound = !bwd_weight;
  if (bwd_weight) {
    out.a_packed = v4;
    out.b_gathered = !plain && !paths.direct_b;  // dense_b copies too
    out.b_packed = plain && v4;
  } else {
    out.a_gathered = !plain && !paths.direct_a && !paths.col2im;
    out.a_packed = v4;
    out.b_packed = true;
  }
  const double k_tiles = ceil_div(k, c.tile_k);
  const double split = c.two_stage ? std::min(threads, k_tiles) : 1.0;
  const double panel_cols = ceil_div(sub_n, nr) * nr;
  const bool b_copied = out.b_gathered || out.b_packed;
  out.b_cached = b_copied && (paths.k_outer ||
                              ceil_div(k_tiles, split) * panel_cols * ks * 4 <= double(4 << 20));
  const double row_tasks = ceil_div(m, sub_m);
  // A gathered once per row block while its K slots stay cache-sized (the driver's cache_a),
  // else once per column block of tasks.
  const double a_slot = (out.a_packed ? ceil_div(sub_m, mr) * mr : sub_m) * ks;
  const bool a_cached = !bwd_weight && !paths.direct_a && (out.a_gathered || out.a_packed) &&
                        ceil_div(k_tiles, split) * a_slot * 4 <= double(4 << 20);
  const double col_blocks = a_cached ? 1.0 : ceil_div(n, sub_n);
  const double m_padded = ceil_div(m, mr) * mr, n_padded = ceil_div(n, nr) * nr;
  const std::int64_t cg = p.c / p.g, kg = p.k / p.g;
  const double run = double(c.dir == Direction::kBackwardData ? kg : cg);
  const double per_run = c.dir == Direction::kForward        ? 13.0
                         : c.dir == Direction::kBackwardData ? 30.0
                                                             : 4.0;
  auto gather_cycles = [&](double elements, int vec) {
    const double per_byte = vec == 1 ? 4.0 / 16.0 : 1.0 / 16.0;
    return elements * bpe * per_byte + per_run * elements / std::max(std::min(run, ks), 1.0);
  };
  if (out.a_gathered) {
    const double a = m * k * col_blocks * k_share;  // a phase's skipped slices are not gathered
    out.gathered += a;
    out.cycles += gather_cycles(a, c.vec_a);
    if (out.a_packed) out.cycles += m_padded * k * col_blocks * k_share * 4 / 16.0;  // fp32, after
  } else if (out.a_packed) {
    out.cycles += m_padded * k * col_blocks * bpe / 16.0;
  }
  const double b = n_padded * k * (out.b_cached ? 1.0 : row_tasks);
  if (out.b_gathered) {
    out.gathered += b;
    out.cycles += gather_cycles(b, bwd_weight ? c.vec_a : c.vec_b);
  } else if (out.b_packed && !weights_bound) {
    out.cycles += b * bpe / 16.0;
  }
  // By columns: every output pixel's (tap, channel) columns written, then read into the sums.
  if (paths.col2im)
    out.cycles +=
        2.0 * double(p.n * p.do_ * p.ho * p.wo) * double(p.z * p.y * p.x) * double(cg) * 4 / 16.0;
  return out;
}

// All features of one (problem, kernel) pair in all_features() order.
void compute_row(const Problem& p, const ConvConfig& c, const features::HardwareFeatures& hw,
                 double* v) {
  const double bpe = p.dtype == "bf16" ? 2.0 : 4.0;
  const double N = double(p.n), C = double(p.c), K = double(p.k), G = double(p.g);
  const double Di = double(p.di), Hi = double(p.hi), Wi = double(p.wi);
  const double Z = double(p.z), Y = double(p.y), X = double(p.x);
  // The problem's own output sizes: CK's formula with its right paddings (the same as CK's for
  // the symmetric padding CK's problems have).
  const double Do = double(p.do_), Ho = double(p.ho), Wo = double(p.wo);
  // CK's 3-D test; ndim (below) is the layout's.
  const bool ck_3d = p.di > 1 || p.z > 1 || p.pad[0] > 0;
  const double spatial = Di * Hi * Wi, filter = Z * Y * X, output = Do * Ho * Wo;
  const double cpg = C / G, kpg = K / G;
  const double flops = N * K * output * cpg * filter * 2.0;
  const double io_bytes = (N * C * spatial + K * cpg * filter + N * K * output) * bpe;

  // CK's kernel features from the CPU configuration. block_size: CK's threads per block, which
  // its formulas use as the K extent of a block (tiles along GEMM K, LDS use, tile volume):
  // tile_k here. num_warps: tasks per block (warp_m * warp_n * warp_k; CK divides its thread
  // count by 4). The LDS analogue is the per-core L1d (hardware_features.h), halved for compv4
  // as CK halves it (CK's 32 KiB is half of gfx9's 64 KiB). is_compv5, is_basic, is_compv6,
  // is_mem: pipelines with no CPU kernel, 0. has_si (store-immediate): no CPU analogue, 0.
  // has_dsb: the configuration's dsb, which the CPU kernels refuse (0 in every rule set).
  const double tm = c.tile_m, tn = c.tile_n, tk = c.tile_k, bs = tk;
  const double warps = double(c.warp_m) * c.warp_n * c.warp_k;
  const bool v4 = c.pipeline == Pipeline::kCompV4;
  const double lds = (tm * bs + tn * bs) * bpe;
  const double lds_cap = v4 ? hw.lds_capacity / 2 : hw.lds_capacity;

  // CK's mapping, every direction: M = N * output, N = K (all groups), K = (C/G) * filter.
  const double ck_m = N * output, ck_n = K, ck_k = std::floor(cpg * filter);

  // The GEMM the direction runs, per group (docs/conv-kernels.md, "The three GEMMs").
  const cpu::GemmShape shape = cpu::implicit_gemm(p);
  const double m = double(shape.m), n = double(shape.n), k = double(shape.k), mnk = m * n * k;
  const double tiles_k = ceil_div(k, tk);
  const double sub_m = tm / c.warp_m, sub_n = tn / c.warp_n, ks = tk / c.warp_k;
  const double mr = c.warp_tile_m, nr = c.warp_tile_n, lanes = std::max(hw.wavefront_size, 1.0);
  // Backward weight's two-stage split: one K range per thread (the hardware's cores), at most
  // one per K tile.
  const double split = c.two_stage ? std::min(hw.num_cus, tiles_k) : 1.0;
  const double parts = split * c.warp_k;
  const double tasks = G * ceil_div(m, sub_m) * ceil_div(n, sub_n) * parts;
  const double rounds = ceil_div(tasks, hw.num_cus);
  const cpu::ProblemPaths paths = cpu::problem_paths(c, p);
  const double k_share = cpu::computed_k_share(c, p);
  const Copies copied = copies(p, c, shape, hw.num_cus, bpe, paths, k_share);
  const double micro_calls =
      kernels::micro_calls(m, sub_m, mr) * kernels::micro_calls(n, sub_n, nr) * ceil_div(k, ks) * G;
  const PathCalls calls = path_calls(p, c, shape, paths);
  const double path_micro_calls = calls.m * calls.n * calls.k * G;
  kernels::BlockedGemm g;
  g.m = m, g.n = n, g.k = k;
  g.tile_m = tm, g.tile_n = tn, g.tile_k = tk;
  g.warp_m = c.warp_m, g.warp_n = c.warp_n, g.warp_k = c.warp_k;
  g.mr = mr, g.nr = nr;
  g.parts = parts;
  g.cshuffle = c.epilogue == Epilogue::kCShuffle || paths.phased;  // phased rows are staged
  g.k_share = k_share;
  // A phased block writes each staged row to its pixel, decoded from the row by divisions:
  // ~80 cycles a row and column block (fitted as the gather costs above).
  if (paths.phased) g.epilogue_cycles = 80.0 * m * ceil_div(n, sub_n);
  g.copy_cycles = copied.cycles;  // the micro-kernels run fp32 panels: no bf16 pairs
  g.path_tiles = calls.m * calls.n;
  g.path_slices = calls.k;
  if (paths.col2im) {
    // By columns the micro-kernels run the column product instead: y's gradient (an output
    // pixel a row) times the weights over K / G, into taps x C / G columns, image by image
    // in register tiles: a stride divides its rows (the implicit GEMM's are input pixels).
    g.m = double(calls.gemm.m), g.n = double(calls.gemm.n), g.k = double(calls.gemm.k);
    g.tile_m = output, g.tile_n = ceil_div(g.n, nr) * nr, g.tile_k = tk;
    g.warp_m = g.warp_n = g.warp_k = 1;
    g.parts = 1, g.cshuffle = false;
  }
  const kernels::CycleEstimate cycles = kernels::estimate_cycles(g, lanes, hw.simds_per_cu);
  bool asymmetric = false;
  for (int axis = 0; axis < 3; ++axis) asymmetric = asymmetric || p.right_pad(axis) != p.pad[axis];

  features::RowWriter row(v);
  row({
      // CK problem (38)
      N, C, K, G, Hi, Wi, Y, X, double(p.stride[1]), double(p.stride[2]), double(p.pad[1]),
      double(p.pad[2]), Ho, Wo, log2_max1(N), log2_max1(C), log2_max1(K), log2_max1(G),
      log2_max1(Hi), log2_max1(Wi), log2_max1(spatial), log2_max1(filter), log2_max1(output),
      flops / std::max(io_bytes, 1.0), filter, flag(p.y == 1 && p.x == 1 && p.z == 1),
      flag(ck_3d ? p.y == 3 && p.x == 3 && p.z == 3 : p.y == 3 && p.x == 3), cpg,
      Hi / std::max(Wi, 1.0), Y / std::max(X, 1.0), flag(ck_3d), Di, Z, Do, double(p.stride[0]),
      double(p.pad[0]), double(p.dil[1]), double(p.dil[2]),
      // CK group (8)
      log2_max1(cpg), log2_max1(kpg), flag(p.g == p.c && p.g == p.k), G / std::max(C, 1.0),
      flag(cpg < 16 || kpg < 16), cpg * kpg, N * G, flag(p.n < 8 && p.g > 1),
      // CK kernel (21)
      bs, tm, tn, double(int(c.pipeline)), warps, tm * tn * bs, tm * tn, lds,
      lds / std::max(lds_cap, 1.0), tm / std::max(bs, 1.0), tn / std::max(bs, 1.0),
      std::min(tm, tn) / std::max({tm, tn, 1.0}), flag(c.pipeline == Pipeline::kCompV3), flag(v4),
      0.0,  // is_compv5
      flag(c.scheduler == Scheduler::kIntrawave), flag(c.dsb),
      0.0,  // has_si
      0.0,  // is_basic
      0.0,  // is_compv6
      0.0,  // is_mem
  });
  // CK interaction (18), on CK's mapping; CK's K tile is its block_size
  row({ck_m, ck_n, ck_k});
  row(features::ck_tile_fit(ck_m, ck_n, ck_k, tm, tn, bs, 1, hw.num_cus));
  row(hw.values());
  row({
      // kselect: problem
      double(int(*p.dir)),
      double(spatial_dims(p)),
      bpe,
      double(p.dil[0]),
      flag(asymmetric),
      // kselect: the direction's GEMM
      m,
      n,
      k,
      log2_max1(m),
      log2_max1(n),
      log2_max1(k),
      log2_max1(mnk),
      2.0 * mnk / std::max((m * k + k * n + m * n) * bpe, 1.0),
      double(*p.dir == Direction::kBackwardData ? p.k / p.g : p.c / p.g),
      // kselect: the configuration
      double(int(c.dir)),
      double(c.ndim),
      c.dtype == "bf16" ? 2.0 : 4.0,
      tm,
      tn,
      tk,
      double(c.warp_m),
      double(c.warp_n),
      double(c.warp_k),
      mr,
      nr,
      double(c.warp_tile_k),
      double(int(c.scheduler)),
      double(int(c.epilogue)),
      double(int(c.specialization)),
      double(c.vec_a),
      double(c.vec_b),
      double(c.vec_c),
      flag(c.two_stage),
  });
  // kselect: tiles on the direction's GEMM, G of them
  row(features::ck_tile_fit(m, n, k, tm, tn, tk, G, hw.num_cus));
  // kselect: the CPU driver
  row(kernels::tile_use(m, n, k, tm, tn, tk, mr, nr, lanes));
  row({
      parts,
      tasks,
      rounds,
      tasks / (rounds * std::max(hw.num_cus, 1.0)),
      ceil_div(k / split, tk),
      log2_max1(2.0 * mnk * G / std::max(tasks, 1.0)),
      flag(copied.a_gathered),
      flag(copied.a_packed),
      flag(copied.b_gathered),
      flag(copied.b_packed),
      flag(copied.b_cached),
      flag(c.vec_a > 1),
      copied.gathered * bpe / std::max(2.0 * mnk, 1.0),
      (mr + nr) * ks * 4 / std::max(hw.l1_kb * 1024.0, 1.0),
      (sub_m + sub_n) * ks * 4 / std::max(hw.l2_kb * 1024.0, 1.0),
      log2_max1(micro_calls),
      log2_max1(2.0 * mnk * G / std::max(micro_calls, 1.0)),
      log2_max1(G * cycles.total),
      2.0 * mnk / cycles.total,
      cycles.pack / cycles.total,
      cycles.overhead / cycles.total,
      // the paths the problem decides
      flag(paths.col2im),
      flag(paths.direct_a),
      flag(paths.direct_b),
      flag(paths.dense_b),
      flag(paths.k_outer),
      // the micro-kernel calls of that path
      log2_max1(path_micro_calls),
      double(calls.gemm.k) / std::max(calls.k, 1.0),
      double(calls.gemm.m) * double(calls.gemm.n) / std::max(calls.m * mr * calls.n * nr, 1.0),
      path_micro_calls / std::max(micro_calls, 1.0),
  });
  if (row.written() != kFullCount) throw std::logic_error("conv feature row: wrong count");
}

using ConvKernelBlock = features::ConfigBlock<ConvConfig>;

}  // namespace

ConvFeatureEngine::ConvFeatureEngine(const HardwareProfile& hardware)
    : FixedSchemaEngine(hardware, schemas(), full_names(), "conv") {}

std::unique_ptr<features::KernelBlock> ConvFeatureEngine::prepare(
    std::span<const std::string> kernels) const {
  return ConvKernelBlock::parse(
      kernels, [](const std::string& name) { return ConvConfig::parse_name(name); });
}

void ConvFeatureEngine::extract_configs(const Problem& problem, std::span<const ConvConfig> configs,
                                        std::span<const int> columns, float* out) const {
  double row[kFullCount];
  for (const ConvConfig& c : configs) {
    compute_row(problem, c, hw_features(), row);
    for (int col : columns) *out++ = float(row[col]);
  }
}

void ConvFeatureEngine::extract_rows(std::string_view problem, const features::KernelBlock& kernels,
                                     std::span<const int> columns, float* out) const {
  const auto& block = dynamic_cast<const ConvKernelBlock&>(kernels);
  extract_configs(parse_native_problem(problem, "problem"), block.configs, columns, out);
}

std::string ConvFeatureEngine::group_key(std::string_view problem) const {
  Problem p = parse_native_problem(problem, "problem");
  p.dir.reset();
  p.dtype.clear();
  p.layout.clear();
  return to_text(p, TextOrder::kWordsLast);
}

std::string ConvFeatureEngine::dtype(std::string_view problem) const {
  return parse_native_problem(problem, "problem").dtype;
}

}  // namespace kselect::conv
