// The gtest side of the op tests' shared helpers (op_test_util.h): runs that must succeed and
// value checks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "op_test_util.h"

namespace npugap::testing {

// ---- checks ---------------------------------------------------------------------------------
// A float32 tensor of `shape` within `tol` relative to max(1, |want|) of each value; an infinite
// `want` must be met exactly.
inline void ExpectNearRelative(const ir::Tensor& t, const ir::Shape& shape, const std::vector<float>& want,
                               float tol = 1e-5f) {
  ASSERT_EQ(t.dtype(), ir::DType::kFloat32);
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_EQ(t.data<float>()[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(t.data<float>()[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << "at " << i;
    }
  }
}

// ---- runs that must succeed (the test fails, with the kernel's message, when they do not) -------
inline std::vector<ir::Tensor> RunAll(const OpCall& call) {
  auto out = RunOp(call);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return std::vector<ir::Tensor>(static_cast<size_t>(call.num_outputs));
  return std::move(out).value();
}
// The first output.
inline ir::Tensor Run1(const OpCall& call) {
  std::vector<ir::Tensor> all = RunAll(call);
  return all.empty() ? ir::Tensor() : std::move(all[0]);
}

}  // namespace npugap::testing

// The op tests name the tensor types and these helpers unqualified; declared once here rather
// than in each test file.
namespace npugap {
using ir::DType;
using ir::Shape;
using ir::Tensor;
using testing::Bools;
using testing::BoolValues;
using testing::ExpectNearRelative;
using testing::F32;
using testing::FloatAttr;
using testing::FloatsAttr;
using testing::I64;
using testing::IntAttr;
using testing::IntsAttr;
using testing::Make;
using testing::OpCall;
using testing::Run1;
using testing::RunAll;
using testing::RunOp;
using testing::StringAttr;
using testing::Strings;
using testing::Values;
}  // namespace npugap
