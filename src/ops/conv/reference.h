#pragma once
// The direct convolution that the CPU kernels are checked against: every (output pixel, filter
// tap) pair of the forward relation x[n, o * stride - pad + tap * dilation] -> y[n, o] is
// visited once, and each direction accumulates its own tensor from it, in double precision.
// It shares no index arithmetic with the implicit-GEMM kernels (no gathers, no division by the
// stride for backward data).
#include <vector>

#include "ops/conv/problem.h"

namespace kselect::conv {

// Tensors as values in CK's layouts (x NHWGC / NDHWGC, w GKYXC / GKZYXC, y NHWGK / NDHWGK).
// The direction's result: forward y from x and w, backward data x's gradient from y and w,
// backward weight w's gradient from x and y. The tensor the direction writes is ignored.
std::vector<double> reference_conv(const Problem& p, const std::vector<float>& x,
                                   const std::vector<float>& w, const std::vector<float>& y);

// Element counts of the three tensors.
std::int64_t x_elements(const Problem& p);
std::int64_t w_elements(const Problem& p);
std::int64_t y_elements(const Problem& p);

}  // namespace kselect::conv
