// Tests of the reduction family (Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax). Expected
// values are worked out by hand or from the closed-form formula in each test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "../../../src/exec/ops/reduction_internal.h"
#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

OpCall Reduce(const std::string& op, Tensor x, std::vector<int64_t> axes, int64_t keepdims = 1,
              int64_t opset = 11) {
  OpCall call{op, "", opset, {{"keepdims", IntAttr(keepdims)}}, {std::move(x)}};
  if (!axes.empty()) call.attributes["axes"] = IntsAttr(std::move(axes));
  return call;
}

// x = [[1, 2, 3], [4, 5, 6]]
Tensor Small() { return F32({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(ReductionSum, AxesInputFromOpset13) {
  OpCall call{"ReduceSum", "", 13, {}, {Small(), I64({1}, {1})}};
  ExpectNearRelative(Run1(call), {2, 1}, {6, 15});
  call.inputs[1] = I64({1}, {-2});
  call.attributes["keepdims"] = IntAttr(0);
  ExpectNearRelative(Run1(call), {3}, {5, 7, 9});
}

TEST(ReductionSum, AxesAttributeBeforeOpset13) {
  ExpectNearRelative(Run1(Reduce("ReduceSum", Small(), {0}, 0)), {3}, {5, 7, 9});
  ExpectNearRelative(Run1(Reduce("ReduceSum", Small(), {})), {1, 1}, {21});
}

// The axes checks reductions share with MeanVarianceNormalization (MarkReducedAxes).
TEST(ReductionSum, RepeatedOrOutOfRangeAxisIsAnErrorNamingIt) {
  auto repeated = RunOp(Reduce("ReduceSum", Small(), {1, -1}));
  ASSERT_FALSE(repeated.ok());
  EXPECT_NE(repeated.status().message().find("axis -1 is repeated"), std::string::npos)
      << repeated.status().message();
  auto outside = RunOp(Reduce("ReduceMax", Small(), {2}));
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("axis 2 is out of range for rank 2"), std::string::npos)
      << outside.status().message();
  auto mvn = RunOp(
      OpCall{"MeanVarianceNormalization", "", 13, {{"axes", IntsAttr({0, 4})}}, {F32({1, 1, 1, 1}, {1})}});
  ASSERT_FALSE(mvn.ok());
  EXPECT_NE(mvn.status().message().find("axis 4 is out of range for rank 4"), std::string::npos)
      << mvn.status().message();
}

TEST(ReductionSum, EmptyAxesReduceAllOrNothing) {
  OpCall call{"ReduceSum", "", 13, {}, {Small(), I64({0}, {})}};
  ExpectNearRelative(Run1(call), {1, 1}, {21});
  call.attributes["noop_with_empty_axes"] = IntAttr(1);
  ExpectNearRelative(Run1(call), {2, 3}, {1, 2, 3, 4, 5, 6});
  call.inputs.resize(1);  // axes omitted altogether
  ExpectNearRelative(Run1(call), {2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(ReductionSum, IntegerTypes) {
  Tensor x = Tensor::FromVector<int32_t>({2, 2}, {1, -2, 3, 4});
  Tensor y = Run1(Reduce("ReduceSum", x, {1}, 0));
  ASSERT_EQ(y.dtype(), ir::DType::kInt32);
  EXPECT_EQ(y.data<int32_t>()[0], -1);
  EXPECT_EQ(y.data<int32_t>()[1], 7);
  Tensor m = Run1(Reduce("ReduceMax", I64({3}, {-5, 9, 2}), {}, 0));
  EXPECT_EQ(Values<int64_t>(m), std::vector<int64_t>({9}));
}

TEST(ReductionSum, LongRowIsAccurate) {
  // 300000 x 0.1f: blocked double accumulation keeps the float32 sum exact to ~1 ulp.
  const int64_t n = 300000;
  Tensor x = F32({1, n}, std::vector<float>(n, 0.1f));
  Tensor y = Run1(Reduce("ReduceSum", x, {1}, 0));
  EXPECT_NEAR(y.data<float>()[0], n * static_cast<double>(0.1f), 1e-2);
}

TEST(ReductionMean, MiddleAndLeadingAxes) {
  // x[i][j][k] = 6i + 2j + k, shape 2x3x2.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  // Mean over j: 6i + k + 2 (mean of 2j over j = 0, 1, 2).
  ExpectNearRelative(Run1(Reduce("ReduceMean", F32({2, 3, 2}, v), {1}, 0)), {2, 2}, {2, 3, 8, 9});
  // Mean over i: 3 + 2j + k.
  ExpectNearRelative(Run1(Reduce("ReduceMean", F32({2, 3, 2}, v), {0}, 1)), {1, 3, 2}, {3, 4, 5, 6, 7, 8});
}

TEST(ReductionMax, NonContiguousAxesGather) {
  // Axes {0, 2} of 2x3x2 keep j: max over i, k of 6i + 2j + k = 6 + 2j + 1; min = 2j.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  ExpectNearRelative(Run1(Reduce("ReduceMax", F32({2, 3, 2}, v), {0, 2}, 0)), {3}, {7, 9, 11});
  ExpectNearRelative(Run1(Reduce("ReduceMin", F32({2, 3, 2}, v), {2, 0}, 1)), {1, 3, 1}, {0, 2, 4});
  // Sum over i, k: (2j) + (2j+1) + (6+2j) + (7+2j) = 8j + 14.
  ExpectNearRelative(Run1(Reduce("ReduceSum", F32({2, 3, 2}, v), {0, -1}, 0)), {3}, {14, 22, 30});
}

TEST(ReductionMax, PropagatesNaN) {
  Tensor y = Run1(Reduce("ReduceMax", F32({3}, {1, NAN, 2}), {}, 0));
  EXPECT_TRUE(std::isnan(y.data<float>()[0]));
  // A long row (lanes path), a middle axis, and a reduction over a size-1 axis (element map).
  std::vector<float> row(40, 1.0f);
  row[37] = NAN;
  EXPECT_TRUE(std::isnan(Run1(Reduce("ReduceMin", F32({40}, row), {}, 0)).data<float>()[0]));
  Tensor middle = Run1(Reduce("ReduceMax", F32({3, 2}, {1, 5, NAN, 6, 3, 7}), {0}, 0));
  EXPECT_TRUE(std::isnan(middle.data<float>()[0]));
  EXPECT_EQ(middle.data<float>()[1], 7.0f);
  Tensor map = Run1(Reduce("ReduceMax", F32({2, 1}, {NAN, 4}), {1}, 0));
  EXPECT_TRUE(std::isnan(map.data<float>()[0]));
  EXPECT_EQ(map.data<float>()[1], 4.0f);
}

TEST(ReductionOther, ElementMaps) {
  Tensor x = F32({2, 2}, {1, -2, 3, -4});
  ExpectNearRelative(Run1(Reduce("ReduceProd", x, {1}, 0)), {2}, {-2, -12});
  ExpectNearRelative(Run1(Reduce("ReduceL1", x, {1}, 0)), {2}, {3, 7});
  ExpectNearRelative(Run1(Reduce("ReduceL2", x, {1}, 0)), {2}, {std::sqrt(5.0f), 5});
  ExpectNearRelative(Run1(Reduce("ReduceSumSquare", x, {0}, 0)), {2}, {10, 20});
  ExpectNearRelative(Run1(Reduce("ReduceLogSum", F32({2}, {1, 2}), {}, 0)), {}, {std::log(3.0f)});
  // log(e^1000 + e^1000) = 1000 + log 2: needs the max subtracted.
  ExpectNearRelative(Run1(Reduce("ReduceLogSumExp", F32({2, 2}, {1000, 1000, 0, 0}), {1}, 0)), {2},
                     {1000 + std::log(2.0f), std::log(2.0f)});
}

TEST(ReductionOther, EmptyAxisGivesIdentity) {
  Tensor x = F32({2, 0}, {});
  ExpectNearRelative(Run1(Reduce("ReduceSum", x, {1}, 0)), {2}, {0, 0});
  ExpectNearRelative(Run1(Reduce("ReduceProd", x, {1}, 0)), {2}, {1, 1});
  const float inf = std::numeric_limits<float>::infinity();
  ExpectNearRelative(Run1(Reduce("ReduceMax", x, {1}, 0)), {2}, {-inf, -inf});
}

TEST(ReductionOther, Float16ComputedInFloat32) {
  std::vector<uint16_t> bits = {numerics::FloatToHalf(1.5f), numerics::FloatToHalf(2.5f)};
  Tensor h = Tensor::Empty(ir::DType::kFloat16, {2});
  std::copy(bits.begin(), bits.end(), h.data<uint16_t>());
  Tensor y = Run1(Reduce("ReduceSum", h, {}, 0));
  ASSERT_EQ(y.dtype(), ir::DType::kFloat16);
  EXPECT_EQ(numerics::HalfToFloat(y.data<uint16_t>()[0]), 4.0f);
}

TEST(ReductionErrors, BadAxes) {
  EXPECT_FALSE(RunOp(Reduce("ReduceSum", Small(), {2})).ok());
  EXPECT_FALSE(RunOp(Reduce("ReduceMean", Small(), {-3})).ok());
  EXPECT_FALSE(RunOp(Reduce("ReduceMax", Small(), {1, -1})).ok());
  OpCall call{"ReduceSum", "", 13, {}, {Small(), I64({1}, {5})}};
  EXPECT_FALSE(RunOp(call).ok());
  EXPECT_EQ(RunOp(Reduce("ReduceSum", Tensor::Empty(ir::DType::kBool, {2}), {})).status().code(),
            StatusCode::kUnsupported);
}

TEST(ReductionArg, MaxAndMin) {
  Tensor x = F32({2, 3}, {2, 1, 7, 3, 10, 0});
  OpCall call{"ArgMax", "", 13, {{"axis", IntAttr(0)}}, {x}};
  EXPECT_EQ(Run1(call).shape(), Shape({1, 3}));
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({1, 1, 0}));
  call.attributes["axis"] = IntAttr(-1);
  call.attributes["keepdims"] = IntAttr(0);
  EXPECT_EQ(Run1(call).shape(), Shape({2}));
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({2, 1}));
  call.op_type = "ArgMin";
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({1, 2}));
}

TEST(ReductionArg, SelectLastIndex) {
  Tensor x = F32({2, 3}, {5, 1, 5, 0, 0, 2});
  OpCall call{"ArgMax", "", 12, {{"axis", IntAttr(1)}, {"keepdims", IntAttr(0)}}, {x}};
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({0, 2}));
  call.attributes["select_last_index"] = IntAttr(1);
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({2, 2}));
  call.op_type = "ArgMin";
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({1, 1}));
  // Along axis 0 (inner > 1): column-wise ties.
  call.attributes["axis"] = IntAttr(0);
  Tensor t = F32({2, 2}, {4, 4, 4, 3});
  call.inputs = {t};
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({1, 1}));
  call.attributes["select_last_index"] = IntAttr(0);
  EXPECT_EQ(Values<int64_t>(Run1(call)), std::vector<int64_t>({0, 1}));
}

TEST(ReductionArg, Errors) {
  EXPECT_FALSE(RunOp(OpCall{"ArgMax", "", 13, {{"axis", IntAttr(2)}}, {Small()}}).ok());
  EXPECT_FALSE(RunOp(OpCall{"ArgMin", "", 13, {{"axis", IntAttr(1)}}, {F32({2, 0}, {})}}).ok());
}

// softmax([1, 2, 3]) = e^k / (e + e^2 + e^3).
const std::vector<float> kSoftmax123 = {0.09003057f, 0.24472847f, 0.66524096f};

TEST(ReductionSoftmax, LastAxis) {
  Tensor y = Run1(OpCall{"Softmax", "", 13, {}, {F32({2, 3}, {1, 2, 3, 1001, 1002, 1003})}});
  ExpectNearRelative(
      y, {2, 3},
      {kSoftmax123[0], kSoftmax123[1], kSoftmax123[2], kSoftmax123[0], kSoftmax123[1], kSoftmax123[2]});
}

TEST(ReductionSoftmax, LongRowsMatchFormula) {
  // Rows of 37 (8-wide vector body plus a tail), along the last axis and along axis 0.
  const int n = 37;
  std::vector<float> v(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    v[i] = 0.37f * static_cast<float>(i) - 5.0f;
    sum += std::exp(static_cast<double>(v[i]));
  }
  std::vector<float> want(n), want_log(n);
  for (int i = 0; i < n; ++i) {
    want[i] = static_cast<float>(std::exp(static_cast<double>(v[i])) / sum);
    want_log[i] = static_cast<float>(v[i] - std::log(sum));
  }
  ExpectNearRelative(Run1(OpCall{"Softmax", "", 13, {}, {F32({1, n}, v)}}), {1, n}, want);
  ExpectNearRelative(Run1(OpCall{"LogSoftmax", "", 13, {}, {F32({1, n}, v)}}), {1, n}, want_log);
  ExpectNearRelative(Run1(OpCall{"Softmax", "", 13, {{"axis", IntAttr(0)}}, {F32({n, 1}, v)}}), {n, 1}, want);
}

TEST(ReductionSoftmax, MiddleAxis) {
  // Shape 1x3x2, softmax along axis 1: column k is [1, 2, 3] + 10k.
  Tensor y = Run1(OpCall{"Softmax", "", 13, {{"axis", IntAttr(1)}}, {F32({1, 3, 2}, {1, 11, 2, 12, 3, 13})}});
  ExpectNearRelative(
      y, {1, 3, 2},
      {kSoftmax123[0], kSoftmax123[0], kSoftmax123[1], kSoftmax123[1], kSoftmax123[2], kSoftmax123[2]});
}

TEST(ReductionSoftmax, Opset11CoercesTo2D) {
  // axis 1 of 1x2x2 flattens to one row of 4: softmax([0, 0, 0, 0]) = 1/4 each, whereas opset 13
  // would normalize pairs along axis 1 (1/2 each).
  Tensor x = F32({1, 2, 2}, {0, 0, 0, 0});
  ExpectNearRelative(Run1(OpCall{"Softmax", "", 11, {{"axis", IntAttr(1)}}, {x}}), {1, 2, 2},
                     {0.25f, 0.25f, 0.25f, 0.25f});
  ExpectNearRelative(Run1(OpCall{"Softmax", "", 13, {{"axis", IntAttr(1)}}, {x}}), {1, 2, 2},
                     {0.5f, 0.5f, 0.5f, 0.5f});
  // Default axis before 13 is 1.
  ExpectNearRelative(Run1(OpCall{"Softmax", "", 9, {}, {x}}), {1, 2, 2}, {0.25f, 0.25f, 0.25f, 0.25f});
}

TEST(ReductionSoftmax, LogSoftmax) {
  // log softmax([1, 2, 3]) = k - 3 - log(1 + e^-1 + e^-2) = k - 3.40760596.
  ExpectNearRelative(Run1(OpCall{"LogSoftmax", "", 13, {}, {F32({3}, {1, 2, 3})}}), {3},
                     {-2.40760596f, -1.40760596f, -0.40760596f});
  ExpectNearRelative(Run1(OpCall{"LogSoftmax", "", 13, {{"axis", IntAttr(0)}}, {F32({3, 1}, {1, 2, 3})}}),
                     {3, 1}, {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST(ReductionSoftmax, Hardmax) {
  ExpectNearRelative(Run1(OpCall{"Hardmax", "", 13, {}, {F32({2, 3}, {1, 3, 3, 2, 0, 1})}}), {2, 3},
                     {0, 1, 0, 1, 0, 0});
  ExpectNearRelative(Run1(OpCall{"Hardmax", "", 13, {{"axis", IntAttr(0)}}, {F32({2, 2}, {1, 5, 2, 5})}}),
                     {2, 2}, {0, 1, 1, 0});
}

TEST(ReductionSoftmax, Errors) {
  EXPECT_FALSE(RunOp(OpCall{"Softmax", "", 13, {{"axis", IntAttr(2)}}, {Small()}}).ok());
  EXPECT_FALSE(RunOp(OpCall{"LogSoftmax", "", 13, {{"axis", IntAttr(-3)}}, {Small()}}).ok());
  EXPECT_EQ(RunOp(OpCall{"Softmax", "", 13, {}, {I64({2}, {1, 2})}}).status().code(),
            StatusCode::kUnsupported);
}

TEST(ReductionExpFloat, MatchesStdExp) {
  using exec::reduction_internal::ExpFloat;
  double worst = 0;
  for (float x = -103.0f; x < 88.7f; x += 0.0137f) {
    const double want = std::exp(static_cast<double>(x));
    if (want < 1.2e-38) continue;  // subnormal results: absolute error only
    worst = std::max(worst, std::abs(ExpFloat(x) - want) / want);
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_EQ(ExpFloat(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(ExpFloat(-200.0f), 0.0f);
  EXPECT_EQ(ExpFloat(100.0f), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(ExpFloat(NAN)));
  EXPECT_EQ(ExpFloat(0.0f), 1.0f);
  EXPECT_NEAR(ExpFloat(-100.0f), std::exp(-100.0f), 1e-45);
}

TEST(ReductionExpFloat, ArrayPathMatchesStdExp) {
  using exec::reduction_internal::ExpOfDifference;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x;
  for (float v = -110.0f; v < 90.0f; v += 0.731f) x.push_back(v);
  x.insert(x.begin() + 3, {inf, -inf, NAN, 88.72f, 88.73f, -103.9f, -104.0f, 0.0f});
  std::vector<float> y(x.size());
  ExpOfDifference(x.data(), 1.0f, y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i] - 1.0f));  // the float difference
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
    } else if (want > 3.4028234663852886e38) {
      EXPECT_EQ(y[i], inf) << x[i];
    } else if (want < 1.2e-38) {
      EXPECT_NEAR(y[i], static_cast<float>(want), 3e-45) << x[i];  // 2 subnormal ulps
    } else {
      EXPECT_NEAR(y[i], want, 3e-7 * want) << x[i];
    }
  }
  // Per-element shift.
  std::vector<float> shift(x.size(), 1.0f);
  std::vector<float> y2(x.size());
  ExpOfDifference(x.data(), shift.data(), y2.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(x[i])) EXPECT_EQ(y2[i], y[i]);
  }
}

}  // namespace
}  // namespace npugap
