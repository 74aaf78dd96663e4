#pragma once
// Memory whose cache placement is the same in every process.
//
// Caches pick a line's set from its address bits below 2 MiB: L1 from the virtual bits 6-11,
// L2 and L3 from physical bits up to about 20. A malloc'd buffer starts at an offset that
// depends on everything the process allocated before, and on 4 KiB pages its physical frames
// are whatever the kernel had free, so the same kernel on the same problem could meet different
// set conflicts (and 4 KiB aliasing between its streams) in two sweeps, or between two kernels
// of one sweep. A model cannot learn that; it is noise in its labels. A PlacedBuffer starts at
// a fixed offset past a 2 MiB boundary and asks for transparent huge pages, so its virtual
// placement is fixed and, where the kernel grants a huge page, its physical one too.
#include <cstddef>
#include <memory>
#include <utility>

namespace kselect::kernels {

// Fixed offsets past the 2 MiB boundary, one per role, a whole number of cache lines apart
// modulo 4 KiB so that the streams of one kernel never start on the same L1 set.
enum class Placement : int { kOperandA, kOperandB, kOperandC, kPackA, kPackB, kStage, kPartial };

class PlacedBuffer {
 public:
  PlacedBuffer() = default;
  PlacedBuffer(std::size_t bytes, Placement where);
  // Moves leave the source empty (no data, size 0), like a moved-from vector.
  PlacedBuffer(PlacedBuffer&& other) noexcept { *this = std::move(other); }
  PlacedBuffer& operator=(PlacedBuffer&& other) noexcept {
    base_ = std::move(other.base_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Offset of `where` from its 2 MiB boundary.
  static std::size_t offset(Placement where);

 private:
  struct Release {
    std::size_t length;
    void operator()(char* base) const;
  };
  std::unique_ptr<char, Release> base_{nullptr, Release{0}};
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kselect::kernels
