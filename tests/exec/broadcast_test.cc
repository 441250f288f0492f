#include "npugap/exec/broadcast.h"

#include <gtest/gtest.h>

namespace npugap::exec {

TEST(BroadcastTest, ShapesFollowNumpyRules) {
  EXPECT_EQ(BroadcastShapes({2, 1, 4}, {3, 1}).value(), (ir::Shape{2, 3, 4}));
  EXPECT_EQ(BroadcastShapes({}, {5}).value(), (ir::Shape{5}));
  EXPECT_EQ(BroadcastShapes({0, 1}, {1, 3}).value(), (ir::Shape{0, 3}));
  EXPECT_FALSE(BroadcastShapes({2, 3}, {4}).ok());
}

TEST(BroadcastTest, StridesAreZeroOnBroadcastDims) {
  EXPECT_EQ(BroadcastStrides({3, 1}, {2, 3, 4}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
}

}  // namespace npugap::exec
