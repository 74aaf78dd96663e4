// Forest::predict_exact: selection's scoring path. Two things make it faster than predict():
// - every row walks each tree for the tree's depth without testing for leaves (a leaf is a split
//   that returns to itself), so the lanes' steps are independent and branch-free;
// - a block of rows that are one problem's candidates shares the problem's columns, so before
//   walking, the splits on columns with one value in every row are resolved once and the block
//   walks a copy of the trees without them.
#include <algorithm>
#include <cstring>
#include <vector>

#include "model/forest.h"

namespace kselect::model {

namespace {

struct ResolvedTrees {
  std::vector<std::int32_t> old_nodes;  // breadth-first queue of the tree being copied
  std::vector<std::uint8_t> depth;
  std::vector<char> constant;  // per column
  std::vector<float> value;    // per constant column: its value
};

thread_local ResolvedTrees resolved_scratch;
thread_local Forest::ExactStats exact_stats;

}  // namespace

Forest::ExactStats Forest::last_exact_stats() {
  return exact_stats;
}

void Forest::predict_exact(const float* rows, std::size_t n, std::size_t stride, std::size_t first,
                           std::size_t last, double* out) const {
  require_one_output("predict_exact");
  last = std::min(last, roots_.size());
  if (first == 0)
    for (std::size_t r = 0; r < n; ++r) out[r] = start_margin(rows + r * stride);
  exact_stats = {};
  if (n == 0 || first >= last) return;
  // Copying the trees costs about one step per node; resolving saves a few steps per row and
  // tree. Measured on 250-node trees (docs/benchmarks.md, "Selection speed"): 44 rows lost
  // 1.8x, 238 rows gained 21%; the break-even is near half a tree's nodes.
  if (2 * n * roots_.size() >= nodes_.size()) {
    walk_exact(resolve_constant_columns(rows, n, stride, first, last), rows, n, stride,
               last - first, out);
  } else {
    walk_exact({nodes_.data(), leaf_values_.data(), roots_.data() + first, depths_.data() + first},
               rows, n, stride, last - first, out);
  }
}

// The trees [first, last) with every split on a block-constant column replaced by the child its
// value takes. The copy lives in thread-local scratch until the next call in this thread.
Forest::Walk Forest::resolve_constant_columns(const float* rows, std::size_t n, std::size_t stride,
                                              std::size_t first, std::size_t last) const {
  thread_local std::vector<Node> nodes;
  thread_local std::vector<double> leaves;
  thread_local std::vector<std::int32_t> roots;
  thread_local std::vector<std::uint8_t> depths;
  ResolvedTrees& s = resolved_scratch;
  const std::size_t columns = std::size_t(std::max(num_features_, 1));
  s.constant.assign(columns, 1);
  s.value.assign(rows, rows + columns);
  for (std::size_t r = 1; r < n; ++r) {
    const float* row = rows + r * stride;
    for (std::size_t c = 0; c < columns; ++c)
      s.constant[c] &= std::memcmp(&row[c], &s.value[c], sizeof(float)) == 0;
  }
  nodes.clear(), leaves.clear(), roots.clear(), depths.clear();
  std::size_t resolved = 0;
  for (std::size_t tree = first; tree < last; ++tree) {
    const std::int32_t base = std::int32_t(nodes.size());
    s.old_nodes.assign(1, roots_[tree]);
    s.depth.assign(1, 0);
    std::uint8_t deepest = 0;
    for (std::size_t next = 0; next < s.old_nodes.size(); ++next) {
      std::int32_t old = s.old_nodes[next];
      for (std::uint32_t f = nodes_[old].feature; !(f & kLeaf) && s.constant[f & kIndexMask];
           f = nodes_[old].feature) {
        old = next_node(nodes_[old], s.value[f & kIndexMask]);
        ++resolved;
      }
      const std::int32_t at = std::int32_t(base + next);
      const Node& node = nodes_[old];
      nodes.push_back(node);
      leaves.push_back(leaf_values_[old]);
      if (node.feature & kLeaf) {
        nodes.back().left = at - 1;
        continue;
      }
      nodes.back().left = std::int32_t(base + s.old_nodes.size());
      s.old_nodes.push_back(node.left);
      s.old_nodes.push_back(node.left + 1);
      s.depth.insert(s.depth.end(), 2, std::uint8_t(s.depth[next] + 1));
      deepest = std::max(deepest, std::uint8_t(s.depth[next] + 1));
    }
    roots.push_back(base);
    depths.push_back(deepest);
  }
  exact_stats.resolved_nodes = resolved;
  return {nodes.data(), leaves.data(), roots.data(), depths.data()};
}

// Walks kLanes rows (rows + l * stride) down tree `tree` of `walk` and adds their leaves to
// out[0..kLanes). Steps are branch-free (a leaf steps to itself), two at a time; the walk stops
// when every lane is at a leaf, or after the tree's depth, whichever is first: lossguide trees
// are unbalanced, so most paths end well above the deepest leaf.
template <int kLanes>
void Forest::walk_lanes_exact(const Walk& walk, std::size_t tree, const float* rows,
                              std::size_t stride, double* out) const {
  std::int32_t at[kLanes];
  for (int l = 0; l < kLanes; ++l) at[l] = walk.roots[tree];
  auto step = [&] {
    for (int l = 0; l < kLanes; ++l) {
      const Node& node = walk.nodes[at[l]];
      const float x = rows[std::size_t(l) * stride + (node.feature & kIndexMask)];
      if (node.feature & kSpecial) [[unlikely]] {
        at[l] = next_node(node, x);
        continue;
      }
      // NaN: x < value is false (right) unless the node's default is left.
      const bool right = !(x < node.value) ^ ((x != x) & (node.feature >> 31));
      at[l] = node.left + std::int32_t(right);
    }
  };
  std::size_t taken = 0;
  for (int steps = walk.depths[tree]; steps > 0; steps -= 2) {
    step();
    step();
    taken += 2;
    std::uint32_t leaves = kLeaf;
    for (int l = 0; l < kLanes; ++l) leaves &= walk.nodes[at[l]].feature;
    if (leaves) break;
  }
  exact_stats.nodes += taken * kLanes;
  for (int l = 0; l < kLanes; ++l) out[l] += walk.leaf_values[at[l]];
}

void Forest::walk_exact(const Walk& walk, const float* rows, std::size_t n, std::size_t stride,
                        std::size_t trees, double* out) const {
  // Blocks of rows go through one tree at a time so that the tree stays in cache; each row
  // still adds its leaves in tree order.
  constexpr std::size_t kBlock = 64, kLanes = 8;
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    for (std::size_t tree = 0; tree < trees; ++tree) {
      std::size_t r = begin;
      for (; r + kLanes <= end; r += kLanes)
        walk_lanes_exact<kLanes>(walk, tree, rows + r * stride, stride, out + r);
      for (; r < end; ++r) walk_lanes_exact<1>(walk, tree, rows + r * stride, stride, out + r);
    }
  }
}

}  // namespace kselect::model
