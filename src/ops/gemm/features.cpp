#include "ops/gemm/features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

#include "core/error.h"
#include "ops/cpu_gemm_cost/cycle_estimate.h"

namespace kselect::gemm {

namespace {

// CK's first 34 features (problem, kernel), in CK's order; its tile counts follow
// (features::ck_tile_names).
const std::vector<std::string> kCkProblemKernel = {"M",
                                                   "N",
                                                   "K",
                                                   "split_k",
                                                   "log2_M",
                                                   "log2_N",
                                                   "log2_K",
                                                   "log2_MNK",
                                                   "arithmetic_intensity",
                                                   "aspect_ratio_mn",
                                                   "aspect_ratio_mk",
                                                   "aspect_ratio_nk",
                                                   "layout",
                                                   "tile_m",
                                                   "tile_n",
                                                   "tile_k",
                                                   "warp_m",
                                                   "warp_n",
                                                   "warp_k",
                                                   "warp_tile_m",
                                                   "warp_tile_n",
                                                   "warp_tile_k",
                                                   "pipeline",
                                                   "scheduler",
                                                   "epilogue",
                                                   "pad_m",
                                                   "pad_n",
                                                   "pad_k",
                                                   "persistent",
                                                   "num_warps",
                                                   "tile_volume",
                                                   "tile_mn",
                                                   "lds_usage_estimate",
                                                   "lds_usage_ratio"};

// The 17 features CK's 72-feature version inserts after cu_utilization.
const std::vector<std::string> kCk72Additions = {"ratio_M_to_tile_m",
                                                 "ratio_N_to_tile_n",
                                                 "ratio_K_to_tile_k",
                                                 "problem_smaller_than_tile_m",
                                                 "problem_smaller_than_tile_n",
                                                 "problem_smaller_than_tile_k",
                                                 "any_dim_too_small",
                                                 "needs_padding_m",
                                                 "needs_padding_n",
                                                 "needs_padding_k",
                                                 "has_padding_when_needed_m",
                                                 "has_padding_when_needed_n",
                                                 "has_padding_when_needed_k",
                                                 "missing_required_padding_m",
                                                 "missing_required_padding_n",
                                                 "missing_required_padding_k",
                                                 "missing_any_required_padding"};

// kselect's CPU features (docs/features.md says why each exists).
const std::vector<std::string> kCpuAdditions = {"bytes_per_element",
                                                "a_row_major",
                                                "b_row_major",
                                                "tile_util_m",
                                                "tile_util_n",
                                                "tile_util_k",
                                                "padded_work_efficiency",
                                                "micro_util_m",
                                                "micro_util_n",
                                                "micro_tiles_per_block",
                                                "accumulator_vectors",
                                                "tasks",
                                                "tasks_per_core",
                                                "wave_quantization_efficiency",
                                                "k_tiles_per_task",
                                                "l1_panel_ratio",
                                                "l2_block_ratio",
                                                "log2_total_output_tiles",
                                                "log2_flops_per_task",
                                                "packed_bytes_per_flop",
                                                "mem_reads_a_strided",
                                                "mem_reads_b_strided",
                                                "log2_micro_calls",
                                                "log2_flops_per_micro_call",
                                                "b_panel_l2_ratio",
                                                "streamed_slice_l1_ratio",
                                                "log2_est_cycles",
                                                "est_flops_per_cycle",
                                                "est_pack_share",
                                                "est_overhead_share",
                                                "c_window_set_lines",
                                                "a_stream_set_lines",
                                                "b_stream_set_lines"};

constexpr int kFullCount = 43 + 17 + 12 + 33;

const std::vector<std::string> kCategorical = {"layout", "pipeline", "scheduler", "epilogue"};

const std::vector<features::Schema>& schemas() {
  using features::concat_names;
  static const std::vector<std::string> hw = features::hardware_name_list();
  static const std::vector<std::string> kCkCore =
      concat_names({&kCkProblemKernel, &features::ck_tile_names()});
  static const std::vector<features::Schema> all = {
      {"kselect", concat_names({&kCkCore, &kCk72Additions, &hw, &kCpuAdditions}), kCategorical},
      {"ck72", concat_names({&kCkCore, &kCk72Additions, &hw}), kCategorical},
      {"ck55", concat_names({&kCkCore, &hw}), kCategorical},
  };
  return all;
}

const std::vector<std::string>& full_names() {
  return schemas().front().features;
}

using kernels::ceil_div;
using kernels::micro_calls;

using features::flag;
using features::tile_fill;

constexpr std::int64_t kCacheLineBytes = 64;

// Rows of `row_bytes` bytes lying `ld_bytes` apart, whose lines the L1 must hold at once.
struct Window {
  std::int64_t rows, row_bytes, ld_bytes;
  bool operator==(const Window&) const = default;
};

// How the CPU driver (kernels/driver.cpp) spends a run: micro-kernel calls and the operand
// slices they reuse from cache.
struct DriverCosts {
  double register_tiles;  // register tiles of C (micro-kernel calls per K slice)
  double k_slices;        // K slices of tile_k / warp_k
  double calls;           // micro-kernel calls of the whole problem: tiles x K slices
  double b_panel_bytes;   // B a task reads over its K range (packed, or in place for mem)
  double streamed_bytes;  // the operand slice the scheduler's inner loop re-reads from L1
  // The C rows the scheduler's walk keeps live: intrawave walks the warp's rows inside each
  // register column (min(sub_m, M) rows x NR columns), interwave the warp's columns inside each
  // register row (MR rows x min(sub_n, N) columns). Rows lie ld floats apart: N in C (default
  // epilogue), sub_n in the staging tile (cshuffle).
  Window c_window;
  // The lines an operand read in place (not packed) streams at once: a row-major A feeds the
  // micro-kernel MR rows K elements apart, a column-major B (mem) NR columns K elements apart,
  // each stream on its current line; the other majors feed one run of MR (NR) elements per K
  // step. Streams K x bytes near a multiple of 4 KiB apart share one L1 set and evict each
  // other (docs/features.md, "A rows 4 KiB apart").
  Window a_streams, b_streams;
};

// The streams of an operand read in place (`in_place`), `count` of them `ld` elements apart
// (`strided`), or one run of `count` elements per K step.
Window operand_streams(bool in_place, bool strided, double count, double ld, double bpe) {
  if (!in_place) return {0, 0, 0};
  if (!strided) return {1, std::int64_t(count * bpe), 0};
  return {std::int64_t(count), kCacheLineBytes, std::int64_t(ld * bpe)};
}

DriverCosts driver_costs(double m, double n, double k, double sk, double bpe, Layout layout,
                         const GemmConfig& c) {
  const double sub_m = double(c.tile_m) / c.warp_m, sub_n = double(c.tile_n) / c.warp_n;
  const double ks = double(c.tile_k) / c.warp_k;
  DriverCosts d;
  d.register_tiles = micro_calls(m, sub_m, c.warp_tile_m) * micro_calls(n, sub_n, c.warp_tile_n);
  d.k_slices = ceil_div(k, ks);
  d.calls = d.register_tiles * d.k_slices;
  d.b_panel_bytes = ceil_div(k, sk) * std::min(sub_n, n) * bpe;
  // intrawave walks the A register panels inside each B panel (A slice re-read per B panel);
  // interwave the other way round.
  const bool intrawave = c.scheduler == Scheduler::kIntrawave;
  const double inner_rows = intrawave ? std::min(sub_m, m) : std::min(sub_n, n);
  d.streamed_bytes = inner_rows * std::min(ks, k) * bpe;
  const double live_rows = intrawave ? std::min(sub_m, m) : std::min<double>(c.warp_tile_m, m);
  const double live_cols = intrawave ? std::min<double>(c.warp_tile_n, n) : std::min(sub_n, n);
  const double ld = c.epilogue == Epilogue::kCShuffle ? sub_n : n;
  d.c_window = {std::int64_t(live_rows), std::int64_t(live_cols) * 4, std::int64_t(ld) * 4};
  const bool a_in_place = c.pipeline != Pipeline::kCompV4,
             b_in_place = c.pipeline == Pipeline::kMem;
  d.a_streams =
      operand_streams(a_in_place, a_row_major(layout), std::min<double>(c.warp_tile_m, m), k, bpe);
  d.b_streams =
      operand_streams(b_in_place, !b_row_major(layout), std::min<double>(c.warp_tile_n, n), k, bpe);
  return d;
}

constexpr std::uint32_t kL1WayBytes = 4096;

// The most lines of the window that share one L1 set. x86 L1d ways hold 4 KiB (64 sets of
// 64-byte lines), so when ld x 4 bytes is near a multiple of 4 KiB (N = 1023, 1024, 2048) the
// rows pile into a few sets and evict each other, which slows the walk (docs/features.md, "C
// rows 4 KiB apart"). Only addresses modulo 4 KiB matter;
// each row adds 1 to a circular run of sets, summed with a difference array.
double set_lines(const Window& w) {
  constexpr std::uint32_t kWayMask = kL1WayBytes - 1, kLineBits = 6, kSets = 64;
  int diff[kSets + 1] = {}, turns = 0;  // turns: whole rounds of the sets, one line each
  const auto bytes = std::uint32_t(w.row_bytes), step = std::uint32_t(w.ld_bytes) & kWayMask;
  std::uint32_t offset = 0;  // the row's first byte modulo 4 KiB
  for (std::int64_t r = 0; r < w.rows; ++r, offset = (offset + step) & kWayMask) {
    const std::uint32_t first = offset >> kLineBits;
    const std::uint32_t lines = ((offset + bytes - 1) >> kLineBits) - first + 1;
    const std::uint32_t end = first + lines % kSets;
    turns += int(lines / kSets);
    diff[first] += 1;
    diff[std::min(end, kSets)] -= 1;
    if (end > kSets) diff[0] += 1, diff[end - kSets] -= 1;  // the run wraps past the last set
  }
  int most = 0, running = turns;
  for (std::uint32_t s = 0; s < kSets; ++s) most = std::max(most, running += diff[s]);
  return most;
}

// The kernels of one problem share a few hundred windows (warp rows, register columns,
// epilogue): a batch counts each once. Only ld modulo 4 KiB matters.
class SetLinesMemo {
 public:
  double operator()(Window w) {
    w.ld_bytes %= kL1WayBytes;
    auto [it, added] = seen_.try_emplace(w, 0.0);
    if (added) it->second = set_lines(w);
    return it->second;
  }

 private:
  struct Hash {
    std::size_t operator()(const Window& w) const {
      const auto key = (std::uint64_t(w.rows) * 1000003u + std::uint64_t(w.row_bytes)) * 4099u +
                       std::uint64_t(w.ld_bytes);  // unsigned: wraps instead of overflowing
      return std::hash<std::uint64_t>()(key);
    }
  };
  std::unordered_map<Window, double, Hash> seen_;
};

// The shared driver's cycle estimate (ops/cpu_gemm_cost/) of this GEMM: bf16 K pairs with
// vdpbf16ps (mem, and every kernel without it, widens bf16 to fp32), mem's element-by-element
// reads of a column-major B, and what the pipeline packs (compv3 B, compv4 also the A block of
// every column of tiles; mem nothing), 16 bytes a cycle.
kernels::CycleEstimate estimate_cycles(const GemmProblem& p, const GemmConfig& c,
                                       const features::HardwareFeatures& hw) {
  const double m = double(p.m), n = double(p.n), k = double(p.k), bpe = bytes_per_element(p.dtype);
  const double sub_n = double(c.tile_n) / c.warp_n, mr = c.warp_tile_m, nr = c.warp_tile_n;
  const bool is_mem = c.pipeline == Pipeline::kMem;
  kernels::BlockedGemm g;
  g.m = m, g.n = n, g.k = k;
  g.tile_m = c.tile_m, g.tile_n = c.tile_n, g.tile_k = c.tile_k;
  g.warp_m = c.warp_m, g.warp_n = c.warp_n, g.warp_k = c.warp_k;
  g.mr = mr, g.nr = nr;
  g.parts = double(p.split_k) * c.warp_k;
  g.k_pair = p.dtype == DType::kBf16 && !is_mem && hw.bf16_dot ? 2.0 : 1.0;
  g.b_lane_loads = is_mem && !b_row_major(p.layout);
  g.cshuffle = c.epilogue == Epilogue::kCShuffle;
  const double n_padded = ceil_div(n, nr) * nr, m_padded = ceil_div(m, mr) * mr;
  const double packed_a = c.pipeline == Pipeline::kCompV4 ? m_padded * k * ceil_div(n, sub_n) : 0.0;
  const double packed = is_mem ? 0.0 : (k * n_padded + packed_a) * bpe;
  g.copy_cycles = packed / 16.0;
  return kernels::estimate_cycles(g, hw.wavefront_size, hw.simds_per_cu);
}

// All features of one (problem, kernel) pair in the full `kselect` order.
void compute_row(const GemmProblem& p, const GemmConfig& c, const features::HardwareFeatures& hw,
                 SetLinesMemo& set_lines_of, double* v) {
  const double m = double(p.m), n = double(p.n), k = double(p.k), sk = double(p.split_k);
  const double bpe = bytes_per_element(p.dtype);
  const double tm = c.tile_m, tn = c.tile_n, tk = c.tile_k;
  const double wtm = c.warp_tile_m, wtn = c.warp_tile_n, wtk = c.warp_tile_k;
  const double mnk = m * n * k;
  const double lds = (tm * tk + tn * tk) * bpe;
  // CK halves the LDS budget of compv4 (double-buffered panels).
  const double lds_cap = c.pipeline == Pipeline::kCompV4 ? hw.lds_capacity / 2 : hw.lds_capacity;
  const double tiles_n = ceil_div(n, tn), out_tiles = ceil_div(m, tm) * tiles_n;
  const bool need_m = std::fmod(m, tm) != 0, need_n = std::fmod(n, tn) != 0,
             need_k = std::fmod(k, tk) != 0;
  const bool miss_m = need_m && !c.pad_m, miss_n = need_n && !c.pad_n, miss_k = need_k && !c.pad_k;
  const double tasks = out_tiles * sk;
  const double rounds = ceil_div(tasks, hw.num_cus);
  const double lanes = std::max(hw.wavefront_size, 1.0);
  // Bytes the pipeline copies before computing: compv3 packs B once (K x N), compv4 also packs
  // the A block of every output tile (M x K per tile column); mem packs nothing but reads the
  // operands in place, which for a column-major B (or A) means strided loads.
  const bool is_mem = c.pipeline == Pipeline::kMem;
  const double packed = is_mem                            ? 0.0
                        : c.pipeline == Pipeline::kCompV3 ? k * n * bpe
                                                          : (k * n + m * k * tiles_n) * bpe;
  const DriverCosts driver = driver_costs(m, n, k, sk, bpe, p.layout, c);
  const kernels::CycleEstimate cycles = estimate_cycles(p, c, hw);

  features::RowWriter row(v);
  // CK core: problem and kernel (34)
  row({
      m,
      n,
      k,
      sk,
      std::log2(std::max(m, 1.0)),
      std::log2(std::max(n, 1.0)),
      std::log2(std::max(k, 1.0)),
      std::log2(std::max(mnk, 1.0)),
      2.0 * mnk / std::max((m * k + k * n + m * n) * bpe, 1.0),
      m / std::max(n, 1.0),
      m / std::max(k, 1.0),
      n / std::max(k, 1.0),
      double(int(p.layout)),
      tm,
      tn,
      tk,
      double(c.warp_m),
      double(c.warp_n),
      double(c.warp_k),
      wtm,
      wtn,
      wtk,
      double(int(c.pipeline)),
      double(int(c.scheduler)),
      double(int(c.epilogue)),
      flag(c.pad_m),
      flag(c.pad_n),
      flag(c.pad_k),
      flag(c.persistent),
      double(c.num_warps()),
      tm * tn * tk,
      tm * tn,
      lds,
      lds / std::max(lds_cap, 1.0),
  });
  // CK's tile fit (9) and the first six of CK 72's additions
  row(features::ck_tile_fit(m, n, k, tm, tn, tk, 1, hw.num_cus));
  row({
      flag(m < tm || n < tn || k < tk),
      flag(need_m),
      flag(need_n),
      flag(need_k),
      flag(need_m && c.pad_m),
      flag(need_n && c.pad_n),
      flag(need_k && c.pad_k),
      flag(miss_m),
      flag(miss_n),
      flag(miss_k),
      flag(miss_m || miss_n || miss_k),
  });
  row(hw.values());
  // CPU additions
  row({bpe, flag(a_row_major(p.layout)), flag(b_row_major(p.layout))});
  row(kernels::tile_use(m, n, k, tm, tn, tk, wtm, wtn, lanes));
  row({
      tasks,
      rounds,
      tasks / (rounds * std::max(hw.num_cus, 1.0)),
      ceil_div(k / sk, tk),
      (wtm + wtn) * tk * bpe / std::max(hw.l1_kb * 1024.0, 1.0),
      lds / std::max(hw.l2_kb * 1024.0, 1.0),
      std::log2(std::max(out_tiles, 1.0)),
      std::log2(std::max(2.0 * mnk / std::max(tasks, 1.0), 1.0)),
      packed / std::max(2.0 * mnk, 1.0),
      flag(is_mem && !a_row_major(p.layout)),
      flag(is_mem && !b_row_major(p.layout)),
      std::log2(std::max(driver.calls, 1.0)),
      std::log2(std::max(2.0 * mnk / std::max(driver.calls, 1.0), 1.0)),
      driver.b_panel_bytes / std::max(hw.l2_kb * 1024.0, 1.0),
      driver.streamed_bytes / std::max(hw.l1_kb * 1024.0, 1.0),
      std::log2(std::max(cycles.total, 1.0)),
      2.0 * mnk / cycles.total,
      cycles.pack / cycles.total,
      cycles.overhead / cycles.total,
      set_lines_of(driver.c_window),
      set_lines_of(driver.a_streams),
      set_lines_of(driver.b_streams),
  });
  if (row.written() != kFullCount) throw std::logic_error("GEMM feature row: wrong count");
}

}  // namespace

GemmFeatureEngine::GemmFeatureEngine(const HardwareProfile& hardware)
    : FixedSchemaEngine(hardware, schemas(), full_names(), "GEMM") {}

// Revision 2 of the cycle estimate: one step per K element instead of K padded
// to the unroll, C loads after a part's first slice only, cshuffle's copy into C.
std::map<std::string, int> GemmFeatureEngine::feature_revisions() const {
  return {{"log2_est_cycles", 2},
          {"est_flops_per_cycle", 2},
          {"est_pack_share", 2},
          {"est_overhead_share", 2}};
}

using GemmKernelBlock = features::ConfigBlock<GemmConfig>;

std::unique_ptr<features::KernelBlock> GemmFeatureEngine::prepare(
    std::span<const std::string> kernels) const {
  return GemmKernelBlock::parse(
      kernels, [](const std::string& name) { return GemmConfig::parse_name(name); });
}

void GemmFeatureEngine::extract_configs(const GemmProblem& problem,
                                        std::span<const GemmConfig> configs,
                                        std::span<const int> columns, float* out) const {
  double row[kFullCount];
  SetLinesMemo set_lines_of;
  for (const GemmConfig& c : configs) {
    compute_row(problem, c, hw_features(), set_lines_of, row);
    for (int col : columns) *out++ = float(row[col]);
  }
}

void GemmFeatureEngine::extract_rows(std::string_view problem, const features::KernelBlock& kernels,
                                     std::span<const int> columns, float* out) const {
  const auto& block = dynamic_cast<const GemmKernelBlock&>(kernels);
  extract_configs(GemmProblem::parse(problem, "problem"), block.configs, columns, out);
}

std::string GemmFeatureEngine::group_key(std::string_view problem) const {
  GemmProblem p = GemmProblem::parse(problem, "problem");
  return std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k) + "," +
         std::to_string(p.split_k);
}

std::string GemmFeatureEngine::dtype(std::string_view problem) const {
  return std::string(to_string(GemmProblem::parse(problem, "problem").dtype));
}

}  // namespace kselect::gemm
