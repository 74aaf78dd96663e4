// Every configuration of the conv `tests` rule set against the direct reference convolution,
// on shapes covering groups, depthwise, stride 2, dilation 2, asymmetric padding, 1x1, 3-D,
// N = 1 and tiny images, in all three directions and both dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "core/error.h"
#include "ops/conv/kernel.h"
#include "ops/conv/reference.h"
#include "ops/conv/rule_sets.h"
#include "ops/cpu_gemm_core/bf16.h"
#include "ops/kernel_sets.h"

namespace kselect::conv {
namespace {

const char* const k2dShapes[] = {
    "n=2,c=8,k=16,g=2,hi=7,wi=6,y=3,x=3,pad_h=1,pad_w=1",                          // groups
    "n=1,c=16,k=16,g=16,hi=6,wi=5,y=3,x=3,pad_h=1,pad_w=1",                        // depthwise
    "n=2,c=16,k=8,hi=9,wi=8,y=3,x=3,pad_h=1,pad_w=1,stride_h=2,stride_w=2",        // stride 2
    "n=1,c=8,k=24,hi=9,wi=9,y=3,x=3,pad_h=2,pad_w=2,dil_h=2,dil_w=2",              // dilation 2
    "n=1,c=8,k=16,hi=6,wi=7,y=3,x=2,pad_h=0,pad_right_h=2,pad_w=1,pad_right_w=0",  // asymmetric
    "n=2,c=16,k=24,hi=5,wi=5,y=1,x=1",                                             // 1x1
    "n=1,c=8,k=8,hi=7,wi=7,y=1,x=1,stride_h=2,stride_w=2",                         // 1x1 stride 2
    "n=1,c=8,k=8,hi=1,wi=2,y=3,x=3,pad_h=1,pad_w=1",                               // tiny image
    "n=3,c=32,k=48,hi=11,wi=12,y=3,x=3,pad_h=1,pad_w=1",  // several blocks and K steps
    // Forward reads these in place (cpu::DirectImage): a tap's channels at a time, from a padded
    // copy.
    "n=1,c=64,k=32,g=2,hi=5,wi=9,y=3,x=3,pad_h=1,pad_w=2,pad_right_w=0,stride_w=2",
    "n=1,c=16,k=16,hi=6,wi=9,y=2,x=3,pad_w=2,dil_w=2",
    // Backward data by columns (cpu::Col2Im): few channels per group, K / G of 16.
    "n=2,c=3,k=16,hi=9,wi=10,y=3,x=5,pad_h=1,pad_w=2,stride_h=2,stride_w=2",
    "n=1,c=8,k=32,g=2,hi=5,wi=6,y=3,x=3,pad_h=1,pad_w=0,pad_right_w=1",
};
const char* const k3dShapes[] = {
    "n=1,c=8,k=8,di=4,hi=5,wi=4,z=3,y=3,x=3,pad_d=1,pad_h=1,pad_w=1",
    "n=2,c=16,k=16,g=2,di=5,hi=6,wi=5,z=3,y=3,x=3,pad_d=1,pad_h=2,pad_w=0,pad_right_w=1,"
    "stride_d=2,stride_h=2,dil_h=2",
    "n=1,c=16,k=8,di=3,hi=4,wi=4,z=1,y=1,x=1",
    "n=1,c=8,k=8,g=8,di=3,hi=3,wi=3,z=3,y=3,x=3,pad_d=1,pad_h=1,pad_w=1",          // depthwise
    "n=1,c=4,k=16,di=4,hi=4,wi=5,z=3,y=3,x=3,pad_d=1,pad_h=1,pad_w=1,stride_d=2",  // columns
};

// Small integers (exact sums in fp32 and bf16), as the conv workloads fill their tensors.
std::vector<float> values(std::int64_t count, unsigned seed) {
  std::vector<float> out;
  for (std::int64_t i = 0; i < count; ++i) out.push_back(operand_value(seed, std::uint64_t(i)));
  return out;
}

// One problem's tensors as values, in the problem's dtype, and the reference result.
struct Case {
  Problem p;
  std::vector<float> x, w, y;
  std::vector<std::uint16_t> xb, wb, yb;
  std::vector<double> expected;

  explicit Case(const Problem& problem) : p(problem) {
    x = values(x_elements(p), 1), w = values(w_elements(p), 2), y = values(y_elements(p), 3);
    for (auto [from, to] : {std::pair{&x, &xb}, {&w, &wb}, {&y, &yb}})
      for (float v : *from) to->push_back(kernels::float_to_bf16(v));
    expected = reference_conv(p, x, w, y);
  }
  cpu::ConvTensors tensors(float* result) const {
    const bool bf16 = p.dtype == "bf16";
    return {bf16 ? static_cast<const void*>(xb.data()) : x.data(),
            bf16 ? static_cast<const void*>(wb.data()) : w.data(),
            bf16 ? static_cast<const void*>(yb.data()) : y.data(), result};
  }
};

// "" when the kernel computes the reference exactly (the values are small integers, so every
// sum is exact in fp32), else the first wrong element; `packed`: reading its packed weights.
std::string check(const ConvKernel& kernel, const Case& c, int threads,
                  const cpu::PackedWeights* packed = nullptr) {
  std::vector<float> result(c.expected.size(), std::numeric_limits<float>::quiet_NaN());
  kernel.run(c.p, c.tensors(result.data()), threads, packed);
  for (size_t i = 0; i < result.size(); ++i)
    if (!(result[i] == c.expected[i]))
      return std::string(packed ? "packed weights: " : "") + "element " + std::to_string(i) +
             " is " + std::to_string(result[i]) + ", expected " + std::to_string(c.expected[i]);
  return "";
}

TEST(ConvKernelRuleSets, EveryTestsConfigMatchesTheReference) {
  std::map<std::string, std::vector<Case>> cases;  // by direction/dtype/ndim
  for (const char* dir : {"fwd", "bwd_data", "bwd_weight"})
    for (const char* dtype : {"fp32", "bf16"})
      for (int ndim : {2, 3})
        for (const char* shape :
             ndim == 2 ? std::vector<const char*>(std::begin(k2dShapes), std::end(k2dShapes))
                       : std::vector<const char*>(std::begin(k3dShapes), std::end(k3dShapes))) {
          std::string text = std::string(shape) + ",dir=" + dir + ",dtype=" + dtype +
                             ",layout=" + (ndim == 3 ? "ndhwgc" : "nhwgc");
          cases[std::string(dir) + dtype + std::to_string(ndim)].emplace_back(
              parse_native_problem(text));
        }
  int runs = 0;
  for (const ConvConfig& config : rule_set("tests")) {
    ConvKernel kernel(config);
    int supported = 0;
    const auto& group =
        cases[std::string(ck_direction(config.dir)) + config.dtype + std::to_string(config.ndim)];
    for (size_t i = 0; i < group.size(); ++i) {
      const Case& c = group[i];
      if (!kernel.unsupported_reason(c.p).empty()) continue;
      ++supported;
      // Alternate one and two threads: both the serial path and the parallel one with its
      // barrier before the K-split reduction.
      ASSERT_EQ(check(kernel, c, 1 + int(i % 2)), "")
          << config.name() << " on " << native_text(c.p);
      // The same run reading the weights packed once (forward, backward data).
      const auto packed = kernel.pack_weights(c.p, c.tensors(nullptr).w);
      ASSERT_EQ(packed == nullptr, config.dir == Direction::kBackwardWeight) << config.name();
      if (packed)
        ASSERT_EQ(check(kernel, c, 2 - int(i % 2), packed.get()), "")
            << config.name() << " on " << native_text(c.p);
      ++runs;
    }
    EXPECT_GE(supported, 1) << config.name() << " ran on no test shape";
  }
  EXPECT_GE(runs, 600);
}

// Backward weight over more output pixels than a column block of B keeps in cache: the driver
// walks every tile one K slice at a time (K outermost), accumulating onto the earlier slices.
TEST(ConvKernelRuleSets, DeepBackwardWeightMatchesTheReference) {
  std::vector<Case> cases;
  for (const char* shape : {"n=2,c=16,k=16,hi=72,wi=72,y=1,x=1",
                            "n=1,c=8,k=16,g=2,hi=100,wi=100,y=3,x=3,pad_h=1,pad_w=1"})
    for (const char* dtype : {"fp32", "bf16"})
      cases.emplace_back(parse_native_problem(std::string(shape) +
                                              ",dir=bwd_weight,dtype=" + dtype + ",layout=nhwgc"));
  int runs = 0;
  for (const ConvConfig& config : rule_set("tests")) {
    if (config.dir != Direction::kBackwardWeight || config.ndim != 2) continue;
    ConvKernel kernel(config);
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      if (c.p.dtype != config.dtype || !kernel.unsupported_reason(c.p).empty()) continue;
      ASSERT_EQ(check(kernel, c, 1 + int(i % 2)), "")
          << config.name() << " on " << native_text(c.p);
      ++runs;
    }
  }
  EXPECT_GE(runs, 20);
}

TEST(ConvKernelRuleSets, UnsupportedProblemsSayWhy) {
  ConvConfig c;  // forward fp32 2-D
  c.vec_a = 8;
  ConvKernel kernel(c);
  auto problem = [](const std::string& text) { return parse_native_problem(text); };
  EXPECT_EQ(kernel.unsupported_reason(problem("n=1,c=8,k=8,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=fp32")),
            "");
  EXPECT_NE(kernel
                .unsupported_reason(problem("n=1,c=8,k=8,hi=4,wi=4,y=3,x=3,dir=bwd_data,"
                                            "dtype=fp32"))
                .find("direction mismatch"),
            std::string::npos);
  EXPECT_NE(kernel.unsupported_reason(problem("n=1,c=8,k=8,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=bf16"))
                .find("dtype mismatch"),
            std::string::npos);
  EXPECT_NE(
      kernel.unsupported_reason(problem("n=1,c=8,k=8,di=2,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=fp32"))
          .find("layout mismatch"),
      std::string::npos);
  EXPECT_EQ(kernel.unsupported_reason(problem("n=1,c=12,k=8,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=fp32")),
            "C/G=12 is not a multiple of vec_a=8");
  c.specialization = Specialization::kFilter1x1Pad0;
  EXPECT_NE(ConvKernel(c)
                .unsupported_reason(problem("n=1,c=8,k=8,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=fp32"))
                .find("1x1 filter"),
            std::string::npos);
  std::vector<float> x(16 * 12), w(8 * 9 * 12), y(8 * 4 * 4);
  EXPECT_THROW(kernel.run(problem("n=1,c=12,k=8,hi=4,wi=4,y=3,x=3,dir=fwd,dtype=fp32"),
                          {x.data(), w.data(), nullptr, y.data()}, 1),
               InputError);
}

// Packed weights serve every kernel of the same weight layout, and only the problem and the
// weight tensor they were packed from.
TEST(ConvKernelRuleSets, PackedWeightsAreSharedByLayoutAndRefusedElsewhere) {
  const Case c(
      parse_native_problem("n=2,c=16,k=24,hi=6,wi=5,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32"));
  ConvConfig first;  // forward fp32 2-D
  ConvConfig other_schedule = first;
  other_schedule.scheduler = Scheduler::kInterwave;
  other_schedule.tile_m = 2 * first.tile_m;
  ConvConfig other_layout = first;
  other_layout.tile_k = first.tile_k / 2;
  const ConvKernel a(first), b(other_schedule), d(other_layout);
  EXPECT_EQ(a.weight_layout(), b.weight_layout());
  EXPECT_NE(a.weight_layout(), d.weight_layout());
  const auto packed = a.pack_weights(c.p, c.w.data());
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(check(b, c, 1, packed.get()), "");
  std::vector<float> result(c.expected.size());
  auto message = [&](const ConvKernel& k, const Problem& p, const cpu::ConvTensors& t) {
    try {
      k.run(p, t, 1, packed.get());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(d, c.p, c.tensors(result.data())).find("another kernel layout"),
            std::string::npos);
  std::vector<float> copy = c.w;
  cpu::ConvTensors elsewhere = c.tensors(result.data());
  elsewhere.w = copy.data();
  EXPECT_NE(message(a, c.p, elsewhere).find("another weight tensor"), std::string::npos);
  const Case wider(
      parse_native_problem("n=2,c=16,k=24,hi=7,wi=5,y=3,x=3,pad_h=1,pad_w=1,dir=fwd,dtype=fp32"));
  EXPECT_NE(message(a, wider.p, c.tensors(result.data())).find("another problem"),
            std::string::npos);
  ConvConfig weight_gradient = first;
  weight_gradient.dir = Direction::kBackwardWeight;
  EXPECT_EQ(ConvKernel(weight_gradient).weight_layout(), "");
  // Backward data by rows (compv3) runs few channels per group by columns, with the column
  // product's packed weights: a compv4 kernel, which packs y's gradient, reads other panels.
  ConvConfig rows = first;
  rows.dir = Direction::kBackwardData;
  ConvConfig packed_rows = rows;
  packed_rows.pipeline = Pipeline::kCompV4;
  EXPECT_NE(ConvKernel(rows).weight_layout(), ConvKernel(packed_rows).weight_layout());
  const Case few_channels(parse_native_problem(
      "n=2,c=3,k=16,hi=9,wi=10,y=3,x=5,pad_h=1,pad_w=2,stride_h=2,stride_w=2,dir=bwd_data,"
      "dtype=fp32"));
  const ConvKernel by_columns(rows);
  ASSERT_EQ(by_columns.unsupported_reason(few_channels.p), "");
  const auto columns = by_columns.pack_weights(few_channels.p, few_channels.w.data());
  EXPECT_EQ(check(by_columns, few_channels, 2, columns.get()), "");
}

TEST(ConvKernelRuleSets, ConfigurationsThatCannotBeBuiltSayWhy) {
  ConvConfig c;
  c.tile_m = 64;  // not a whole number of 6-row register tiles
  EXPECT_THROW(ConvKernel{c}, InputError);
  c = ConvConfig{};
  c.two_stage = true;  // forward
  EXPECT_THROW(ConvKernel{c}, InputError);
  c = ConvConfig{};
  c.vec_c = 8;  // without the cshuffle epilogue
  EXPECT_THROW(ConvKernel{c}, InputError);
  c = ConvConfig{};
  c.warp_tile_n = 24;  // no such micro-kernel
  c.tile_n = 48;
  EXPECT_THROW(ConvKernel{c}, InputError);
}

}  // namespace
}  // namespace kselect::conv
