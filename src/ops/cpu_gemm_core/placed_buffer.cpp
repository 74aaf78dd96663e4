#include "ops/cpu_gemm_core/placed_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>

namespace kselect::kernels {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// 10 cache lines: seven roles land on distinct sets of the 64 in a 4 KiB way.
constexpr std::size_t kRoleStride = 640;

std::size_t round_up(std::size_t bytes, std::size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

}  // namespace

std::size_t PlacedBuffer::offset(Placement where) {
  return std::size_t(where) * kRoleStride;
}

PlacedBuffer::PlacedBuffer(std::size_t bytes, Placement where) : size_(bytes) {
  const std::size_t skip = offset(where);
  // No mapping is that large; refusing here keeps the rounding below from wrapping around.
  if (bytes > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
  // mmap gives 4 KiB alignment; map one huge page more and trim to a 2 MiB boundary.
  const std::size_t length = round_up(skip + std::max<std::size_t>(bytes, 1), kHugePage);
  void* mapped =
      mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  auto* raw = static_cast<char*>(mapped);
  char* base = raw + (kHugePage - reinterpret_cast<std::uintptr_t>(raw) % kHugePage) % kHugePage;
  if (base > raw) munmap(raw, std::size_t(base - raw));
  char* end = raw + length + kHugePage;
  if (end > base + length) munmap(base + length, std::size_t(end - (base + length)));
  // Only advice: without THP the placement is still fixed in virtual memory (L1).
  madvise(base, length, MADV_HUGEPAGE);
  base_ = std::unique_ptr<char, Release>(base, Release{length});
  data_ = base + skip;
}

void PlacedBuffer::Release::operator()(char* base) const {
  if (base) munmap(base, length);
}

}  // namespace kselect::kernels
