// The gtest side of the op tests' shared helpers (op_test_util.h): runs that must succeed and
// value checks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
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

// A float32 tensor of expected.size() values: NaN where NaN is expected, an infinity exactly,
// every other value within `tol` (absolute). `op` names the op in the failure messages.
inline void ExpectFloatValues(const ir::Tensor& out, const std::vector<float>& expected, float tol,
                              const std::string& op) {
  ASSERT_EQ(out.dtype(), ir::DType::kFloat32) << op;
  ASSERT_EQ(out.numel(), static_cast<int64_t>(expected.size())) << op;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float got = out.data<float>()[i];
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got)) << op << "[" << i << "] = " << got;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got, expected[i]) << op << "[" << i << "]";
    } else {
      EXPECT_NEAR(got, expected[i], tol) << op << "[" << i << "]";
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
using testing::ExpectFloatValues;
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
