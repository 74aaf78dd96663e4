#include "ops/gemm/cpu/driver.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/cpu_gemm_core/micro.h"
#include "ops/cpu_gemm_core/pack.h"
#include "ops/cpu_gemm_core/placed_buffer.h"

namespace kselect::kernels {

using gemm::GemmConfig;
using gemm::GemmProblem;
using std::int64_t;

namespace {

// Grow-only placed memory (kernels/placed_buffer.h): after the first run of the largest
// problem, runs reuse it.
class Buffer {
 public:
  explicit Buffer(Placement where) : where_(where) {}
  char* reserve(size_t bytes) {
    if (bytes > memory_.size()) memory_ = PlacedBuffer((bytes + 63) / 64 * 64, where_);
    return memory_.data();
  }
  char* get() const { return memory_.data(); }

 private:
  Placement where_;
  PlacedBuffer memory_;
};

// The problem cut into tasks: a task is one warp's share (sub_m x sub_n, one K part) of one
// block tile of one split-K part.
struct Geometry {
  int64_t m, n, k;
  int64_t tiles_m, tiles_n, k_tiles;
  int split, parts;      // split_k, and split_k * warp_k partial sums
  int sub_m, sub_n, ks;  // a warp's rows, columns, and K per K tile
  int64_t tasks;
  int64_t slots;  // K tiles of the largest split part: packed B slices cached per task
};

// The scratch memory of one run: per-thread buffers (each allocated once per worker) and the
// shared partial sums; 0 where the kernel needs none.
struct Scratch {
  int64_t a_pack = 0, b_pack = 0, stage = 0, b_slots = 0;  // per thread (b_slots: flags)
  int64_t partial = 0;                                     // shared
  // As allocated: placed buffers are rounded up to 64 bytes.
  double bytes(int threads) const {
    auto placed = [](int64_t n) { return double((n + 63) / 64 * 64); };
    return double(threads) * (placed(a_pack) + placed(b_pack) + placed(stage) + double(b_slots)) +
           placed(partial);
  }
};

// Which packed B a thread holds: B panels are reused by consecutive tasks of one column block.
struct CacheTag {
  int64_t run = -1, bn = 0;
  int wn = 0, part = 0;
  bool operator==(const CacheTag&) const = default;
};

struct ThreadSpace {
  Buffer a_pack{Placement::kPackA}, b_pack{Placement::kPackB}, stage{Placement::kStage};
  CacheTag tag;
  std::vector<char> b_ready;  // per K slot: packed for `tag`
};

// How micro-kernels reach one operand of one K slice: panel p starts at base + p * panel_bytes;
// s0, s1 are the MicroArgs strides (A: rs, cs; B: ks, ns).
struct OperandView {
  const char* base;
  int64_t panel_bytes;
  int64_t s0, s1;
};

// Scratch memory of all drivers, one set per worker thread, as a library's scratchpad: the
// packed panels of every kernel sit at the same addresses (a kernel's speed does not depend on
// where its own buffers happened to land), and thousands of kernels in a sweep do not each
// hold their own. Runs take the lock, so drivers never share it concurrently.
struct Workspace {
  std::mutex mutex;
  std::vector<ThreadSpace> spaces;
  Buffer partial{Placement::kPartial};
  int64_t run_id = 0;  // counts runs of all drivers, so a CacheTag never matches another's
};

Workspace& shared_workspace() {
  static Workspace workspace;
  return workspace;
}

// One output region of a task: rows x cols at `out` (leading dimension ldo).
struct Region {
  int rows, cols;
  float* out;
  int64_t ldo;
};

}  // namespace

struct GemmDriver::Impl {
  GemmConfig cfg;
  Isa isa;
  bool packs_a, packs_b, pair, a_row, b_row;
  Elem src_elem;
  int elem_bytes;
  MicroFn full = nullptr, edge = nullptr;
  Workspace& work = shared_workspace();

  // Per run.
  Geometry g{};
  const char* a = nullptr;
  const char* b = nullptr;
  float* c = nullptr;

  Impl(const GemmConfig& config, Isa cpu);
  Geometry geometry(const GemmProblem& p) const;
  Scratch scratch(const Geometry& geo) const;
  void reserve(int threads);
  void worker(int t, int nt, std::atomic<int64_t>& next);
  void task(ThreadSpace& ws, int64_t id);
  void slice(ThreadSpace& ws, const Region& r, int64_t r0, int64_t c0, int64_t k0, int kl,
             int64_t slot, float* target, int64_t ldt, bool first);
  OperandView view_a(ThreadSpace& ws, int64_t r0, int64_t k0, int rows, int kl);
  OperandView view_b(ThreadSpace& ws, int64_t c0, int64_t k0, int cols, int kl, int64_t slot);
  template <bool kEdgeM, bool kEdgeN>
  void walk(const OperandView& av, const OperandView& bv, int rows, int cols, int kl, float* target,
            int64_t ldt, bool first);
  void reduce(int t, int nt);
};

GemmDriver::Impl::Impl(const GemmConfig& config, Isa cpu) : cfg(config) {
  const bool bf16 = cfg.dtype == gemm::DType::kBf16;
  packs_a = cfg.pipeline == gemm::Pipeline::kCompV4;
  packs_b = cfg.pipeline != gemm::Pipeline::kMem;
  // vdpbf16ps wants B in K-pair-interleaved panels, so only packing pipelines use it.
  pair = bf16 && cpu == Isa::kAvx512Bf16 && packs_b;
  isa = pair ? Isa::kAvx512Bf16 : std::min(cpu, Isa::kAvx512);
  a_row = gemm::a_row_major(cfg.layout);
  b_row = gemm::b_row_major(cfg.layout);
  src_elem = bf16 ? Elem::kBf16 : Elem::kF32;
  elem_bytes = bf16 ? 2 : 4;

  MicroSpec spec{};
  spec.mr = cfg.warp_tile_m;
  spec.nr = cfg.warp_tile_n;
  spec.ku = cfg.warp_tile_k;
  spec.a_elem = pair ? Elem::kBf16Pair : packs_a ? Elem::kF32 : src_elem;
  spec.b_elem = pair ? Elem::kBf16Pair : packs_b ? Elem::kF32 : src_elem;
  spec.a_walk = packs_a ? AWalk::kM : a_row ? AWalk::kK : pair ? AWalk::kCol : AWalk::kM;
  spec.b_walk = packs_b || b_row ? BWalk::kN : BWalk::kK;
  full = find_micro(isa, spec);
  spec.edge = true;
  edge = find_micro(isa, spec);
  if (!full || !edge)
    throw InputError("", 0, "warp_tile",
                     "no " + std::string(to_string(isa)) + " micro-kernel is compiled for " +
                         std::to_string(spec.mr) + "x" + std::to_string(spec.nr) + "x" +
                         std::to_string(spec.ku) + " (" + cfg.name() + ")");
}

Geometry GemmDriver::Impl::geometry(const GemmProblem& p) const {
  auto ceil_div = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
  Geometry geo;
  geo.m = p.m;
  geo.n = p.n;
  geo.k = p.k;
  geo.tiles_m = ceil_div(p.m, cfg.tile_m);
  geo.tiles_n = ceil_div(p.n, cfg.tile_n);
  geo.k_tiles = ceil_div(p.k, cfg.tile_k);
  geo.split = int(p.split_k);
  geo.parts = geo.split * cfg.warp_k;
  geo.sub_m = cfg.tile_m / cfg.warp_m;
  geo.sub_n = cfg.tile_n / cfg.warp_n;
  geo.ks = cfg.tile_k / cfg.warp_k;
  geo.tasks = int64_t(geo.parts) * geo.tiles_n * cfg.warp_n * geo.tiles_m * cfg.warp_m;
  geo.slots = ceil_div(geo.k_tiles, geo.split);
  return geo;
}

// One thread's packed A panels (compv4) and packed B slices of a column block over its whole
// split part (compv3, compv4), its cshuffle staging tile, and the partial sums of split-K parts
// and K warps beyond the first, which C itself holds.
Scratch GemmDriver::Impl::scratch(const Geometry& geo) const {
  const int64_t kw = packed_k(geo.ks, pair);
  Scratch s;
  if (packs_a) s.a_pack = 4 * int64_t(geo.sub_m) * kw;
  if (packs_b) s.b_pack = 4 * geo.slots * geo.sub_n * kw, s.b_slots = geo.slots;
  if (cfg.epilogue == gemm::Epilogue::kCShuffle)
    s.stage = int64_t(sizeof(float)) * geo.sub_m * geo.sub_n;
  if (geo.parts > 1) s.partial = int64_t(sizeof(float)) * (geo.parts - 1) * geo.m * geo.n;
  return s;
}

void GemmDriver::Impl::reserve(int threads) {
  std::vector<ThreadSpace>& spaces = work.spaces;
  if (spaces.size() < size_t(threads)) spaces.resize(threads);
  const Scratch s = scratch(g);
  for (int t = 0; t < threads; ++t) {
    ThreadSpace& ws = spaces[t];
    if (s.a_pack) ws.a_pack.reserve(s.a_pack);
    if (s.b_pack) {
      ws.b_pack.reserve(s.b_pack);
      if (ws.b_ready.size() < size_t(s.b_slots)) ws.b_ready.resize(s.b_slots);
    }
    if (s.stage) ws.stage.reserve(s.stage);
  }
  if (s.partial) work.partial.reserve(s.partial);
}

OperandView GemmDriver::Impl::view_a(ThreadSpace& ws, int64_t r0, int64_t k0, int rows, int kl) {
  const int64_t rs = a_row ? g.k : 1, cs = a_row ? 1 : g.m;
  const char* src = a + (r0 * rs + k0 * cs) * elem_bytes;
  const int mr = cfg.warp_tile_m;
  if (!packs_a) return {src, mr * rs * elem_bytes, rs, cs};
  pack_a(isa, SourceA{src, src_elem, rs, cs}, rows, kl, mr, pair, ws.a_pack.get());
  return {ws.a_pack.get(), 4 * int64_t(mr) * packed_k(kl, pair), 1, mr};
}

OperandView GemmDriver::Impl::view_b(ThreadSpace& ws, int64_t c0, int64_t k0, int cols, int kl,
                                     int64_t slot) {
  const int64_t ks = b_row ? g.n : 1, ns = b_row ? 1 : g.k;
  const char* src = b + (k0 * ks + c0 * ns) * elem_bytes;
  const int nr = cfg.warp_tile_n;
  if (!packs_b) return {src, nr * ns * elem_bytes, ks, ns};
  char* panel = ws.b_pack.get() + slot * 4 * g.sub_n * packed_k(g.ks, pair);
  if (!ws.b_ready[slot]) {
    pack_b(isa, SourceB{src, src_elem, ks, ns}, kl, cols, nr, pair, panel);
    ws.b_ready[slot] = 1;
  }
  return {panel, 4 * int64_t(nr) * packed_k(kl, pair), nr, 1};
}

// The register tiles of one K slice, in the scheduler's order. Without padding the tile counts
// divide exactly, so the edge test is compiled out.
template <bool kEdgeM, bool kEdgeN>
void GemmDriver::Impl::walk(const OperandView& av, const OperandView& bv, int rows, int cols,
                            int kl, float* target, int64_t ldt, bool first) {
  const int mr = cfg.warp_tile_m, nr = cfg.warp_tile_n;
  MicroArgs args{nullptr, av.s0, av.s1, nullptr, bv.s0, bv.s1,           nullptr, ldt,
                 kl,      mr,    nr,    mr,      nr,    cfg.warp_tile_k, !first};
  const int pm = (rows + mr - 1) / mr, pn = (cols + nr - 1) / nr;
  auto call = [&](int ir, int jr) {
    args.a = av.base + ir * av.panel_bytes;
    args.b = bv.base + jr * bv.panel_bytes;
    args.c = target + ir * mr * ldt + jr * nr;
    if constexpr (kEdgeM || kEdgeN) {
      args.mv = kEdgeM ? std::min(mr, rows - ir * mr) : mr;
      args.nv = kEdgeN ? std::min(nr, cols - jr * nr) : nr;
      if (args.mv < mr || args.nv < nr) return edge(args);
    }
    full(args);
  };
  // compv4 prefetches the panel the inner loop reads next (A for intrawave, B for interwave).
  auto prefetch = [&](const OperandView& v, int next) {
    if (!packs_a) return;
    const char* p = v.base + next * v.panel_bytes;
    for (int line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line, 0, 3);
  };
  if (cfg.scheduler == gemm::Scheduler::kIntrawave) {
    for (int jr = 0; jr < pn; ++jr)
      for (int ir = 0; ir < pm; ++ir) {
        prefetch(av, ir + 1 < pm ? ir + 1 : 0);
        call(ir, jr);
      }
  } else {
    for (int ir = 0; ir < pm; ++ir)
      for (int jr = 0; jr < pn; ++jr) {
        prefetch(bv, jr + 1 < pn ? jr + 1 : 0);
        call(ir, jr);
      }
  }
}

void GemmDriver::Impl::slice(ThreadSpace& ws, const Region& r, int64_t r0, int64_t c0, int64_t k0,
                             int kl, int64_t slot, float* target, int64_t ldt, bool first) {
  OperandView bv = view_b(ws, c0, k0, r.cols, kl, slot);
  OperandView av = view_a(ws, r0, k0, r.rows, kl);
  if (cfg.pad_m && cfg.pad_n)
    walk<true, true>(av, bv, r.rows, r.cols, kl, target, ldt, first);
  else if (cfg.pad_m)
    walk<true, false>(av, bv, r.rows, r.cols, kl, target, ldt, first);
  else if (cfg.pad_n)
    walk<false, true>(av, bv, r.rows, r.cols, kl, target, ldt, first);
  else
    walk<false, false>(av, bv, r.rows, r.cols, kl, target, ldt, first);
}

void GemmDriver::Impl::task(ThreadSpace& ws, int64_t id) {
  const int wm = int(id % cfg.warp_m);
  id /= cfg.warp_m;
  const int64_t bm = id % g.tiles_m;
  id /= g.tiles_m;
  const int wn = int(id % cfg.warp_n);
  id /= cfg.warp_n;
  const int64_t bn = id % g.tiles_n;
  id /= g.tiles_n;
  const int wk = int(id % cfg.warp_k);
  const int s = int(id / cfg.warp_k);

  const int64_t r0 = bm * cfg.tile_m + int64_t(wm) * g.sub_m;
  const int64_t c0 = bn * cfg.tile_n + int64_t(wn) * g.sub_n;
  if (r0 >= g.m || c0 >= g.n) return;
  const int part = s * cfg.warp_k + wk;
  float* base =
      part == 0 ? c : reinterpret_cast<float*>(work.partial.get()) + (part - 1) * g.m * g.n;
  Region r{int(std::min<int64_t>(g.sub_m, g.m - r0)), int(std::min<int64_t>(g.sub_n, g.n - c0)),
           base + r0 * g.n + c0, g.n};
  const bool shuffle = cfg.epilogue == gemm::Epilogue::kCShuffle;
  float* target = shuffle ? reinterpret_cast<float*>(ws.stage.get()) : r.out;
  const int64_t ldt = shuffle ? g.sub_n : r.ldo;
  if (packs_b) {
    CacheTag tag{work.run_id, bn, wn, part};
    if (!(ws.tag == tag)) {
      ws.tag = tag;
      std::fill(ws.b_ready.begin(), ws.b_ready.end(), 0);
    }
  }
  const int64_t kb0 = s * g.k_tiles / g.split, kb1 = (s + 1) * g.k_tiles / g.split;
  bool first = true;
  for (int64_t kb = kb0; kb < kb1; ++kb) {
    const int64_t k0 = kb * cfg.tile_k + int64_t(wk) * g.ks;
    if (k0 >= g.k) continue;
    const int kl = int(std::min<int64_t>(g.ks, g.k - k0));
    slice(ws, r, r0, c0, k0, kl, kb - kb0, target, ldt, first);
    first = false;
  }
  if (first) {  // this warp's K share is empty (K tail): its partial sum is zero
    for (int i = 0; i < r.rows; ++i) std::fill_n(r.out + i * r.ldo, r.cols, 0.0f);
  } else if (shuffle) {
    copy_tile(isa, r.out, r.ldo, target, ldt, r.rows, r.cols);
  }
}

// Adds the partial sums of split-K parts and K warps into C, rows split among threads.
void GemmDriver::Impl::reduce(int t, int nt) {
  const float* parts = reinterpret_cast<const float*>(work.partial.get());
  for (int64_t i = g.m * t / nt; i < g.m * (t + 1) / nt; ++i) {
    float* cr = c + i * g.n;
    for (int p = 1; p < g.parts; ++p) {
      const float* pr = parts + (p - 1) * g.m * g.n + i * g.n;
      for (int64_t j = 0; j < g.n; ++j) cr[j] += pr[j];
    }
  }
}

// persistent: threads take tasks from a shared counter; otherwise each thread owns a
// contiguous range (consecutive tasks share B panels, so contiguous ranges reuse them).
void GemmDriver::Impl::worker(int t, int nt, std::atomic<int64_t>& next) {
  ThreadSpace& ws = work.spaces[t];
  if (cfg.persistent) {
    for (int64_t id; (id = next.fetch_add(1, std::memory_order_relaxed)) < g.tasks;) task(ws, id);
  } else {
    for (int64_t id = g.tasks * t / nt; id < g.tasks * (t + 1) / nt; ++id) task(ws, id);
  }
}

GemmDriver::GemmDriver(const GemmConfig& config, Isa cpu)
    : impl_(std::make_unique<Impl>(config, cpu)) {}
GemmDriver::~GemmDriver() = default;
GemmDriver::GemmDriver(GemmDriver&&) noexcept = default;
GemmDriver& GemmDriver::operator=(GemmDriver&&) noexcept = default;

Isa GemmDriver::isa() const {
  return impl_->isa;
}

double GemmDriver::workspace_bytes(const GemmProblem& p, int threads) const {
  return impl_->scratch(impl_->geometry(p)).bytes(threads);
}

void GemmDriver::run(const GemmProblem& p, const void* a, const void* b, float* c, int threads) {
  Impl& x = *impl_;
  std::lock_guard lock(x.work.mutex);  // also guards x's per-run state
  x.g = x.geometry(p);
  x.reserve(threads);
  ++x.work.run_id;
  x.a = static_cast<const char*>(a);
  x.b = static_cast<const char*>(b);
  x.c = c;
  std::atomic<int64_t> next{0};
  if (threads == 1) {
    x.worker(0, 1, next);
    if (x.g.parts > 1) x.reduce(0, 1);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    x.worker(t, nt, next);
    if (x.g.parts > 1) {
#pragma omp barrier
      x.reduce(t, nt);
    }
  }
}

}  // namespace kselect::kernels
