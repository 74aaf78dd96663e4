#include <gtest/gtest.h>

#include "ops/operation.h"

namespace kselect {
namespace {

TEST(OperationRegistry, ImportedDataGoesToTheOpThatLearnsFromAnyOp) {
  const Operation& op = imported_data_operation();
  EXPECT_TRUE(op.capabilities().learns_from_any_op);
  EXPECT_EQ(op.name(), "generic");
  EXPECT_EQ(&find_operation(op.name()), &op);
}

}  // namespace
}  // namespace kselect
