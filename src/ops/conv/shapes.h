#pragma once
// Conv shape families for sweeps: the distinct layers of real networks (ResNet-50, VGG-16,
// MobileNetV2, a small 3-D U-Net) in every direction, and CK-like test categories (edge,
// random, backward), sized for a CPU: every problem stays under a FLOP budget.
#include <string>
#include <vector>

#include "ops/conv/problem.h"
#include "ops/operation.h"

namespace kselect::conv {

struct ShapeOptions {
  std::string family = "resnet50";  // one of shape_families()
  int count = 20;                   // problems wanted (fewer when a family has fewer)
  unsigned seed = 1;
  double max_gflop = 2.0;                   // per problem: Problem::flops() <= max_gflop * 1e9
  std::vector<std::string> dtypes{"fp32"};  // fp32 / bf16, spread round-robin over the problems
  // The directions a network family expands each layer into (edge and random draw theirs from
  // these, backward from those of them that are backward ones).
  std::vector<Direction> directions{Direction::kForward, Direction::kBackwardData,
                                    Direction::kBackwardWeight};
  std::vector<int> spatial_dims{2, 3};  // 2-D (nhwgc) and/or 3-D (ndhwgc) problems
};

// Network families (each distinct layer at 224x224, or 64^3 for unet3d, x batch sizes 1, 8, 32,
// x directions; a layer over the budget has its batch halved, then its spatial sizes halved,
// and is dropped if it still does not fit; `count` of them picked by a seeded sample, in the
// network's order): "resnet50", "vgg16", "mobilenetv2", "unet3d". CK-like categories (drawn
// from the seed): "edge", "random", "backward".
std::vector<std::string> shape_families();

// Deterministic for given options; every problem valid and distinct (canonical native text).
// Throws InputError for an unknown family, a non-positive count or budget, no dtype or
// direction, or a family with no problem that fits the options.
std::vector<Problem> generate_shapes(const ShapeOptions& options);

// The conv op's answer to `kselect shapes` (Operation::generate_problems): the family (empty:
// the first), count, seed and budget as given; dtypes fp32, bf16 or all (empty: fp32); layouts
// pick the spatial dimensions, nhwgc 2-D, ndhwgc 3-D, all both, and so does rcr, the GEMM
// layout `kselect shapes` passes when given none (empty: both). No field carries a direction:
// every family holds all three (backward: the two backward ones). Canonical native texts.
std::vector<std::string> generate_problems(const ShapeRequest& request);

}  // namespace kselect::conv
