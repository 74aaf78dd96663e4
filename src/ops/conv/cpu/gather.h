#pragma once
// The gathered operand of an implicit GEMM: a matrix whose row r is a list of `taps` runs of
// `run` contiguous channels, each run read from a tensor pixel or zero when the filter tap falls
// into the padding (or, backward data, between strided outputs). Columns are (tap, channel),
// the channel fastest, so a column range is a few contiguous copies.
#include <array>
#include <cstdint>
#include <vector>

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

// Backward data's rows (input pixels) ordered by stride phase: all pixels whose coordinates are
// congruent to (pd, ph, pw) modulo the stride first, phase by phase, each phase in (n, d, h, w)
// order. A tap reaches a pixel only where (coordinate + pad - tap * dilation) divides by the
// stride, which depends on the phase alone, so a block of one phase has the same taps on every
// row and the driver skips the K slices of the others (which a strided problem's gather would
// fill with zeros: 3/4 of them for stride 2). One phase (stride 1) is the plain order.
class RowPhases {
 public:
  RowPhases() = default;
  RowPhases(std::int64_t batch, const std::array<std::int64_t, 3>& dims,
            const std::array<std::int64_t, 3>& stride);
  int count() const { return int(start_.size()) - 1; }
  // The first row of phase p; start(count()) is the row count.
  std::int64_t start(int p) const { return start_[size_t(p)]; }
  // The phase of `row`, its batch index n and its pixel (d, h, w).
  int decode(std::int64_t row, std::int64_t& n, std::int64_t pos[3]) const;
  // Phase p's offset along each axis (its coordinates modulo the stride).
  std::array<std::int64_t, 3> offset(int p) const;
  // The image pixel (n, d, h, w) of `row` as an index in (n, d, h, w) order.
  std::int64_t pixel(std::int64_t row) const;

 private:
  std::int64_t batch_ = 1;
  std::array<std::int64_t, 3> dims_{1, 1, 1}, stride_{1, 1, 1};
  std::vector<std::int64_t> start_{0};  // first row of each phase, then the row count
};

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
  const RowPhases* phases = nullptr;  // kTransposed: rows in this order (null: plain order)
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
  // The same block as micro-panels nr columns wide (panel j at dst + j * nr * nrows, row i of it
  // at + i * nr, columns past ncols zero): each row's sources found once for all its panels.
  void copy_panels(std::int64_t group, std::int64_t row0, int nrows, std::int64_t col0, int ncols,
                   float* dst, int nr) const;

 private:
  struct Cursor;
  void row_sources(const char* base, const Cursor& at, std::int64_t first, std::int64_t last,
                   const char** sources) const;
  void copy_row(const char* const* sources, std::int64_t first, std::int64_t col, std::int64_t end,
                float* out) const;
  void copy_block(std::int64_t group, std::int64_t row0, int nrows, std::int64_t col0, int ncols,
                  float* dst, std::int64_t ld, int nr) const;
  void copy_run(float* dst, const char* src, int count) const;

  GatherSpec spec_;
  Specialization specialization_;
  int vec_;
  std::int64_t rows_;
  int elem_bytes_;
};

}  // namespace kselect::conv::cpu
