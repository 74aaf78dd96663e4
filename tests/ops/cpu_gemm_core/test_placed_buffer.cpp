#include "ops/cpu_gemm_core/placed_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <set>

namespace kselect::kernels {
namespace {

constexpr Placement kRoles[] = {Placement::kOperandA, Placement::kOperandB, Placement::kOperandC,
                                Placement::kPackA,    Placement::kPackB,    Placement::kStage,
                                Placement::kPartial};
constexpr std::size_t kTwoMib = std::size_t{2} << 20;

TEST(PlacedBuffer, StartsAtItsRoleOffsetPastATwoMibBoundary) {
  for (Placement role : kRoles)
    for (std::size_t bytes : {std::size_t{1}, std::size_t{5000}, 3 * kTwoMib / 2 + 7}) {
      PlacedBuffer buffer(bytes, role);
      const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
      EXPECT_EQ(address % kTwoMib, PlacedBuffer::offset(role)) << bytes << " bytes";
      EXPECT_EQ(buffer.size(), bytes);
      buffer.data()[0] = 1;  // the whole range is mapped and writable
      buffer.data()[bytes - 1] = 2;
    }
}

TEST(PlacedBuffer, RolesStartOnDistinctL1Sets) {
  std::set<std::size_t> sets;
  for (Placement role : kRoles) {
    const std::size_t offset = PlacedBuffer::offset(role);
    EXPECT_EQ(offset % 64, 0u) << "offsets are whole cache lines";
    sets.insert(offset % 4096 / 64);
  }
  EXPECT_EQ(sets.size(), std::size(kRoles));
}

TEST(PlacedBuffer, RefusesSizesNoMachineMaps) {
  EXPECT_THROW(PlacedBuffer(std::size_t(-1) - 100, Placement::kOperandA), std::bad_alloc);
}

TEST(PlacedBuffer, MoveHandsOverTheMemory) {
  PlacedBuffer first(100, Placement::kPackB);
  char* data = first.data();
  data[99] = 7;
  PlacedBuffer second = std::move(first);
  EXPECT_EQ(second.data(), data);
  EXPECT_EQ(second.data()[99], 7);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(first.size(), 0u);
  PlacedBuffer empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
}

}  // namespace
}  // namespace kselect::kernels
