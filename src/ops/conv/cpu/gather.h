#pragma once
// The gathered operand of an implicit GEMM: a matrix whose row r is a list of `taps` runs of
// `run` contiguous channels, each run read from a tensor pixel or zero when the filter tap falls
// into the padding (or, backward data, between strided outputs). Columns are (tap, channel),
// the channel fastest, so a column range is a few contiguous copies.
#include <array>
#include <cstdint>

#include "ops/conv/config.h"
#include "ops/conv/problem.h"

namespace kselect::conv::cpu {

// How rows map to tensor pixels and taps to source pixels.
enum class TapMap {
  kForward,     // source = row * stride - pad + tap * dilation (forward, backward weight)
  kTransposed,  // source * stride = row + pad - tap * dilation (backward data)
  kIndexed,     // row r = t * index_blocks + b: one run at base + b * index_row_stride + t * run
};

// Copies `count` fp32 values (a multiple of vec) in chunks of vec values (1, 4 or 8).
void copy_values(float* dst, const float* src, int count, int vec);

struct GatherSpec {
  const void* base = nullptr;     // the tensor at group 0's first channel
  std::int64_t group_stride = 0;  // elements from one group's first channel to the next
  bool bf16 = false;              // bf16 bit patterns, widened to fp32 when copied
  std::int64_t pixel_stride = 0;  // elements between pixels (G * channels)
  std::int64_t run = 0;           // channels per run
  int taps = 1;                   // z * y * x
  TapMap map = TapMap::kForward;
  std::int64_t batch = 1;
  std::array<std::int64_t, 3> rows_dims{1, 1, 1};    // the row space's (d, h, w)
  std::array<std::int64_t, 3> source_dims{1, 1, 1};  // the source tensor's (d, h, w)
  std::array<std::int64_t, 3> filter{1, 1, 1}, stride{1, 1, 1}, pad{0, 0, 0}, dil{1, 1, 1};
  std::int64_t index_row_stride = 0;  // kIndexed: elements between channel blocks
  int index_blocks = 0;               // kIndexed: channel blocks per tap
};

class Gather {
 public:
  Gather(const GatherSpec& spec, Specialization specialization, int vec);
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const {
    return spec_.map == TapMap::kIndexed ? spec_.run : std::int64_t(spec_.taps) * spec_.run;
  }
  // Copies rows [row0, row0 + nrows) x columns [col0, col0 + ncols) of group `group`'s matrix
  // as fp32 into dst (row i at dst + i * ld). col0 and ncols are multiples of the copy width
  // unless they end the row.
  void copy(std::int64_t group, std::int64_t row0, int nrows, std::int64_t col0, int ncols,
            float* dst, std::int64_t ld) const;

 private:
  // The source of every tap of `row` (nullptr: zeros).
  void row_sources(const char* base, std::int64_t row, const char** sources) const;
  void copy_run(float* dst, const char* src, int count) const;

  GatherSpec spec_;
  Specialization specialization_;
  int vec_;
  std::int64_t rows_;
  int elem_bytes_;
};

}  // namespace kselect::conv::cpu
