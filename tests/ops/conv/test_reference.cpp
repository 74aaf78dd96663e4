// The direct reference convolution, checked by hand on a tiny case and by the adjoint
// identities that tie the three directions together: <fwd(x, w), y> = <x, bwd_data(y, w)> =
// <w, bwd_weight(x, y)> for any x, w and y.
#include "ops/conv/reference.h"
#include "ops/kernel_sets.h"

#include <gtest/gtest.h>

namespace kselect::conv {
namespace {

// Small integers (exact sums in fp32 and bf16), as the conv workloads fill their tensors.
std::vector<float> tensor_values(std::int64_t count, unsigned seed) {
  std::vector<float> out;
  for (std::int64_t i = 0; i < count; ++i) out.push_back(operand_value(seed, std::uint64_t(i)));
  return out;
}

double dot(const std::vector<double>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

Problem with_dir(Problem p, Direction d) {
  p.dir = d;
  return p;
}

TEST(ConvReference, HandComputedForward) {
  // One channel, 3x3 input 1..9, 2x2 filter of ones, stride 1, no padding: sums of 2x2 windows.
  Problem p = parse_native_problem("n=1,c=1,k=1,hi=3,wi=3,y=2,x=2,dir=fwd,dtype=fp32");
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w{1, 1, 1, 1}, y(4);
  EXPECT_EQ(reference_conv(p, x, w, y), (std::vector<double>{12, 16, 24, 28}));
  // With padding 1 on the left only, the first output window covers 1 value of the input.
  Problem padded = parse_native_problem(
      "n=1,c=1,k=1,hi=3,wi=3,y=2,x=2,pad_h=1,pad_right_h=0,pad_w=1,pad_right_w=0,dir=fwd,"
      "dtype=fp32");
  ASSERT_EQ(padded.ho, 3);
  EXPECT_EQ(reference_conv(padded, x, w, std::vector<float>(9))[0], 1.0);
}

TEST(ConvReference, DirectionsAreAdjoint) {
  for (const char* geometry :
       {"n=2,c=6,k=4,g=2,hi=7,wi=6,y=3,x=3,pad_h=1,pad_w=2,pad_right_w=0,stride_h=2",
        "n=1,c=4,k=4,g=4,hi=9,wi=9,y=3,x=3,pad_h=2,pad_w=2,dil_h=2,dil_w=2",
        "n=1,c=3,k=5,di=4,hi=5,wi=7,z=3,y=2,x=3,pad_d=1,stride_d=2,dil_w=2,stride_w=1"}) {
    Problem fwd = parse_native_problem(std::string(geometry) + ",dir=fwd,dtype=fp32");
    const auto x = tensor_values(x_elements(fwd), 1), w = tensor_values(w_elements(fwd), 2),
               y = tensor_values(y_elements(fwd), 3);
    const double forward = dot(reference_conv(fwd, x, w, y), y);
    const double data = dot(reference_conv(with_dir(fwd, Direction::kBackwardData), x, w, y), x);
    const double weight =
        dot(reference_conv(with_dir(fwd, Direction::kBackwardWeight), x, w, y), w);
    EXPECT_NE(forward, 0.0) << geometry;
    EXPECT_EQ(forward, data) << geometry;
    EXPECT_EQ(forward, weight) << geometry;
  }
}

}  // namespace
}  // namespace kselect::conv
