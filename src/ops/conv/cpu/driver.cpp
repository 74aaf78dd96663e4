#include "ops/conv/cpu/driver.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/conv/cpu/col2im.h"
#include "ops/conv/cpu/direct.h"
#include "ops/conv/cpu/gather.h"
#include "ops/cpu_gemm_core/micro.h"
#include "ops/cpu_gemm_core/pack.h"
#include "ops/cpu_gemm_core/placed_buffer.h"

namespace kselect::conv::cpu {

using kernels::AWalk;
using kernels::BWalk;
using kernels::Elem;
using kernels::Isa;
using kernels::Placement;
using std::int64_t;

namespace {

int64_t ceil_div(int64_t x, int64_t y) {
  return (x + y - 1) / y;
}

// Grow-only placed memory: after the first run of the largest problem, runs reuse it.
class Buffer {
 public:
  explicit Buffer(Placement where) : where_(where) {}
  void reserve(size_t bytes) {
    if (bytes > memory_.size()) memory_ = kernels::PlacedBuffer((bytes + 63) / 64 * 64, where_);
  }
  float* floats() const { return reinterpret_cast<float*>(memory_.data()); }
  char* bytes() const { return memory_.data(); }

 private:
  Placement where_;
  kernels::PlacedBuffer memory_;
};

// Which block of an operand a thread holds: consecutive tasks of one (group, block, warp, part)
// reuse it (the block is a column block for B, a row block for A).
struct CacheTag {
  int64_t run = -1, group = 0, block = 0;
  int warp = 0, part = 0;
  int64_t slice = -1;  // K-outer: the one K slice held (-1: every slot of the part)
  bool operator==(const CacheTag&) const = default;
};

// Every K slot of one block of an operand, filled on first use while its tag holds.
struct SlotCache {
  CacheTag tag;
  std::vector<char> ready;  // per K slot
  // Makes `tag` current, forgetting the slots of the previous one.
  void hold(const CacheTag& t) {
    if (tag == t) return;
    tag = t;
    std::fill(ready.begin(), ready.end(), 0);
  }
};

struct ThreadSpace {
  Buffer a_block{Placement::kStage}, a_pack{Placement::kPackA}, b_pack{Placement::kPackB};
  Buffer a_cache{Placement::kPackA};
  Buffer stage{Placement::kStage};
  SlotCache a_slots, b_slots;
  std::vector<DirectPiece> pieces;      // direct: the task's row runs
  std::vector<DirectSegment> segments;  // direct: the K slice's contiguous column ranges
};

// The scratchpad of all conv drivers, one set of buffers per worker thread; runs take the lock.
struct Workspace {
  std::mutex mutex;
  std::vector<ThreadSpace> spaces;
  Buffer partial{Placement::kPartial};
  Buffer padded{Placement::kStage};                              // direct: the zero-padded input
  Buffer col{Placement::kStage}, col_panels{Placement::kPackB};  // col2im: columns, weights
  int64_t run_id = 0;
};

Workspace& shared_workspace() {
  static Workspace workspace;
  return workspace;
}

// How a run of a problem is cut into tasks: the implicit GEMM per group in block tiles, warps
// and K parts (two_stage's splits times warp_k).
struct Blocking {
  GemmShape shape{};
  int64_t groups = 1, tiles_m = 0, tiles_n = 0, k_tiles = 0, tasks = 0, slots = 0;
  int split = 1, parts = 1, sub_m = 0, sub_n = 0, ks = 0;
  bool cache_b = false;
  // Backward weight with a deep K and a cache-sized result: every thread walks all its tiles
  // one K slice at a time (K outermost), so a slice's A and B stay in cache while every tile
  // reads them, and a column block's B slice is packed once for its row blocks (one slot).
  // Otherwise each tile streams its whole K depth of A and B from memory.
  bool k_outer = false;
  // Forward and backward data: tasks walk the column blocks of a row block first, and a thread
  // keeps that row block's A (gathered, or packed) for every K slot while it stays cache-sized,
  // so the im2col gather of a row block runs once, not once per column block; their B (the
  // weights) is packed once per bound kernel (PackedWeights), so reusing A is what pays.
  bool a_first = false, cache_a = false;
  int64_t a_slot_floats = 0;
  // fp32 with mid-length contiguous column ranges: x read in place from the input (or its
  // zero-padded copy) instead of gathered (DirectImage): forward's A (compv4's gathered, packed
  // A excepted) and backward weight's B (its 1x1 stride-1 plain path excepted).
  bool direct = false;
  DirectImage direct_image;
  // Backward weight reading x in place with filter rows narrower than a register tile (the
  // stem's 7 taps x 3 channels against 32 columns) copies B dense instead, a K slice of rows
  // at a time (one copy per pixel and filter row), so that panels span filter rows and few
  // lanes idle; read in place, each filter row would take a panel of its own.
  bool dense_b = false;
  // Which operand the image read in place is: forward's and backward data's A, or backward
  // weight's B read in place (not dense_b).
  bool direct_a = false, direct_b = false;
  // Backward data with few channels per group (fp32): the column product and col2im (Col2Im)
  // instead of the implicit GEMM; the register tile, K slice and row blocks as configured.
  bool col2im = false;
  Col2Im columns;
  int64_t col2im_k = 0;  // the column product's K: K / G
  // Backward data with a stride: rows in stride-phase order (RowPhases), results staged and
  // written to each row's pixel; each phase is cut into its own block rows (phase_tiles[p]: the
  // first block row of phase p, then tiles_m), so that every block keeps to one phase.
  bool phased = false;
  RowPhases phases;
  std::vector<int64_t> phase_tiles;
  int64_t result_elems = 0;
};

// The scratch memory of one run: per-thread buffers (each allocated once per worker) and the
// shared partial results; 0 where the kernel needs none.
struct Scratch {
  int64_t a_block = 0, a_pack = 0, b_pack = 0, a_cache = 0, stage = 0, b_slots = 0,
          a_slots = 0;              // per thread
  int64_t partial = 0;              // shared
  int64_t padded = 0;               // shared: direct's padded input
  int64_t col = 0, col_panels = 0;  // shared: col2im's columns (one image) and packed weights
  // As allocated: placed buffers are rounded up to 64 bytes; b_slots are one-byte flags.
  double bytes(int threads) const {
    auto placed = [](int64_t n) { return double((n + 63) / 64 * 64); };
    return double(threads) * (placed(a_block) + placed(a_pack) + placed(b_pack) + placed(a_cache) +
                              placed(stage) + double(b_slots + a_slots)) +
           placed(partial) + placed(padded) + placed(col) + placed(col_panels);
  }
};

// How the micro-kernel reaches an operand: read in place with strides, packed from a strided
// matrix by the GEMM packers, or gathered (im2col) by a Gather.
enum class AMode { kInPlace, kPacked, kGatherRows, kGatherPacked };
enum class BMode { kInPlace, kPacked, kGatherPanels };

// How the configuration reads its operands: in place, packed, gathered (im2col) into rows or
// into packed panels. compv4 packs A; the 1x1 stride-1 plain path has nothing to gather.
struct Modes {
  AMode a;
  BMode b;
};
Modes modes_of(const ConvConfig& cfg) {
  const bool v4 = cfg.pipeline == Pipeline::kCompV4;
  const bool plain = cfg.specialization == Specialization::kFilter1x1Stride1Pad0;
  if (cfg.dir == Direction::kBackwardWeight)
    return {v4 ? AMode::kPacked : AMode::kInPlace,
            plain ? (v4 ? BMode::kPacked : BMode::kInPlace) : BMode::kGatherPanels};
  return {plain ? (v4 ? AMode::kPacked : AMode::kInPlace)
                : (v4 ? AMode::kGatherPacked : AMode::kGatherRows),
          cfg.dir == Direction::kForward ? BMode::kPacked : BMode::kGatherPanels};
}

// A strided matrix of one group: element (i, j) at base + group * gs + i * s0 + j * s1.
struct Strided {
  const char* base = nullptr;
  int64_t gs = 0, s0 = 0, s1 = 0;
};

// Micro-panel p of an operand at base + p * panel_bytes with MicroArgs strides s0, s1.
struct OperandView {
  const char* base;
  int64_t panel_bytes;
  int64_t s0, s1;
};

// Whether any tap of K columns [k0, k0 + kl) (tap-major, K / G each) reaches the input rows of
// the stride phase at `offset`: the tap's source output pixel divides exactly by the stride.
bool phase_has_taps(const Problem& p, const std::array<int64_t, 3>& offset, int64_t k0,
                    int64_t kl) {
  const int64_t kg = p.k / p.g;
  for (int64_t t = k0 / kg; t <= (k0 + kl - 1) / kg; ++t) {
    const std::array<int64_t, 3> tap{t / (p.y * p.x), t / p.x % p.y, t % p.x};
    bool reaches = true;
    for (int a = 0; a < 3; ++a) {
      const int64_t v = offset[a] + p.pad[a] - tap[a] * p.dil[a];
      reaches = reaches && (v % p.stride[a] + p.stride[a]) % p.stride[a] == 0;
    }
    if (reaches) return true;
  }
  return false;
}

bool is_phased(const Problem& p) {
  return *p.dir == Direction::kBackwardData &&
         (p.stride[0] > 1 || p.stride[1] > 1 || p.stride[2] > 1);
}

}  // namespace

double computed_k_share(const ConvConfig& cfg, const Problem& p) {
  if (!problem_paths(cfg, p).phased) return 1.0;
  const RowPhases phases(p.n, {p.di, p.hi, p.wi}, p.stride);
  const int64_t k = implicit_gemm(p).k, ks = cfg.tile_k / cfg.warp_k;
  const int64_t slices = ceil_div(k, ks);
  double computed = 0;
  for (int ph = 0; ph < phases.count(); ++ph) {
    int64_t reached = 0;
    for (int64_t k0 = 0; k0 < k; k0 += ks)
      reached += phase_has_taps(p, phases.offset(ph), k0, std::min(ks, k - k0)) ? 1 : 0;
    computed += double(phases.start(ph + 1) - phases.start(ph)) * double(reached);
  }
  return computed / std::max(double(phases.start(phases.count())) * double(slices), 1.0);
}

ProblemPaths problem_paths(const ConvConfig& cfg, const Problem& p) {
  ProblemPaths out;
  const Modes modes = modes_of(cfg);
  const bool bf16 = cfg.dtype == "bf16";
  const bool bwd_weight = cfg.dir == Direction::kBackwardWeight;
  out.col2im = (modes.a == AMode::kGatherRows || modes.a == AMode::kInPlace) &&
               Col2Im::applies(p, bf16, cfg.warp_tile_n);
  const bool x_gathered =
      modes.a == AMode::kGatherRows || (bwd_weight && modes.b == BMode::kGatherPanels);
  const bool direct = !out.col2im && x_gathered && DirectImage::applies(p, bf16);
  out.dense_b = direct && bwd_weight && DirectImage(p).longest_run() < cfg.warp_tile_n;
  out.direct_a = direct && !bwd_weight;
  out.direct_b = direct && bwd_weight && !out.dense_b;
  // The result of all groups within ~L2 and a column block's K depth of B past it.
  constexpr int64_t kL2Bytes = int64_t(1) << 20;
  const GemmShape shape = implicit_gemm(p);
  out.k_outer = bwd_weight && cfg.epilogue != Epilogue::kCShuffle &&
                p.g * shape.m * shape.n * 4 <= kL2Bytes &&
                shape.k * (cfg.tile_n / cfg.warp_n) * 4 > kL2Bytes / 2;
  out.phased = !out.col2im && is_phased(p);
  return out;
}

GemmShape implicit_gemm(const Problem& p) {
  const int64_t cg = p.c / p.g, kg = p.k / p.g, taps = p.z * p.y * p.x;
  const int64_t out_pixels = p.n * p.do_ * p.ho * p.wo, in_pixels = p.n * p.di * p.hi * p.wi;
  switch (*p.dir) {
    case Direction::kForward:
      return {out_pixels, kg, cg * taps};
    case Direction::kBackwardData:
      return {in_pixels, cg, kg * taps};
    case Direction::kBackwardWeight:
      return {kg, cg * taps, out_pixels};
  }
  return {0, 0, 0};
}

struct ConvDriver::Impl : Blocking {
  ConvConfig cfg;
  Isa isa;
  AMode a_mode;
  BMode b_mode;
  Elem src_elem;
  int elem_bytes;
  kernels::MicroFn full = nullptr, edge = nullptr;
  Workspace& work = shared_workspace();

  // Per run: the blocking (Blocking's fields) and the operands.
  Strided a, b;
  std::optional<Gather> a_gather, b_gather;
  Problem problem;
  const PackedWeights* packed = nullptr;  // this run's packed B, or null: pack per task
  float* c = nullptr;
  int64_t ldc = 0, c_group_stride = 0;

  Impl(const ConvConfig& config, Isa cpu);
  Blocking blocking(const Problem& p, int threads) const;
  Scratch scratch(const Blocking& run) const;
  void bind(const Problem& p, const ConvTensors& t);
  void reserve(int threads);
  void worker(int t, int nt);
  // Task `id`'s K slices in [kb_from, kb_to) (K-outer: one at a time; else all of them).
  void task(ThreadSpace& ws, int64_t id, int64_t kb_from = 0,
            int64_t kb_to = std::numeric_limits<int64_t>::max());
  OperandView view_a(ThreadSpace& ws, int64_t g, int64_t r0, int64_t k0, int rows, int kl,
                     int64_t slot);
  OperandView fill_a(ThreadSpace& ws, int64_t g, int64_t r0, int64_t k0, int rows, int kl,
                     char* into);
  OperandView view_b(ThreadSpace& ws, int64_t g, int64_t c0, int64_t k0, int cols, int kl,
                     int64_t slot, int64_t packed_slice);
  void pack_b_slice(int64_t g, int64_t c0, int64_t k0, int cols, int kl, float* panels) const;
  // Packed weights: the floats of one (group, column block, K slice), and where a slice starts.
  int64_t packed_slice_floats() const {
    return ceil_div(sub_n, cfg.warp_tile_n) * cfg.warp_tile_n * ks;
  }
  int64_t packed_slice(int64_t g, int64_t bn, int wn, int64_t kb, int wk) const {
    return ((g * tiles_n + bn) * cfg.warp_n + wn) * k_tiles * cfg.warp_k + kb * cfg.warp_k + wk;
  }
  std::string layout;  // weight_layout(): fixed by the configuration, so made once
  void walk(const OperandView& av, const OperandView& bv, int rows, int cols, int kl, float* target,
            int64_t ldt, bool first);
  void walk_direct_a(ThreadSpace& ws, int64_t g, const OperandView& bv, int cols, int64_t k0,
                     int kl, float* target, int64_t ldt, bool first);
  void walk_direct_b(ThreadSpace& ws, int64_t g, const OperandView& av, int rows, int64_t k0,
                     int kl, float* target, int64_t ldt, bool first);
  const float* direct_source = nullptr;  // direct: the input, or its padded copy
  void reduce(int t, int nt);
  // col2im: one group's weights packed as nr-wide panels of all K / G rows.
  int64_t col2im_panel_floats(const Blocking& run) const {
    const int64_t per_group = run.columns.columns() / run.groups;
    return ceil_div(per_group, cfg.warp_tile_n) * cfg.warp_tile_n * run.col2im_k;
  }
  void pack_col2im_weights(const float* w, float* panels) const;
  void run_col2im(const ConvTensors& t, int threads);
  void column_rows(const float* y, const float* panels, float* col, int64_t n, int64_t begin,
                   int64_t end) const;
};

ConvDriver::Impl::Impl(const ConvConfig& config, Isa cpu) : cfg(config) {
  if (cfg.dir != Direction::kBackwardWeight)
    layout = "n" + std::to_string(cfg.tile_n) + "/" + std::to_string(cfg.warp_n) + "/" +
             std::to_string(cfg.warp_tile_n) + " k" + std::to_string(cfg.tile_k) + "/" +
             std::to_string(cfg.warp_k);
  const bool bf16 = cfg.dtype == "bf16";
  src_elem = bf16 ? Elem::kBf16 : Elem::kF32;
  elem_bytes = bf16 ? 2 : 4;
  isa = std::min(cpu, Isa::kAvx512);  // panels are fp32: vdpbf16ps pair panels are not used
  const Modes modes = modes_of(cfg);
  a_mode = modes.a;
  b_mode = modes.b;
  // Backward data reading y's gradient by rows runs problems of few channels per group by
  // columns (Col2Im), whose packed weights are laid out for the column product: kernels share
  // packed weights only when they take that path for the same problems.
  if (cfg.dir == Direction::kBackwardData &&
      (a_mode == AMode::kGatherRows || a_mode == AMode::kInPlace))
    layout += " rows";
  kernels::MicroSpec spec{};
  spec.mr = cfg.warp_tile_m;
  spec.nr = cfg.warp_tile_n;
  spec.ku = cfg.warp_tile_k;
  spec.a_elem = a_mode == AMode::kInPlace ? src_elem : Elem::kF32;
  spec.b_elem = b_mode == BMode::kInPlace ? src_elem : Elem::kF32;
  // In place, forward and backward-data rows are pixels with contiguous channels (K adjacent);
  // backward weight's A is the output gradient transposed (rows adjacent).
  const bool rows_adjacent = a_mode == AMode::kPacked || a_mode == AMode::kGatherPacked ||
                             (a_mode == AMode::kInPlace && cfg.dir == Direction::kBackwardWeight);
  spec.a_walk = rows_adjacent ? AWalk::kM : AWalk::kK;
  spec.b_walk = BWalk::kN;
  full = kernels::find_micro(isa, spec);
  spec.edge = true;
  edge = kernels::find_micro(isa, spec);
  if (!full || !edge)
    throw InputError("", 0, "warp_tile",
                     "no " + std::string(kernels::to_string(isa)) +
                         " micro-kernel is compiled for " + std::to_string(spec.mr) + "x" +
                         std::to_string(spec.nr) + "x" + std::to_string(spec.ku) + " (" +
                         cfg.name() + ")");
}

// The operands of p's implicit GEMM (docs/conv-kernels.md, "The three GEMMs").
void ConvDriver::Impl::bind(const Problem& p, const ConvTensors& t) {
  const int64_t cg = p.c / p.g, kg = p.k / p.g, taps = p.z * p.y * p.x;
  problem = p;
  auto bytes = [](const void* ptr) { return static_cast<const char*>(ptr); };
  GatherSpec image;  // the x image gathered by output pixels (forward, backward weight)
  image.bf16 = src_elem == Elem::kBf16;
  image.taps = int(taps);
  image.batch = p.n;
  image.filter = {p.z, p.y, p.x};
  image.stride = p.stride;
  image.pad = p.pad;
  image.dil = p.dil;
  a_gather.reset();
  b_gather.reset();
  const int vec_gather = cfg.vec_a;
  switch (*p.dir) {
    case Direction::kForward: {
      image.base = t.x, image.group_stride = cg, image.pixel_stride = p.c, image.run = cg;
      image.rows_dims = {p.do_, p.ho, p.wo}, image.source_dims = {p.di, p.hi, p.wi};
      a = {bytes(t.x), cg, p.c, 1};  // 1x1, stride 1, no padding: output pixel = input pixel
      if (a_mode == AMode::kGatherRows || a_mode == AMode::kGatherPacked)
        a_gather.emplace(image, cfg.specialization, vec_gather);
      b = {bytes(t.w), kg * taps * cg, 1, taps * cg};  // B(k, n) = w[g][n][tap, c = k]
      c = t.result, ldc = p.k, c_group_stride = kg;
      break;
    }
    case Direction::kBackwardData: {
      GatherSpec grad = image;  // y's gradient gathered by input pixels
      grad.base = t.y, grad.group_stride = kg, grad.pixel_stride = p.k, grad.run = kg;
      grad.map = TapMap::kTransposed;
      grad.rows_dims = {p.di, p.hi, p.wi}, grad.source_dims = {p.do_, p.ho, p.wo};
      if (phased) grad.phases = &phases;
      a = {bytes(t.y), kg, p.k, 1};
      if (a_mode == AMode::kGatherRows || a_mode == AMode::kGatherPacked)
        a_gather.emplace(grad, cfg.specialization, vec_gather);
      GatherSpec weights;  // B((tap, k), c) = w[g][k][tap][c]
      weights.base = t.w, weights.group_stride = kg * taps * cg, weights.bf16 = image.bf16;
      weights.map = TapMap::kIndexed, weights.taps = int(taps), weights.run = cg;
      weights.index_blocks = int(kg), weights.index_row_stride = taps * cg;
      b_gather.emplace(weights, Specialization::kDefault, cfg.vec_b);
      c = t.result, ldc = p.c, c_group_stride = cg;
      break;
    }
    case Direction::kBackwardWeight: {
      a = {bytes(t.y), kg, 1, p.k};  // A(k, pixel) = y[pixel][g][k]
      image.base = t.x, image.group_stride = cg, image.pixel_stride = p.c, image.run = cg;
      image.rows_dims = {p.do_, p.ho, p.wo}, image.source_dims = {p.di, p.hi, p.wi};
      b = {bytes(t.x), cg, p.c, 1};  // 1x1, stride 1, no padding: B(pixel, c) = x[pixel][g][c]
      if (b_mode == BMode::kGatherPanels) b_gather.emplace(image, cfg.specialization, vec_gather);
      c = t.result, ldc = taps * cg, c_group_stride = kg * taps * cg;
      break;
    }
  }
}

Blocking ConvDriver::Impl::blocking(const Problem& p, int threads) const {
  Blocking run;
  run.groups = p.g;
  run.shape = implicit_gemm(p);
  switch (*p.dir) {  // the written tensor: y, x's gradient or w's gradient
    case Direction::kForward:
      run.result_elems = p.n * p.do_ * p.ho * p.wo * p.k;
      break;
    case Direction::kBackwardData:
      run.result_elems = p.n * p.di * p.hi * p.wi * p.c;
      break;
    case Direction::kBackwardWeight:
      run.result_elems = p.k * p.z * p.y * p.x * (p.c / p.g);
      break;
  }
  run.phased = is_phased(p);
  run.tiles_m = ceil_div(run.shape.m, cfg.tile_m);
  if (run.phased) {
    run.phases = RowPhases(p.n, {p.di, p.hi, p.wi}, p.stride);
    run.phase_tiles.assign(1, 0);
    for (int ph = 0; ph < run.phases.count(); ++ph)
      run.phase_tiles.push_back(
          run.phase_tiles.back() +
          ceil_div(run.phases.start(ph + 1) - run.phases.start(ph), cfg.tile_m));
    run.tiles_m = run.phase_tiles.back();
  }
  run.tiles_n = ceil_div(run.shape.n, cfg.tile_n);
  run.k_tiles = ceil_div(run.shape.k, cfg.tile_k);
  run.split = cfg.two_stage ? int(std::min<int64_t>(threads, run.k_tiles)) : 1;
  run.parts = run.split * cfg.warp_k;
  run.sub_m = cfg.tile_m / cfg.warp_m;
  run.sub_n = cfg.tile_n / cfg.warp_n;
  run.ks = cfg.tile_k / cfg.warp_k;
  run.tasks = int64_t(run.parts) * run.groups * run.tiles_n * cfg.warp_n * run.tiles_m * cfg.warp_m;
  run.slots = ceil_div(run.k_tiles, run.split);
  // Keep every K slice of a column block's packed B only while that stays cache-sized; a deep
  // K (backward weight sums over every output pixel) repacks per task instead.
  constexpr int64_t kCacheBytes = int64_t(4) << 20;
  const ProblemPaths paths = problem_paths(cfg, p);
  run.k_outer = paths.k_outer;
  run.cache_b = b_mode != BMode::kInPlace &&
                (run.k_outer ||
                 run.slots * ceil_div(run.sub_n, cfg.warp_tile_n) * cfg.warp_tile_n * run.ks * 4 <=
                     kCacheBytes);
  run.a_first = cfg.dir != Direction::kBackwardWeight && a_mode != AMode::kInPlace;
  const bool a_packed = a_mode == AMode::kPacked || a_mode == AMode::kGatherPacked;
  run.a_slot_floats =
      (a_packed ? ceil_div(run.sub_m, cfg.warp_tile_m) * cfg.warp_tile_m : run.sub_m) * run.ks;
  run.col2im = paths.col2im;
  if (run.col2im) run.columns = Col2Im(p), run.col2im_k = p.k / p.g;
  run.direct_a = paths.direct_a;
  run.direct_b = paths.direct_b;
  run.dense_b = paths.dense_b;
  run.direct = run.direct_a || run.direct_b || run.dense_b;
  if (run.direct) run.direct_image = DirectImage(p);
  if (run.direct_b) run.cache_b = false;
  run.cache_a = run.a_first && !run.direct && run.slots * run.a_slot_floats * 4 <= kCacheBytes;
  return run;
}

// One thread's gathered im2col block (the A rows of one K slice), its packed A panels, its
// packed or gathered B panels (every K slot of a column block when they stay cache-sized, else
// one), its cshuffle staging tile; and the partial results of the K parts beyond the first
// (two_stage's per-thread weight gradients, warp_k's), which the result itself holds.
Scratch ConvDriver::Impl::scratch(const Blocking& run) const {
  if (run.col2im) {
    Scratch s;
    s.col = 4 * run.columns.out_pixels() * run.columns.columns();
    s.col_panels = 4 * run.groups * col2im_panel_floats(run);
    return s;
  }
  const int64_t panel_rows = ceil_div(run.sub_m, cfg.warp_tile_m) * cfg.warp_tile_m;
  const int64_t panel_cols = ceil_div(run.sub_n, cfg.warp_tile_n) * cfg.warp_tile_n;
  Scratch s;
  if ((a_mode == AMode::kGatherRows && !run.direct) || a_mode == AMode::kGatherPacked)
    s.a_block = 4 * int64_t(run.sub_m) * run.ks;
  if (run.direct) s.padded = 4 * run.direct_image.padded_floats();
  if (a_mode == AMode::kPacked || a_mode == AMode::kGatherPacked)
    s.a_pack = 4 * panel_rows * run.ks;
  if (b_mode != BMode::kInPlace && !run.direct_b) {
    s.b_pack = 4 * (run.cache_b && !run.k_outer ? run.slots : 1) * panel_cols * run.ks;
    s.b_slots = run.slots;
  }
  if (run.cache_a) {
    s.a_cache = 4 * run.slots * run.a_slot_floats;
    s.a_slots = run.slots;
  }
  if (cfg.epilogue == Epilogue::kCShuffle || run.phased)
    s.stage = 4 * int64_t(run.sub_m) * run.sub_n;
  if (run.parts > 1) s.partial = 4 * int64_t(run.parts - 1) * run.result_elems;
  return s;
}

void ConvDriver::Impl::reserve(int threads) {
  if (work.spaces.size() < size_t(threads)) work.spaces.resize(size_t(threads));
  const Scratch s = scratch(*this);
  for (int t = 0; t < threads; ++t) {
    ThreadSpace& ws = work.spaces[size_t(t)];
    if (s.a_block) ws.a_block.reserve(size_t(s.a_block));
    if (s.a_pack) ws.a_pack.reserve(size_t(s.a_pack));
    if (s.b_pack) {
      ws.b_pack.reserve(size_t(s.b_pack));
      if (ws.b_slots.ready.size() < size_t(s.b_slots)) ws.b_slots.ready.resize(size_t(s.b_slots));
    }
    if (s.a_cache) {
      ws.a_cache.reserve(size_t(s.a_cache));
      if (ws.a_slots.ready.size() < size_t(s.a_slots)) ws.a_slots.ready.resize(size_t(s.a_slots));
    }
    if (s.stage) ws.stage.reserve(size_t(s.stage));
  }
  if (s.partial) work.partial.reserve(size_t(s.partial));
  if (s.padded) work.padded.reserve(size_t(s.padded));
  if (s.col) work.col.reserve(size_t(s.col));
  if (s.col_panels) work.col_panels.reserve(size_t(s.col_panels));
}

// A's rows [r0, r0 + rows) x K [k0, k0 + kl) of group g as the micro-kernel reads it: in place,
// or gathered and packed into the thread's buffers, or (cache_a) into K slot `slot` of the
// thread's A cache, filled once per row block.
OperandView ConvDriver::Impl::view_a(ThreadSpace& ws, int64_t g, int64_t r0, int64_t k0, int rows,
                                     int kl, int64_t slot) {
  if (!cache_a) return fill_a(ws, g, r0, k0, rows, kl, nullptr);
  char* into = ws.a_cache.bytes() + 4 * slot * a_slot_floats;
  if (!ws.a_slots.ready[size_t(slot)]) {
    fill_a(ws, g, r0, k0, rows, kl, into);
    ws.a_slots.ready[size_t(slot)] = 1;
  }
  const int mr = cfg.warp_tile_m;
  if (a_mode == AMode::kGatherRows) return {into, 4 * int64_t(mr) * kl, kl, 1};
  return {into, 4 * int64_t(mr) * kl, 1, mr};
}

// A's view, gathered or packed into `into` (a slot of the A cache) or, given nullptr, into the
// thread's own blocks; in place it copies nothing.
OperandView ConvDriver::Impl::fill_a(ThreadSpace& ws, int64_t g, int64_t r0, int64_t k0, int rows,
                                     int kl, char* into) {
  const int mr = cfg.warp_tile_m;
  char* pack_to = into ? into : ws.a_pack.bytes();
  const OperandView packed{pack_to, 4 * int64_t(mr) * kl, 1, mr};
  switch (a_mode) {
    case AMode::kInPlace:
    case AMode::kPacked: {
      const char* src = a.base + (g * a.gs + r0 * a.s0 + k0 * a.s1) * elem_bytes;
      if (a_mode == AMode::kInPlace) return {src, mr * a.s0 * elem_bytes, a.s0, a.s1};
      kernels::pack_a(isa, kernels::SourceA{src, src_elem, a.s0, a.s1}, rows, kl, mr, false,
                      pack_to);
      return packed;
    }
    case AMode::kGatherRows:
    case AMode::kGatherPacked: {
      float* block = a_mode == AMode::kGatherRows && into ? reinterpret_cast<float*>(into)
                                                          : ws.a_block.floats();
      a_gather->copy(g, r0, rows, k0, kl, block, kl);
      if (a_mode == AMode::kGatherRows)
        return {reinterpret_cast<const char*>(block), 4 * int64_t(mr) * kl, kl, 1};
      kernels::pack_a(isa, kernels::SourceA{block, Elem::kF32, kl, 1}, rows, kl, mr, false,
                      pack_to);
      return packed;
    }
  }
  return packed;
}

OperandView ConvDriver::Impl::view_b(ThreadSpace& ws, int64_t g, int64_t c0, int64_t k0, int cols,
                                     int kl, int64_t slot, int64_t packed_slice) {
  const int nr = cfg.warp_tile_n;
  const OperandView panels_at{nullptr, 4 * int64_t(nr) * kl, nr, 1};
  if (packed) {
    OperandView v = panels_at;
    v.base = packed->panels.data() + 4 * packed_slice * packed_slice_floats();
    return v;
  }
  if (b_mode == BMode::kInPlace) {
    const char* src = b.base + (g * b.gs + k0 * b.s0 + c0 * b.s1) * elem_bytes;
    return {src, nr * b.s1 * elem_bytes, b.s0, b.s1};
  }
  const int64_t panel_cols = ceil_div(sub_n, nr) * nr;
  const int64_t cached = cache_b ? slot : 0;
  float* panels = ws.b_pack.floats() + cached * panel_cols * ks;
  if (!cache_b || !ws.b_slots.ready[size_t(slot)]) {
    if (dense_b)
      direct_image.copy_rows(direct_source, g, k0, kl, c0, cols, panels, ws.pieces, ws.segments);
    else
      pack_b_slice(g, c0, k0, cols, kl, panels);
    if (cache_b) ws.b_slots.ready[size_t(slot)] = 1;
  }
  if (dense_b) return {reinterpret_cast<const char*>(panels), 4 * int64_t(nr), cols, 1};
  OperandView v = panels_at;
  v.base = reinterpret_cast<const char*>(panels);
  return v;
}

// B's rows [k0, k0 + kl) x columns [c0, c0 + cols) of group g as micro-panels nr wide, panel j
// at panels + j * nr * kl (edge columns zero), packed or gathered.
void ConvDriver::Impl::pack_b_slice(int64_t g, int64_t c0, int64_t k0, int cols, int kl,
                                    float* panels) const {
  const int nr = cfg.warp_tile_n;
  if (b_mode == BMode::kPacked) {
    const char* src = b.base + (g * b.gs + k0 * b.s0 + c0 * b.s1) * elem_bytes;
    kernels::pack_b(isa, kernels::SourceB{src, src_elem, b.s0, b.s1}, kl, cols, nr, false, panels);
    return;
  }
  b_gather->copy_panels(g, k0, kl, c0, cols, panels, nr);
}

// The register tiles of one K slice in the scheduler's order; compv4 prefetches the micro-panel
// the inner loop reads next.
void ConvDriver::Impl::walk(const OperandView& av, const OperandView& bv, int rows, int cols,
                            int kl, float* target, int64_t ldt, bool first) {
  const int mr = cfg.warp_tile_m, nr = cfg.warp_tile_n;
  kernels::MicroArgs args{nullptr, av.s0, av.s1, nullptr, bv.s0, bv.s1,           nullptr, ldt,
                          kl,      mr,    nr,    mr,      nr,    cfg.warp_tile_k, !first};
  const int pm = int(ceil_div(rows, mr)), pn = int(ceil_div(cols, nr));
  auto call = [&](int ir, int jr) {
    args.a = av.base + ir * av.panel_bytes;
    args.b = bv.base + jr * bv.panel_bytes;
    args.c = target + int64_t(ir) * mr * ldt + int64_t(jr) * nr;
    args.mv = std::min(mr, rows - ir * mr);
    args.nv = std::min(nr, cols - jr * nr);
    (args.mv < mr || args.nv < nr ? edge : full)(args);
  };
  const bool prefetching = cfg.pipeline == Pipeline::kCompV4;
  auto prefetch = [&](const OperandView& v, int next) {
    const char* p = v.base + next * v.panel_bytes;
    for (int line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line, 0, 3);
  };
  if (cfg.scheduler == Scheduler::kIntrawave) {
    for (int jr = 0; jr < pn; ++jr)
      for (int ir = 0; ir < pm; ++ir) {
        if (prefetching) prefetch(av, ir + 1 < pm ? ir + 1 : 0);
        call(ir, jr);
      }
  } else {
    for (int ir = 0; ir < pm; ++ir)
      for (int jr = 0; jr < pn; ++jr) {
        if (prefetching) prefetch(bv, jr + 1 < pn ? jr + 1 : 0);
        call(ir, jr);
      }
  }
}

// walk's direct counterpart: A read in place, one micro-kernel call per (piece of a register
// tile's rows within one output row, column panel, contiguous column range of the slice); the
// first range of the first slice overwrites the tile, the rest accumulate.
void ConvDriver::Impl::walk_direct_a(ThreadSpace& ws, int64_t g, const OperandView& bv, int cols,
                                     int64_t k0, int kl, float* target, int64_t ldt, bool first) {
  const int mr = cfg.warp_tile_m, nr = cfg.warp_tile_n;
  direct_image.segments(k0, kl, ws.segments);
  const float* a_base = direct_source + direct_image.group_offset(g);
  kernels::MicroArgs args{
      nullptr, direct_image.row_stride(), 1,    nullptr, nr, 1, nullptr, ldt, 0, mr, nr, mr,
      nr,      cfg.warp_tile_k,           false};
  const int pn = int(ceil_div(cols, nr));
  auto call = [&](const DirectPiece& piece, int jr) {
    args.c = target + int64_t(piece.i0) * ldt + int64_t(jr) * nr;
    args.mv = piece.count;
    args.nv = std::min(nr, cols - jr * nr);
    const kernels::MicroFn fn = args.mv < mr || args.nv < nr ? edge : full;
    const char* panel = bv.base + jr * bv.panel_bytes;
    bool load = !first;
    for (const DirectSegment& seg : ws.segments) {
      args.a = a_base + piece.offset + seg.offset;
      args.b = panel + 4 * int64_t(seg.k) * nr;
      args.kc = seg.len;
      args.load_c = load;
      fn(args);
      load = true;
    }
  };
  if (cfg.scheduler == Scheduler::kIntrawave) {
    for (int jr = 0; jr < pn; ++jr)
      for (const DirectPiece& piece : ws.pieces) call(piece, jr);
  } else {
    for (const DirectPiece& piece : ws.pieces)
      for (int jr = 0; jr < pn; ++jr) call(piece, jr);
  }
}

// Backward weight's counterpart: B (x by output pixel, the K rows) read in place, one call per
// (contiguous column range cut into nr-wide panels, register tile row, run of the slice's
// pixels within one output row); ws.segments holds the task's column ranges.
void ConvDriver::Impl::walk_direct_b(ThreadSpace& ws, int64_t g, const OperandView& av, int rows,
                                     int64_t k0, int kl, float* target, int64_t ldt, bool first) {
  const int mr = cfg.warp_tile_m, nr = cfg.warp_tile_n;
  direct_image.pieces(k0, kl, std::numeric_limits<int>::max(), ws.pieces);
  const float* b_base = direct_source + direct_image.group_offset(g);
  kernels::MicroArgs args{
      nullptr, av.s0, av.s1, nullptr, direct_image.row_stride(), 1,    nullptr, ldt, 0,
      mr,      nr,    mr,    nr,      cfg.warp_tile_k,           false};
  const int pm = int(ceil_div(rows, mr));
  for (const DirectSegment& seg : ws.segments)
    for (int off = 0; off < seg.len; off += nr) {
      args.nv = std::min(nr, seg.len - off);
      for (int ir = 0; ir < pm; ++ir) {
        args.mv = std::min(mr, rows - ir * mr);
        args.c = target + int64_t(ir) * mr * ldt + seg.k + off;
        const kernels::MicroFn fn = args.mv < mr || args.nv < nr ? edge : full;
        bool load = !first;
        for (const DirectPiece& piece : ws.pieces) {
          args.a = av.base + ir * av.panel_bytes + 4 * int64_t(piece.i0) * av.s1;
          args.b = b_base + piece.offset + seg.offset + off;
          args.kc = piece.count;
          args.load_c = load;
          fn(args);
          load = true;
        }
      }
    }
}

// col2im's column product for output pixels [begin, end) of image n: per register tile of
// rows, every group's nr-wide column panels over K / G in slices of tile_k; A is y's gradient
// read in place, B the packed weights.
void ConvDriver::Impl::column_rows(const float* y, const float* panels, float* col, int64_t n,
                                   int64_t begin, int64_t end) const {
  const int mr = cfg.warp_tile_m, nr = cfg.warp_tile_n;
  const int64_t kg = col2im_k, ncols = columns.columns(), per_group = ncols / groups;
  const int64_t group_panels = col2im_panel_floats(*this);
  kernels::MicroArgs args{nullptr, problem.k, 1,  nullptr,         nr,   1, nullptr, ncols, 0, mr,
                          nr,      mr,        nr, cfg.warp_tile_k, false};
  for (int64_t r = begin; r < end; r += mr) {
    args.mv = int(std::min<int64_t>(mr, end - r));
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t j = 0; j < per_group; j += nr) {
        args.nv = int(std::min<int64_t>(nr, per_group - j));
        const kernels::MicroFn fn = args.mv < mr || args.nv < nr ? edge : full;
        for (int64_t k0 = 0; k0 < kg; k0 += cfg.tile_k) {
          args.kc = int(std::min<int64_t>(cfg.tile_k, kg - k0));
          args.a = y + (n * columns.out_pixels() + r) * problem.k + g * kg + k0;
          args.b = panels + g * group_panels + j * kg + k0 * nr;  // panel j / nr, row k0
          args.c = col + r * ncols + g * per_group + j;
          args.load_c = k0 > 0;
          fn(args);
        }
      }
  }
}

// col2im's B: every group's weights (K / G rows of taps x C / G) as nr-wide panels.
void ConvDriver::Impl::pack_col2im_weights(const float* w, float* panels) const {
  const int64_t per_group = columns.columns() / groups;
  for (int64_t g = 0; g < groups; ++g)
    kernels::pack_b(isa, kernels::SourceB{w + g * col2im_k * per_group, Elem::kF32, per_group, 1},
                    int(col2im_k), int(per_group), cfg.warp_tile_n, false,
                    panels + g * col2im_panel_floats(*this));
}

// Image by image: the columns of every output pixel (rows split among threads in register
// tiles), then each input row's sum of the columns that reach it (rows split among threads).
// The weights are packed per run unless the run was given them packed.
void ConvDriver::Impl::run_col2im(const ConvTensors& t, int threads) {
  const Problem& p = problem;
  const float* panels = work.col_panels.floats();
  if (packed)
    panels = reinterpret_cast<const float*>(packed->panels.data());
  else
    pack_col2im_weights(static_cast<const float*>(t.w), work.col_panels.floats());
  const auto* y = static_cast<const float*>(t.y);
  float* col = work.col.floats();
  const int64_t pixels = columns.out_pixels(), tiles = ceil_div(pixels, cfg.warp_tile_m);
  const int64_t image_floats = p.di * p.hi * p.wi * p.c, rows = columns.in_rows();
  auto image = [&](int64_t n, int ti, int nt, auto&& barrier) {
    const int64_t tb = tiles * ti / nt, te = tiles * (ti + 1) / nt;
    column_rows(y, panels, col, n, tb * cfg.warp_tile_m, std::min(pixels, te * cfg.warp_tile_m));
    barrier();
    columns.sum_rows(col, c + n * image_floats, rows * ti / nt, rows * (ti + 1) / nt);
    barrier();
  };
  if (threads == 1) {
    for (int64_t n = 0; n < p.n; ++n) image(n, 0, 1, [] {});
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int ti = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int64_t n = 0; n < p.n; ++n)
      image(n, ti, nt, [] {
#pragma omp barrier
      });
  }
}

void ConvDriver::Impl::task(ThreadSpace& ws, int64_t id, int64_t kb_from, int64_t kb_to) {
  int wm, wn;
  int64_t bm, bn;
  auto take = [&id](int64_t extent) {
    const int64_t v = id % extent;
    id /= extent;
    return v;
  };
  if (a_first) {  // column blocks fastest: consecutive tasks share a row block's A
    wn = int(take(cfg.warp_n)), bn = take(tiles_n), wm = int(take(cfg.warp_m)), bm = take(tiles_m);
  } else {  // row blocks fastest: consecutive tasks share a column block's B
    wm = int(take(cfg.warp_m)), bm = take(tiles_m), wn = int(take(cfg.warp_n)), bn = take(tiles_n);
  }
  const int64_t g = id % groups;
  id /= groups;
  const int wk = int(id % cfg.warp_k);
  const int s = int(id / cfg.warp_k);

  int64_t r0 = bm * cfg.tile_m + int64_t(wm) * sub_m, m_end = shape.m;
  int phase = -1;  // phased: the block's phase, whose rows end at m_end
  if (phased) {
    phase =
        int(std::upper_bound(phase_tiles.begin(), phase_tiles.end(), bm) - phase_tiles.begin()) - 1;
    r0 = phases.start(phase) + (bm - phase_tiles[size_t(phase)]) * cfg.tile_m + int64_t(wm) * sub_m;
    m_end = phases.start(phase + 1);
  }
  const int64_t c0 = bn * cfg.tile_n + int64_t(wn) * sub_n;
  if (r0 >= m_end || c0 >= shape.n) return;
  const int part = s * cfg.warp_k + wk;
  float* base = part == 0 ? c : work.partial.floats() + (part - 1) * result_elems;
  const int rows = int(std::min<int64_t>(sub_m, m_end - r0));
  const int cols = int(std::min<int64_t>(sub_n, shape.n - c0));
  // Row i of the block in the result: r0 + i, or its pixel when rows are phase-ordered.
  auto out_row = [&](int i) {
    const int64_t row = phased ? phases.pixel(r0 + i) : r0 + i;
    return base + g * c_group_stride + row * ldc + c0;
  };
  float* out = out_row(0);
  const bool shuffle = cfg.epilogue == Epilogue::kCShuffle || phased;
  float* target = shuffle ? ws.stage.floats() : out;
  const int64_t ldt = shuffle ? sub_n : ldc;
  // A block of one stride phase skips the K slices of taps that never reach that phase.
  const int64_t kb0 = s * k_tiles / split, kb1 = (s + 1) * k_tiles / split;
  const int64_t from = std::max(kb0, kb_from), to = std::min(kb1, kb_to);
  if (from >= to && !(kb_from <= kb0 && kb0 < kb_to)) return;  // K-outer: not this part's slice
  if (cache_b) ws.b_slots.hold(CacheTag{work.run_id, g, bn, wn, part, k_outer ? from : -1});
  if (cache_a) ws.a_slots.hold(CacheTag{work.run_id, g, bm, wm, part});
  bool first = from == kb0;  // K-outer: a later slice accumulates onto the earlier ones
  if (direct_b) direct_image.segments(c0, cols, ws.segments);
  if (direct_a) direct_image.pieces(r0, rows, cfg.warp_tile_m, ws.pieces);
  for (int64_t kb = from; kb < to; ++kb) {
    const int64_t k0 = kb * cfg.tile_k + int64_t(wk) * ks;
    if (k0 >= shape.k) continue;
    const int kl = int(std::min<int64_t>(ks, shape.k - k0));
    if (phase >= 0 && !phase_has_taps(problem, phases.offset(phase), k0, kl)) continue;
    if (direct_b) {
      walk_direct_b(ws, g, view_a(ws, g, r0, k0, rows, kl, kb - kb0), rows, k0, kl, target, ldt,
                    first);
      first = false;
      continue;
    }
    OperandView bv =
        view_b(ws, g, c0, k0, cols, kl, k_outer ? 0 : kb - kb0, packed_slice(g, bn, wn, kb, wk));
    if (direct_a) {
      walk_direct_a(ws, g, bv, cols, k0, kl, target, ldt, first);
    } else {
      OperandView av = view_a(ws, g, r0, k0, rows, kl, kb - kb0);
      walk(av, bv, rows, cols, kl, target, ldt, first);
    }
    first = false;
  }
  if (first) {  // this part's K share is empty (K tail, or no tap of the phase): zero
    for (int i = 0; i < rows; ++i) std::fill_n(out_row(i), cols, 0.0f);
  } else if (cfg.epilogue == Epilogue::kCShuffle) {
    for (int i = 0; i < rows; ++i) copy_values(out_row(i), target + i * ldt, cols, cfg.vec_c);
  } else if (shuffle) {
    for (int i = 0; i < rows; ++i)
      std::memcpy(out_row(i), target + i * ldt, sizeof(float) * size_t(cols));
  }
}

// Whether a K slice of backward data's GEMM (columns (tap, k)) holds a tap that reaches the
// pixels of `phase`: along each axis, (offset + pad - tap * dilation) divisible by the stride.
// Adds the partial results of the K parts into the result, elements split among threads.
void ConvDriver::Impl::reduce(int t, int nt) {
  const float* partial = work.partial.floats();
  const int64_t begin = result_elems * t / nt, end = result_elems * (t + 1) / nt;
  for (int part = 1; part < parts; ++part) {
    const float* p = partial + (part - 1) * result_elems;
    for (int64_t i = begin; i < end; ++i) c[i] += p[i];
  }
}

// Each thread owns a contiguous task range: consecutive tasks share a column block's packed B
// (K-outer: the range is walked once per K slice).
void ConvDriver::Impl::worker(int t, int nt) {
  ThreadSpace& ws = work.spaces[size_t(t)];
  const int64_t begin = tasks * t / nt, end = tasks * (t + 1) / nt;
  if (!k_outer) {
    for (int64_t id = begin; id < end; ++id) task(ws, id);
    return;
  }
  for (int64_t kb = 0; kb < k_tiles; ++kb)
    for (int64_t id = begin; id < end; ++id) task(ws, id, kb, kb + 1);
}

ConvDriver::ConvDriver(const ConvConfig& config, Isa cpu)
    : impl_(std::make_unique<Impl>(config, cpu)) {}
ConvDriver::~ConvDriver() = default;
ConvDriver::ConvDriver(ConvDriver&&) noexcept = default;
ConvDriver& ConvDriver::operator=(ConvDriver&&) noexcept = default;

Isa ConvDriver::isa() const {
  return impl_->isa;
}

double ConvDriver::workspace_bytes(const Problem& p, int threads) const {
  return impl_->scratch(impl_->blocking(p, threads)).bytes(threads);
}

std::string ConvDriver::weight_layout() const {
  return impl_->layout;
}

std::unique_ptr<PackedWeights> ConvDriver::pack_weights(const Problem& p, const void* w) const {
  Impl& x = *impl_;
  if (x.layout.empty()) return nullptr;
  std::lock_guard lock(x.work.mutex);  // the per-run state below is shared with run()
  static_cast<Blocking&>(x) = x.blocking(p, 1);
  ConvTensors weights_only;
  weights_only.w = w;
  x.bind(p, weights_only);
  auto out = std::make_unique<PackedWeights>();
  out->layout = x.layout;
  out->problem = p;
  out->source = w;
  if (x.col2im) {
    out->panels =
        kernels::PlacedBuffer(size_t(4 * x.groups * x.col2im_panel_floats(x)), Placement::kPackB);
    x.pack_col2im_weights(static_cast<const float*>(w),
                          reinterpret_cast<float*>(out->panels.data()));
    return out;
  }
  const int64_t slice = x.packed_slice_floats();
  out->panels = kernels::PlacedBuffer(size_t(4 * x.packed_slice(x.groups, 0, 0, 0, 0) * slice),
                                      Placement::kPackB);
  for (int64_t g = 0; g < x.groups; ++g)
    for (int64_t bn = 0; bn < x.tiles_n; ++bn)
      for (int wn = 0; wn < x.cfg.warp_n; ++wn) {
        const int64_t c0 = bn * x.cfg.tile_n + int64_t(wn) * x.sub_n;
        if (c0 >= x.shape.n) continue;
        const int cols = int(std::min<int64_t>(x.sub_n, x.shape.n - c0));
        for (int64_t kb = 0; kb < x.k_tiles; ++kb)
          for (int wk = 0; wk < x.cfg.warp_k; ++wk) {
            const int64_t k0 = kb * x.cfg.tile_k + int64_t(wk) * x.ks;
            if (k0 >= x.shape.k) continue;
            const int kl = int(std::min<int64_t>(x.ks, x.shape.k - k0));
            float* panels = reinterpret_cast<float*>(out->panels.data()) +
                            x.packed_slice(g, bn, wn, kb, wk) * slice;
            x.pack_b_slice(g, c0, k0, cols, kl, panels);
          }
      }
  return out;
}

void ConvDriver::run(const Problem& p, const ConvTensors& tensors, int threads,
                     const PackedWeights* packed) {
  Impl& x = *impl_;
  if (packed &&
      (packed->layout != x.layout || !(packed->problem == p) || packed->source != tensors.w))
    throw InputError("", 0, "packed weights",
                     "packed for another " +
                         std::string(packed->layout != x.layout ? "kernel layout"
                                     : !(packed->problem == p)  ? "problem"
                                                                : "weight tensor") +
                         " than this run's (" + x.cfg.name() + ")");
  std::lock_guard lock(x.work.mutex);  // also guards x's per-run state
  static_cast<Blocking&>(x) = x.blocking(p, threads);
  x.bind(p, tensors);
  x.packed = packed;
  x.reserve(threads);
  ++x.work.run_id;
  if (x.col2im) return x.run_col2im(tensors, threads);
  const bool pad = x.direct && x.direct_image.padded_floats() > 0;
  // The image read in place: x, or backward data's output gradient.
  const auto* image =
      static_cast<const float*>(*p.dir == Direction::kBackwardData ? tensors.y : tensors.x);
  if (x.direct) x.direct_source = pad ? x.work.padded.floats() : image;
  if (threads == 1) {
    if (pad) x.direct_image.fill_padded(image, x.work.padded.floats(), 0, 1);
    x.worker(0, 1);
    if (x.parts > 1) x.reduce(0, 1);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (pad) {
      x.direct_image.fill_padded(image, x.work.padded.floats(), t, nt);
#pragma omp barrier
    }
    x.worker(t, nt);
    if (x.parts > 1) {
#pragma omp barrier
      x.reduce(t, nt);
    }
  }
}

}  // namespace kselect::conv::cpu
