#include "ops/gemm/shapes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "core/error.h"
#include "core/text.h"

namespace kselect::gemm {

namespace {

using Dims = std::array<std::int64_t, 3>;  // m, n, k

// splitmix64: the same sequence on every platform and standard library, unlike
// std::uniform_int_distribution.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + std::int64_t(next() % std::uint64_t(hi - lo + 1));
  }
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) {
    double u = double(next() >> 11) * 0x1.0p-53;
    double value =
        std::exp(std::log(double(lo)) + u * (std::log(double(hi) + 1) - std::log(double(lo))));
    return std::clamp(std::int64_t(value), lo, hi);
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[next() % items.size()];
  }

 private:
  std::uint64_t state_;
};

double gflop(const Dims& d) {
  return 2.0 * double(d[0]) * double(d[1]) * double(d[2]) / 1e9;
}

constexpr int kMaxDim = 8192;
constexpr int kAttemptsPerShape = 2000;

// Draws until `count` distinct shapes within budget are found (or attempts run out).
std::vector<Dims> draw(const ShapeOptions& o, const std::function<Dims(Rng&, int)>& make) {
  Rng rng(o.seed);
  std::vector<Dims> out;
  std::set<Dims> seen;
  for (int attempt = 0; int(out.size()) < o.count && attempt < o.count * kAttemptsPerShape;
       ++attempt) {
    Dims d = make(rng, int(out.size()));
    if (gflop(d) <= o.max_gflop && seen.insert(d).second) out.push_back(d);
  }
  return out;
}

// Picks `count` of `pool` with a seeded shuffle, keeping the pool's order.
std::vector<Dims> choose(std::vector<Dims> pool, const ShapeOptions& o) {
  std::vector<Dims> fitting;
  std::set<Dims> seen;
  for (const Dims& d : pool)
    if (gflop(d) <= o.max_gflop && seen.insert(d).second) fitting.push_back(d);
  if (int(fitting.size()) <= o.count) return fitting;
  std::vector<size_t> index(fitting.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  Rng rng(o.seed);
  for (size_t i = index.size() - 1; i > 0; --i) std::swap(index[i], index[rng.next() % (i + 1)]);
  index.resize(size_t(o.count));
  std::sort(index.begin(), index.end());
  std::vector<Dims> out;
  for (size_t i : index) out.push_back(fitting[i]);
  return out;
}

const std::vector<std::int64_t>& primes() {
  static const std::vector<std::int64_t> p = {3, 7, 13, 31, 61, 127, 251, 509, 1021, 2039};
  return p;
}

std::vector<std::int64_t> edge_dims() {
  std::vector<std::int64_t> dims = {1, 2, 3};
  for (std::int64_t p = 8; p <= 2048; p *= 2) dims.insert(dims.end(), {p - 1, p, p + 1});
  dims.insert(dims.end(), primes().begin(), primes().end());
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

// The categories of CK's wide-coverage set, drawn in turn.
Dims wide_shape(Rng& rng, int index) {
  auto any = [&] { return rng.log_uniform(1, kMaxDim); };
  auto big = [&] { return rng.log_uniform(64, kMaxDim); };
  switch (index % 8) {
    case 0:
      return {1, big(), big()};  // M = 1 (decode)
    case 1:
      return {rng.uniform(2, 16), big(), big()};  // tiny M
    case 2:
      return {big(), rng.uniform(1, 16), big()};  // skinny N
    case 3: {                                     // tall
      std::int64_t n = rng.log_uniform(8, 256);
      return {std::min<std::int64_t>(kMaxDim, n * rng.uniform(8, 64)), n, any()};
    }
    case 4: {  // deep K
      std::int64_t m = rng.log_uniform(8, 256), n = rng.log_uniform(8, 256);
      return {m, n, std::min<std::int64_t>(kMaxDim * 2, std::max(m, n) * rng.uniform(8, 64))};
    }
    case 5:
      return {big(), big(), rng.uniform(1, 32)};  // shallow K
    case 6:
      return {rng.pick(primes()), rng.pick(primes()), rng.pick(primes())};
    default:
      return {any(), any(), any()};
  }
}

std::vector<Dims> llm_pool() {
  std::vector<Dims> pool;
  for (std::int64_t hidden : {2048, 4096}) {
    // MLP widths: the classic 4x and LLaMA's 8/3x rounded up to a multiple of 256.
    for (std::int64_t ffn : {4 * hidden, (hidden * 8 / 3 + 255) / 256 * 256}) {
      std::vector<std::pair<std::int64_t, std::int64_t>> layers = {
          {3 * hidden, hidden}, {hidden, hidden}, {ffn, hidden}, {hidden, ffn}};
      for (std::int64_t tokens = 1; tokens <= 512; tokens *= 2)
        for (auto [n, k] : layers) pool.push_back({tokens, n, k});
    }
  }
  return pool;
}

// Halves N and K (the layer, not the token count) until the shape fits the budget.
Dims scale_to_budget(Dims d, double max_gflop) {
  while (gflop(d) > max_gflop && (d[1] > 16 || d[2] > 16)) {
    d[1] = std::max<std::int64_t>(16, d[1] / 2);
    d[2] = std::max<std::int64_t>(16, d[2] / 2);
  }
  return d;
}

std::vector<Dims> family_dims(const ShapeOptions& o) {
  if (o.family == "wide") return draw(o, wide_shape);
  if (o.family == "random")
    return draw(o, [](Rng& rng, int) {
      return Dims{rng.log_uniform(1, 4096), rng.log_uniform(1, 4096), rng.log_uniform(1, 4096)};
    });
  if (o.family == "shallow")  // K <= 16 under a large C: writing C, not multiplying, decides
    return draw(o, [](Rng& rng, int) {
      return Dims{rng.log_uniform(8, 3000), rng.log_uniform(8, 3000), rng.uniform(1, 16)};
    });
  if (o.family == "edge") {
    auto dims = edge_dims();
    return draw(o, [&](Rng& rng, int) {
      return Dims{rng.pick(dims), rng.pick(dims), rng.pick(dims)};
    });
  }
  if (o.family == "llm") {
    std::vector<Dims> pool;
    for (const Dims& d : llm_pool()) pool.push_back(scale_to_budget(d, o.max_gflop));
    return choose(pool, o);
  }
  if (o.family == "square") {
    std::vector<Dims> pool;
    for (std::int64_t p = 1; p <= kMaxDim; p *= 2) {
      pool.push_back({p, p, p});
      if (p >= 2) pool.push_back({p * 3 / 2, p * 3 / 2, p * 3 / 2});
    }
    std::sort(pool.begin(), pool.end());
    return choose(pool, o);
  }
  throw InputError(
      "", 0, "family",
      "unknown shape family '" + o.family + "' (known: " + join(shape_families()) + ")");
}

}  // namespace

std::vector<std::string> shape_families() {
  return {"wide", "edge", "llm", "square", "random", "shallow"};
}

std::vector<GemmProblem> generate_shapes(const ShapeOptions& o) {
  if (o.count < 1) throw InputError("", 0, "count", "must be >= 1");
  if (!(o.max_gflop > 0)) throw InputError("", 0, "max-gflop", "must be > 0");
  if (o.dtypes.empty() || o.layouts.empty())
    throw InputError("", 0, "dtype", "at least one dtype and one layout are needed");
  std::vector<GemmProblem> out;
  size_t combos = o.dtypes.size() * o.layouts.size();
  for (const Dims& d : family_dims(o)) {
    size_t combo = out.size() % combos;
    GemmProblem p;
    p.m = d[0], p.n = d[1], p.k = d[2];
    p.dtype = o.dtypes[combo % o.dtypes.size()];
    p.layout = o.layouts[combo / o.dtypes.size()];
    out.push_back(p);
  }
  return out;
}

}  // namespace kselect::gemm
