#include <gtest/gtest.h>

#include <string>

#include "ops/operation.h"

namespace kselect {
namespace {

TEST(OperationRegistry, ImportedDataGoesToTheOpThatLearnsFromAnyOp) {
  const Operation& op = imported_data_operation();
  EXPECT_TRUE(op.capabilities().learns_from_any_op);
  EXPECT_EQ(op.name(), "generic");
  EXPECT_EQ(&find_operation(op.name()), &op);
}

// Rows whose kernels their op does not own were imported: the generic op's always, a conv
// or gemm row only for a kernel that is not one of the op's own (a MIOpen solver).
TEST(OperationRegistry, ImportedKernelsAreTheOnesTheirOpDoesNotOwn) {
  EXPECT_TRUE(is_imported_kernel("generic", "anything"));
  EXPECT_TRUE(is_imported_kernel("no_such_op", "k"));
  EXPECT_TRUE(is_imported_kernel("conv", "ConvBinWinograd3x3U"));
  EXPECT_TRUE(is_imported_kernel("gemm", "ConvBinWinograd3x3U"));
  const Operation& gemm = find_operation("gemm");
  const std::string own = gemm.kernel_names("default", {}).front();
  EXPECT_FALSE(is_imported_kernel("gemm", own));
  EXPECT_EQ(&learning_operation(gemm, {own}), &gemm);
  EXPECT_EQ(&learning_operation(gemm, {}), &gemm);
  EXPECT_EQ(&learning_operation(imported_data_operation(), {"k"}), &imported_data_operation());
}

}  // namespace
}  // namespace kselect
