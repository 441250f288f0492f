// Helpers for the indexing op tests (indexing_test.cc, indexing_resize_test.cc), on top of the
// shared ones in op_test_util.h and op_test_expect.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "op_test_expect.h"

namespace npugap::testing::indexing {

using ir::Shape;
using ir::Tensor;

// The kernel must reject the call as bad input (not unsupported, not ok).
inline void ExpectInvalid(const OpCall& call) {
  auto result = RunOp(call);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status().message();
}

template <typename T>
void ExpectValues(const Tensor& t, const Shape& shape, const std::vector<T>& values) {
  ASSERT_EQ(t.dtype(), ir::DTypeOf<T>::value);
  ASSERT_EQ(t.shape(), shape) << ir::ShapeToString(t.shape());
  ASSERT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.data<T>()[i], values[i]) << "at " << i;
}

inline void ExpectNear(const Tensor& t, const Shape& shape, const std::vector<float>& values,
                       float tol = 1e-5f) {
  ASSERT_EQ(t.dtype(), ir::DType::kFloat32);
  ASSERT_EQ(t.shape(), shape) << ir::ShapeToString(t.shape());
  ASSERT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(t.data<float>()[i], values[i], tol) << "at " << i;
}

}  // namespace npugap::testing::indexing
