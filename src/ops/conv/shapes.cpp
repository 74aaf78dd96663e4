#include "ops/conv/shapes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/text.h"
#include "ops/kernel_sets.h"

namespace kselect::conv {

namespace {

using std::int64_t;

// A counter through SplitMix64's finaliser: the same sequence on every platform and standard
// library, unlike std::uniform_int_distribution.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(splitmix(seed ^ 0xC0417E5ull)) {}
  std::uint64_t next() { return splitmix(++state_); }
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + int64_t(next() % std::uint64_t(hi - lo + 1));
  }
  int64_t log_uniform(int64_t lo, int64_t hi) {
    double u = double(next() >> 11) * 0x1.0p-53;
    double value =
        std::exp(std::log(double(lo)) + u * (std::log(double(hi) + 1) - std::log(double(lo))));
    return std::clamp(int64_t(value), lo, hi);
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[next() % items.size()];
  }

 private:
  std::uint64_t state_;
};

// A draw gives up after this many attempts in a row without a new problem (the budget, the
// dimensions or a small family like edge's can leave fewer than `count`).
constexpr int kAttemptsPerShape = 2000;

// A 2-D layer (square image and filter, symmetric padding) without batch, direction or dtype.
Problem conv2d(int64_t c, int64_t k, int64_t size, int64_t filter, int64_t stride, int64_t pad,
               int64_t g = 1) {
  Problem p;
  p.c = c, p.k = k, p.g = g;
  p.hi = p.wi = size;
  p.y = p.x = filter;
  p.stride = {1, stride, stride};
  p.pad = {0, pad, pad};
  p.layout = std::string(kLayout2d);
  return p;
}

// A 3-D layer (cubic image and filter, symmetric padding).
Problem conv3d(int64_t c, int64_t k, int64_t size, int64_t filter, int64_t stride, int64_t pad) {
  Problem p;
  p.c = c, p.k = k;
  p.di = p.hi = p.wi = size;
  p.z = p.y = p.x = filter;
  p.stride = {stride, stride, stride};
  p.pad = {pad, pad, pad};
  p.layout = std::string(kLayout3d);
  return p;
}

bool is_3d(const Problem& p) {
  return p.layout == kLayout3d;
}

// Right pads equal to the left ones as -1 (how the canonical text leaves them out), the output
// sizes computed; false when the problem is impossible.
bool finish(Problem& p) {
  for (int i = 0; i < 3; ++i)
    if (p.pad_right[i] == p.pad[i]) p.pad_right[i] = -1;
  p.compute_output();
  return p.invalid_reason().empty();
}

bool fits(const Problem& p, double max_gflop) {
  return p.flops() <= max_gflop * 1e9;
}

// Shrinks a network layer into the budget: halves the batch down to 1 first (the layer's
// geometry is what a network family is for), then every spatial size of the image (not below
// the dilated filter), and gives up (nullopt: the layer is dropped) when neither can shrink.
std::optional<Problem> fit_budget(Problem p, double max_gflop) {
  if (!finish(p)) return std::nullopt;
  while (!fits(p, max_gflop)) {
    if (p.n > 1) {
      p.n /= 2;
      continue;
    }
    auto halve = [](int64_t& size, int64_t filter, int64_t dil) {
      const int64_t floor = (filter - 1) * dil + 1, smaller = std::max(size / 2, floor);
      const bool changed = smaller < size;
      size = std::min(size, smaller);
      return changed;
    };
    bool changed = halve(p.hi, p.y, p.dil[1]);
    changed = halve(p.wi, p.x, p.dil[2]) || changed;
    if (is_3d(p)) changed = halve(p.di, p.z, p.dil[0]) || changed;
    if (!changed || !finish(p)) return std::nullopt;
  }
  return p;
}

// The identity of a problem before its dtype is assigned.
std::string key_of(const Problem& p) {
  Problem keyed = p;
  keyed.dtype = "fp32";
  return native_text(keyed);
}

bool wanted_dims(const ShapeOptions& o, const Problem& p) {
  const int dims = is_3d(p) ? 3 : 2;
  return std::find(o.spatial_dims.begin(), o.spatial_dims.end(), dims) != o.spatial_dims.end();
}

// ---- Networks: their distinct conv layers, in network order. ----

// torchvision's ResNet-50 (v1.5: the stride on the 3x3) at 224x224.
std::vector<Problem> resnet50_layers() {
  std::vector<Problem> layers = {conv2d(3, 64, 224, 7, 2, 3)};  // stem, then a 3x3/2 max pool
  struct Stage {
    int64_t width, size, first_stride;  // bottleneck width, input size of the stage
  };
  int64_t in = 64;
  for (const Stage& s :
       {Stage{64, 56, 1}, Stage{128, 56, 2}, Stage{256, 28, 2}, Stage{512, 14, 2}}) {
    const int64_t out = 4 * s.width, size = s.size / s.first_stride;
    layers.push_back(conv2d(in, s.width, s.size, 1, 1, 0));                    // first reduce
    layers.push_back(conv2d(s.width, s.width, s.size, 3, s.first_stride, 1));  // first 3x3
    layers.push_back(conv2d(s.width, out, size, 1, 1, 0));                     // expand
    layers.push_back(conv2d(in, out, s.size, 1, s.first_stride, 0));           // downsample
    layers.push_back(conv2d(out, s.width, size, 1, 1, 0));                     // later reduce
    layers.push_back(conv2d(s.width, s.width, size, 3, 1, 1));                 // later 3x3
    in = out;
  }
  return layers;
}

// VGG-16's 13 3x3 convolutions (the repeated ones once).
std::vector<Problem> vgg16_layers() {
  std::vector<Problem> layers;
  int64_t in = 3, size = 224;
  for (auto [width, repeats] :
       {std::pair<int64_t, int>{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}}) {
    for (int i = 0; i < repeats; ++i, in = width)
      layers.push_back(conv2d(in, width, size, 3, 1, 1));
    size /= 2;  // 2x2 max pool
  }
  return layers;
}

// MobileNetV2 (width 1.0, 224x224): the 3x3/2 stem, per inverted residual block a 1x1 expand
// (ratio t), a depthwise 3x3 (G = C = K, the block's stride on its first repeat) and a 1x1
// project, and the final 1x1 to 1280 channels.
std::vector<Problem> mobilenetv2_layers() {
  std::vector<Problem> layers = {conv2d(3, 32, 224, 3, 2, 1)};
  struct Block {
    int64_t expand, width;
    int repeats;
    int64_t stride;
  };
  int64_t in = 32, size = 112;
  for (const Block& b :
       {Block{1, 16, 1, 1}, Block{6, 24, 2, 2}, Block{6, 32, 3, 2}, Block{6, 64, 4, 2},
        Block{6, 96, 3, 1}, Block{6, 160, 3, 2}, Block{6, 320, 1, 1}}) {
    for (int i = 0; i < b.repeats; ++i) {
      const int64_t stride = i == 0 ? b.stride : 1, hidden = in * b.expand;
      if (b.expand != 1) layers.push_back(conv2d(in, hidden, size, 1, 1, 0));
      layers.push_back(conv2d(hidden, hidden, size, 3, stride, 1, hidden));
      size /= stride;
      layers.push_back(conv2d(hidden, b.width, size, 1, 1, 0));
      in = b.width;
    }
  }
  layers.push_back(conv2d(320, 1280, 7, 1, 1, 0));
  return layers;
}

// A small 3-D U-Net on a 64^3 one-channel volume: two 3x3x3 convs per level (16, 32, 64, 128
// features at 64^3 .. 8^3, max pooling between), on the way up two 3x3x3 convs per level over
// the upsampled features concatenated with the skip connection's, and a final 1x1x1 to 3
// classes.
std::vector<Problem> unet3d_layers() {
  std::vector<Problem> layers;
  const std::vector<int64_t> features = {16, 32, 64, 128};
  int64_t in = 1, size = 64;
  for (int64_t f : features) {
    layers.push_back(conv3d(in, f, size, 3, 1, 1));
    layers.push_back(conv3d(f, f, size, 3, 1, 1));
    in = f, size /= 2;
  }
  size = 8;
  for (size_t level = features.size() - 1; level > 0; --level) {
    const int64_t f = features[level - 1];
    size *= 2;
    layers.push_back(conv3d(features[level] + f, f, size, 3, 1, 1));
    layers.push_back(conv3d(f, f, size, 3, 1, 1));
  }
  layers.push_back(conv3d(features[0], 3, 64, 1, 1, 0));
  return layers;
}

// Every layer x batch x direction, fitted to the budget, wanted and distinct.
std::vector<Problem> network_pool(const std::vector<Problem>& layers, const ShapeOptions& o) {
  std::vector<Problem> pool;
  std::set<std::string> seen;
  for (const Problem& layer : layers)
    for (int64_t n : {1, 8, 32})
      for (Direction dir : o.directions) {
        Problem p = layer;
        p.n = n, p.dir = dir;
        std::optional<Problem> fitted = fit_budget(p, o.max_gflop);
        if (fitted && wanted_dims(o, *fitted) && seen.insert(key_of(*fitted)).second)
          pool.push_back(*fitted);
      }
  return pool;
}

// Picks `count` of `pool` with a seeded shuffle, keeping the pool's order.
std::vector<Problem> choose(std::vector<Problem> pool, const ShapeOptions& o) {
  if (int(pool.size()) <= o.count) return pool;
  std::vector<size_t> index(pool.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  Rng rng(o.seed);
  for (size_t i = index.size() - 1; i > 0; --i) std::swap(index[i], index[rng.next() % (i + 1)]);
  index.resize(size_t(o.count));
  std::sort(index.begin(), index.end());
  std::vector<Problem> out;
  for (size_t i : index) out.push_back(pool[i]);
  return out;
}

// ---- CK-like categories, drawn from the seed. ----

// Draws until `count` valid, wanted, distinct problems within budget (or draws stop finding
// new ones).
std::vector<Problem> draw(const ShapeOptions& o, const std::function<Problem(Rng&, int)>& make) {
  Rng rng(o.seed);
  std::vector<Problem> out;
  std::set<std::string> seen;
  for (int failures = 0; int(out.size()) < o.count && failures < kAttemptsPerShape;) {
    Problem p = make(rng, int(out.size()));
    if (finish(p) && fits(p, o.max_gflop) && wanted_dims(o, p) && seen.insert(key_of(p)).second) {
      out.push_back(p);
      failures = 0;
    } else {
      ++failures;
    }
  }
  return out;
}

// Channel counts that are not multiples of 8 (no vector width divides them).
const std::vector<int64_t>& odd_channels() {
  static const std::vector<int64_t> c = {1, 3, 5, 7, 9, 12, 15, 17, 20, 31, 33, 63, 65};
  return c;
}

// Edge cases, in turn: tiny images (1..7), channels off multiples of 8, odd and non-square
// filters, asymmetric padding, dilation 2, tiny 3-D volumes, odd group counts; batch 1.
Problem edge_problem(Rng& rng, int index, const ShapeOptions& o) {
  auto channels = [&] { return rng.pick(odd_channels()); };
  Problem p;
  switch (index % 7) {
    case 0: {  // tiny image
      const int64_t f = rng.pick<int64_t>({1, 3});
      p = conv2d(channels(), channels(), 1, f, 1, f / 2);
      p.hi = rng.uniform(1, 7), p.wi = rng.uniform(1, 7);
      break;
    }
    case 1:  // channels not multiples of 8, one of them a multiple
      p = conv2d(channels(), rng.pick<int64_t>({8, 16, 32, 64}), rng.uniform(7, 32), 3, 1, 1);
      if (rng.next() % 2) std::swap(p.c, p.k);
      break;
    case 2: {  // odd and non-square filters, "same" padding
      p = conv2d(channels(), channels(), rng.uniform(8, 32), 1, rng.uniform(1, 2), 0);
      const auto [y, x] =
          rng.pick<std::pair<int64_t, int64_t>>({{5, 5}, {7, 7}, {1, 7}, {7, 1}, {3, 1}, {1, 3}});
      p.y = y, p.x = x, p.pad = {0, y / 2, x / 2};
      break;
    }
    case 3: {  // asymmetric padding (TensorFlow's "same" at stride 2 pads the far side only)
      p = conv2d(channels(), channels(), rng.uniform(5, 20), rng.pick<int64_t>({2, 3, 4}),
                 rng.uniform(1, 2), 0);
      const auto [left, right] =
          rng.pick<std::pair<int64_t, int64_t>>({{0, 1}, {1, 0}, {1, 2}, {2, 1}});
      p.pad = {0, left, rng.uniform(0, 1)};
      p.pad_right = {-1, right, rng.uniform(0, 2)};
      break;
    }
    case 4:  // dilation 2
      p = conv2d(channels(), channels(), rng.uniform(5, 32), 3, rng.uniform(1, 2),
                 rng.pick<int64_t>({0, 2}));
      p.dil = {1, 2, 2};
      break;
    case 5: {  // tiny 3-D volume
      const int64_t f = rng.pick<int64_t>({1, 3});
      p = conv3d(channels(), channels(), 1, f, 1, f / 2);
      p.di = rng.uniform(1, 7), p.hi = rng.uniform(1, 7), p.wi = rng.uniform(1, 7);
      break;
    }
    default: {  // odd group counts
      const int64_t g = rng.pick<int64_t>({3, 5});
      p = conv2d(g * rng.uniform(1, 7), g * rng.uniform(1, 7), rng.uniform(3, 14), 3, 1, 1, g);
      break;
    }
  }
  p.n = 1;
  p.dir = rng.pick(o.directions);
  return p;
}

// Anything valid: 2-D (3 in 4) or 3-D, batch 1..64, groups 1..8 or depthwise, 1..256 channels
// per group, images 1..128 (3-D 1..32), filters 1..7 (3-D 1..3), strides and dilations 1..2,
// paddings up to half the dilated filter (asymmetric 1 in 4).
Problem random_problem(Rng& rng, const ShapeOptions& o) {
  const bool three_d = rng.next() % 4 == 0;
  Problem p = three_d ? conv3d(1, 1, 1, 1, 1, 0) : conv2d(1, 1, 1, 1, 1, 0);
  p.n = rng.log_uniform(1, 64);
  const int64_t groups = rng.pick<int64_t>({1, 1, 1, 1, 2, 4, 8, 0});
  if (groups == 0) {  // depthwise
    p.g = p.c = p.k = rng.log_uniform(1, 512);
  } else {
    p.g = groups;
    p.c = groups * rng.log_uniform(1, 256), p.k = groups * rng.log_uniform(1, 256);
  }
  const int first = three_d ? 0 : 1;
  const int64_t stride = rng.uniform(1, 2), dil = rng.pick<int64_t>({1, 1, 1, 2});
  for (int axis = first; axis < 3; ++axis) {
    int64_t& in = axis == 0 ? p.di : axis == 1 ? p.hi : p.wi;
    int64_t& f = axis == 0 ? p.z : axis == 1 ? p.y : p.x;
    in = rng.log_uniform(1, three_d ? 32 : 128);
    f = three_d ? rng.pick<int64_t>({1, 3}) : rng.pick<int64_t>({1, 3, 5, 7});
    p.stride[axis] = stride, p.dil[axis] = dil;
    const int64_t half = (f - 1) * dil / 2;
    p.pad[axis] = rng.uniform(0, half);
    if (rng.next() % 4 == 0) p.pad_right[axis] = rng.uniform(0, half);
  }
  p.dir = rng.pick(o.directions);
  return p;
}

// CK's backward test sets: small (7..14), medium (28..56) and large (112..224) images in turn
// (3-D 1 in 5: 4..8, 12..24, 28..48), batch 1..128, and one of asymmetric channels (4x more
// or fewer outputs), G in {2, 4, 8}, depthwise 3x3, stride-2 downsampling, or a plain 3x3.
Problem backward_problem(Rng& rng, int index, const std::vector<Direction>& backward) {
  const bool three_d = rng.next() % 5 == 0;
  static const std::vector<std::pair<int64_t, int64_t>> sizes2d = {{7, 14}, {28, 56}, {112, 224}},
                                                        sizes3d = {{4, 8}, {12, 24}, {28, 48}};
  const auto [lo, hi] = (three_d ? sizes3d : sizes2d)[size_t(index % 3)];
  const int64_t size = rng.uniform(lo, hi);
  auto layer = [&](int64_t c, int64_t k, int64_t f, int64_t stride) {
    return three_d ? conv3d(c, k, size, f, stride, f / 2) : conv2d(c, k, size, f, stride, f / 2);
  };
  const int64_t c = rng.pick<int64_t>({16, 32, 64, 128, 256});
  Problem p;
  switch (rng.uniform(0, 4)) {
    case 0:  // asymmetric channels
      p = layer(c, rng.next() % 2 ? c * 4 : std::max<int64_t>(4, c / 4), rng.pick<int64_t>({1, 3}),
                1);
      break;
    case 1: {  // grouped
      const int64_t g = rng.pick<int64_t>({2, 4, 8});
      p = layer(g * rng.pick<int64_t>({4, 8, 16, 32, 64}),
                g * rng.pick<int64_t>({4, 8, 16, 32, 64}), 3, 1);
      p.g = g;
      break;
    }
    case 2: {  // depthwise
      const int64_t width = rng.pick<int64_t>({32, 64, 96, 144, 192, 384});
      p = layer(width, width, 3, rng.uniform(1, 2));
      p.g = width;
      break;
    }
    case 3:  // stride-2 downsampling
      p = layer(c, 2 * c, rng.pick<int64_t>({1, 3}), 2);
      break;
    default:
      p = layer(rng.log_uniform(3, 512), rng.log_uniform(3, 512), 3, 1);
      break;
  }
  p.n = rng.pick<int64_t>({1, 2, 4, 8, 16, 32, 64, 128});
  p.dir = rng.pick(backward);
  return p;
}

std::vector<Problem> family_problems(const ShapeOptions& o) {
  if (o.family == "resnet50") return choose(network_pool(resnet50_layers(), o), o);
  if (o.family == "vgg16") return choose(network_pool(vgg16_layers(), o), o);
  if (o.family == "mobilenetv2") return choose(network_pool(mobilenetv2_layers(), o), o);
  if (o.family == "unet3d") return choose(network_pool(unet3d_layers(), o), o);
  if (o.family == "edge")
    return draw(o, [&](Rng& rng, int index) { return edge_problem(rng, index, o); });
  if (o.family == "random") return draw(o, [&](Rng& rng, int) { return random_problem(rng, o); });
  if (o.family == "backward") {
    std::vector<Direction> backward;
    for (Direction d : o.directions)
      if (d != Direction::kForward) backward.push_back(d);
    if (backward.empty())
      throw InputError("", 0, "dir", "the backward family needs bwd_data or bwd_weight");
    return draw(o, [&](Rng& rng, int index) { return backward_problem(rng, index, backward); });
  }
  throw InputError(
      "", 0, "family",
      "unknown conv shape family '" + o.family + "' (known: " + join(shape_families()) + ")");
}

}  // namespace

std::vector<std::string> shape_families() {
  return {"resnet50", "vgg16", "mobilenetv2", "unet3d", "edge", "random", "backward"};
}

std::vector<Problem> generate_shapes(const ShapeOptions& o) {
  if (o.count < 1) throw InputError("", 0, "count", "must be >= 1");
  if (!(o.max_gflop > 0)) throw InputError("", 0, "max-gflop", "must be > 0");
  if (o.dtypes.empty()) throw InputError("", 0, "dtype", "at least one dtype is needed");
  for (const auto& dtype : o.dtypes)
    if (dtype != "fp32" && dtype != "bf16")
      throw InputError("", 0, "dtype", "'" + dtype + "' is not fp32 or bf16");
  if (o.directions.empty()) throw InputError("", 0, "dir", "at least one direction is needed");
  std::vector<Problem> out = family_problems(o);
  if (out.empty())
    throw InputError("", 0, "family",
                     "no " + o.family + " problem fits the options (budget, dimensions)");
  for (size_t i = 0; i < out.size(); ++i) out[i].dtype = o.dtypes[i % o.dtypes.size()];
  return out;
}

std::vector<std::string> generate_problems(const ShapeRequest& request) {
  ShapeOptions options;
  if (!request.family.empty()) options.family = request.family;
  options.count = request.count, options.seed = request.seed;
  options.max_gflop = request.max_gflop;
  if (!request.dtypes.empty()) {
    options.dtypes.clear();
    for (const auto& dtype : request.dtypes) {
      if (lower(dtype) == "all") {
        options.dtypes = {"fp32", "bf16"};
        break;
      }
      options.dtypes.push_back(lower(dtype));
    }
  }
  std::set<int> dims;
  for (const auto& layout : request.layouts) {
    const std::string name = lower(layout);
    if (name == "all" || name == "rcr")
      dims.insert({2, 3});
    else if (name == kLayout2d)
      dims.insert(2);
    else if (name == kLayout3d)
      dims.insert(3);
    else
      throw InputError("", 0, "layout",
                       "'" + layout + "' is not " + std::string(kLayout2d) + ", " +
                           std::string(kLayout3d) + " or all");
  }
  if (!dims.empty()) options.spatial_dims.assign(dims.begin(), dims.end());
  std::vector<std::string> problems;
  for (const Problem& p : generate_shapes(options)) problems.push_back(native_text(p));
  return problems;
}

}  // namespace kselect::conv
