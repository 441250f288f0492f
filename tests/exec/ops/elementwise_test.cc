// Binary and variadic elementwise ops: expected values are worked out by hand or, for the large
// broadcast case, from the numpy broadcasting rule evaluated index by index.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../../../src/exec/ops/elementwise_internal.h"
#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

Status RunStatus(OpCall call) { return RunOp(call).status(); }

TEST(ElementwiseBinaryTest, AddSameShapeAndScalar) {
  Tensor out = Run1({.op_type = "Add",
                     .inputs = {Make<float>({2, 2}, {1, 2, 3, 4}), Make<float>({2, 2}, {10, 20, 30, 40})}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{11, 22, 33, 44}));
  out = Run1({.op_type = "Add", .inputs = {Make<float>({}, {0.5f}), Make<float>({3}, {1, 2, 3})}});
  EXPECT_EQ(out.shape(), (Shape{3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(ElementwiseBinaryTest, AddBroadcastsRowAndColumn) {
  // [2,1] + [1,3]: out[i][j] = a[i] + b[j].
  Tensor out =
      Run1({.op_type = "Add", .inputs = {Make<double>({2, 1}, {10, 20}), Make<double>({1, 3}, {1, 2, 3})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<double>(out), (std::vector<double>{11, 12, 13, 21, 22, 23}));
  // [2,3,2] + [3,1]: the bias repeats along the inner dim.
  out = Run1({.op_type = "Sub",
              .inputs = {Make<int32_t>({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                         Make<int32_t>({3, 1}, {0, 10, 20})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 1, -8, -7, -16, -15, 6, 7, -2, -1, -10, -9}));
}

TEST(ElementwiseBinaryTest, LargeBroadcastMatchesIndexFormula) {
  // a: [3,70,1,130], b: [70,5,1] -> out [3,70,5,130]; big enough for several parallel chunks that
  // start in the middle of inner runs.
  const Shape a_shape{3, 70, 1, 130}, b_shape{70, 5, 1};
  std::vector<float> a(3 * 70 * 130), b(70 * 5);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 1000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) * 1000.0f;
  Tensor out = Run1({.op_type = "Add", .inputs = {Make<float>(a_shape, a), Make<float>(b_shape, b)}});
  ASSERT_EQ(out.shape(), (Shape{3, 70, 5, 130}));
  const float* o = out.data<float>();
  int mismatches = 0;
  for (int n = 0; n < 3; ++n)
    for (int c = 0; c < 70; ++c)
      for (int h = 0; h < 5; ++h)
        for (int w = 0; w < 130; ++w) {
          const float expected = a[(n * 70 + c) * 130 + w] + b[c * 5 + h];
          mismatches += o[((n * 70 + c) * 5 + h) * 130 + w] != expected;
        }
  EXPECT_EQ(mismatches, 0);
}

TEST(ElementwiseBroadcastTest, RunsFromAnyStartMatchIndexFormula) {
  // out [2,3,2,4]: a [3,1,4] (broadcast over dims 0 and 2), b [2,1,2,1] (over dims 1 and 3).
  // Every split point of the flat range must give the offsets numpy's rule gives.
  const Shape out{2, 3, 2, 4}, a{3, 1, 4}, b{2, 1, 2, 1};
  const auto layout = exec::elementwise::MakeBroadcastLayout<2>({&a, &b}, out);
  auto expected_offsets = [](int64_t flat) {
    const int64_t w = flat % 4, h = flat / 4 % 2, c = flat / 8 % 3, n = flat / 24;
    return std::array<int64_t, 2>{c * 4 + w, n * 2 + h};
  };
  for (int64_t split = 0; split <= 48; ++split) {
    std::vector<int> seen(48, 0);
    for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, split}, {split, 48}}) {
      exec::elementwise::ForEachRun(
          layout, begin, end, [&](int64_t o, const std::array<int64_t, 2>& in, int64_t count) {
            for (int64_t i = 0; i < count; ++i) {
              ++seen[static_cast<size_t>(o + i)];
              const auto want = expected_offsets(o + i);
              EXPECT_EQ(in[0] + i * layout.inner_strides[0], want[0]) << "split " << split << " at " << o + i;
              EXPECT_EQ(in[1] + i * layout.inner_strides[1], want[1]) << "split " << split << " at " << o + i;
            }
          });
    }
    EXPECT_EQ(seen, std::vector<int>(48, 1)) << "split " << split;
  }
}

TEST(ElementwiseBinaryTest, EmptyTensorsBroadcast) {
  Tensor out = Run1({.op_type = "Add", .inputs = {Make<float>({0, 3}, {}), Make<float>({3}, {1, 2, 3})}});
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
  out = Run1(
      {.op_type = "Where", .inputs = {Bools({0, 1}, {}), Make<float>({3}, {1, 2, 3}), Make<float>({}, {0})}});
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
  EXPECT_FALSE(RunOp({.op_type = "Add", .inputs = {Make<float>({0}, {}), Make<float>({3}, {1, 2, 3})}}).ok());
}

TEST(ElementwiseBinaryTest, IntegerArithmeticWrapsAndTruncates) {
  EXPECT_EQ(Values<int8_t>(Run1(
                {.op_type = "Add", .inputs = {Make<int8_t>({2}, {127, -128}), Make<int8_t>({2}, {1, -1})}})),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<uint8_t>(Run1(
                {.op_type = "Mul", .inputs = {Make<uint8_t>({2}, {16, 3}), Make<uint8_t>({2}, {16, 4})}})),
            (std::vector<uint8_t>{0, 12}));
  // C division truncates toward zero; MIN / -1 wraps.
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(Run1(
                {.op_type = "Div",
                 .inputs = {Make<int32_t>({4}, {7, -7, 7, min32}), Make<int32_t>({4}, {2, 2, -2, -1})}})),
            (std::vector<int32_t>{3, -3, -3, min32}));
  EXPECT_EQ(Values<float>(
                Run1({.op_type = "Div", .inputs = {Make<float>({2}, {1, -3}), Make<float>({2}, {4, 2})}})),
            (std::vector<float>{0.25f, -1.5f}));
}

TEST(ElementwiseBinaryTest, Errors) {
  Status s = RunStatus(
      {.op_type = "Add",
       .inputs = {Make<float>({2, 3}, std::vector<float>(6)), Make<float>({4}, std::vector<float>(4))}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("2x3"), std::string::npos) << s.message();
  s = RunStatus({.op_type = "Mul", .inputs = {Make<float>({1}, {1}), Make<int32_t>({1}, {1})}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  s = RunStatus({.op_type = "Div", .inputs = {Make<int64_t>({2}, {1, 2}), Make<int64_t>({2}, {1, 0})}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  s = RunStatus({.op_type = "Add", .inputs = {Bools({1}, {1}), Bools({1}, {1})}});
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  s = RunStatus({.op_type = "Add", .inputs = {Make<float>({1}, {1})}});
  EXPECT_FALSE(s.ok());
}

TEST(ElementwiseBinaryTest, LegacyBroadcastBeforeOpset7) {
  const Tensor a = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // broadcast=1, axis=0: B [2] runs along A's dim 0 (numpy would align it with dim 1).
  Tensor out = Run1({.op_type = "Add",
                     .opset = 6,
                     .attributes = {{"broadcast", IntAttr(1)}, {"axis", IntAttr(0)}},
                     .inputs = {a, Make<float>({2}, {10, 20})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{11, 12, 13, 24, 25, 26}));
  // Default axis: B matches A's trailing dims; a one-element B is a scalar.
  EXPECT_EQ(Values<float>(Run1({.op_type = "Mul",
                                .opset = 6,
                                .attributes = {{"broadcast", IntAttr(1)}},
                                .inputs = {a, Make<float>({3}, {1, 0, -1})}})),
            (std::vector<float>{1, 0, -3, 4, 0, -6}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Sub",
                                .opset = 1,
                                .attributes = {{"broadcast", IntAttr(1)}},
                                .inputs = {a, Make<float>({1}, {1})}})),
            (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // broadcast=0 needs equal shapes; B must fit inside A at axis and match its dims.
  EXPECT_EQ(RunStatus({.op_type = "Add", .opset = 6, .inputs = {a, Make<float>({3}, {1, 2, 3})}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus({.op_type = "Add",
                       .opset = 6,
                       .attributes = {{"broadcast", IntAttr(1)}, {"axis", IntAttr(1)}},
                       .inputs = {a, Make<float>({2}, {1, 2})}})
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus({.op_type = "Add",
                       .opset = 6,
                       .attributes = {{"broadcast", IntAttr(1)}, {"axis", IntAttr(1)}},
                       .inputs = {a, Make<float>({3, 1}, {1, 2, 3})}})
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ElementwiseBinaryTest, Float16ComputesInFloat32) {
  auto half = [](std::vector<float> v) {
    Tensor t = Tensor::Empty(DType::kFloat16, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) t.data<uint16_t>()[i] = numerics::FloatToHalf(v[i]);
    return t;
  };
  Tensor out = Run1({.op_type = "Mul", .inputs = {half({1.5f, -2.0f}), half({2.0f, 0.25f})}});
  ASSERT_EQ(out.dtype(), DType::kFloat16);
  EXPECT_EQ(numerics::HalfToFloat(out.data<uint16_t>()[0]), 3.0f);
  EXPECT_EQ(numerics::HalfToFloat(out.data<uint16_t>()[1]), -0.5f);
  Tensor cmp = Run1({.op_type = "Less", .inputs = {half({1.0f, 3.0f}), half({2.0f, 2.0f})}});
  EXPECT_EQ(cmp.dtype(), DType::kBool);
  EXPECT_EQ(BoolValues(cmp), (std::vector<int>{1, 0}));
}

TEST(ElementwisePowTest, FloatIntegerAndMixedTypes) {
  EXPECT_EQ(Values<float>(Run1(
                {.op_type = "Pow", .inputs = {Make<float>({3}, {2, 3, 4}), Make<float>({3}, {3, 2, 0.5f})}})),
            (std::vector<float>{8, 9, 2}));
  EXPECT_EQ(Values<float>(
                Run1({.op_type = "Pow", .inputs = {Make<float>({3}, {-3, 1.5f, 0}), Make<float>({}, {2})}})),
            (std::vector<float>{9, 2.25f, 0}));
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Pow",
                                  .inputs = {Make<int32_t>({3}, {1, 2, 3}), Make<int32_t>({3}, {4, 5, 6})}})),
            (std::vector<int32_t>{1, 32, 729}));
  // Exponent of another type (opset 12+): output keeps the base's type.
  Tensor out = Run1({.op_type = "Pow", .inputs = {Make<float>({2}, {2, 3}), Make<int64_t>({2}, {-1, 3})}});
  EXPECT_EQ(out.dtype(), DType::kFloat32);
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0.5f, 27}));
  out = Run1({.op_type = "Pow", .inputs = {Make<int64_t>({2}, {4, 2}), Make<float>({2}, {0.5f, 3})}});
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{2, 8}));
  // Negative integer exponents truncate: 1, +-1 for base -1, else 0.
  EXPECT_EQ(Values<int32_t>(
                Run1({.op_type = "Pow",
                      .inputs = {Make<int32_t>({4}, {1, -1, -1, 2}), Make<int32_t>({4}, {-2, -3, -2, -1})}})),
            (std::vector<int32_t>{1, -1, 1, 0}));
  EXPECT_FALSE(
      RunOp({.op_type = "Pow", .inputs = {Make<float>({2}, {1, 2}), Make<float>({3}, {1, 2, 3})}}).ok());
}

TEST(ElementwiseModTest, PythonAndCSigns) {
  const Tensor a = Make<int32_t>({4}, {-4, 4, -4, 5});
  const Tensor b = Make<int32_t>({4}, {3, -3, -3, 3});
  // fmod=0: sign of the divisor (Python): -4 % 3 = 2, 4 % -3 = -2, -4 % -3 = -1, 5 % 3 = 2.
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Mod", .inputs = {a, b}})),
            (std::vector<int32_t>{2, -2, -1, 2}));
  // fmod=1: sign of the dividend (C).
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Mod", .attributes = {{"fmod", IntAttr(1)}}, .inputs = {a, b}})),
            (std::vector<int32_t>{-1, 1, -1, 2}));
  EXPECT_EQ(Values<double>(Run1({.op_type = "Mod",
                                 .attributes = {{"fmod", IntAttr(1)}},
                                 .inputs = {Make<double>({2}, {-4.5, 7}), Make<double>({2}, {2, -3})}})),
            (std::vector<double>{-0.5, 1}));
  EXPECT_EQ(Values<uint8_t>(
                Run1({.op_type = "Mod", .inputs = {Make<uint8_t>({2}, {200, 7}), Make<uint8_t>({}, {7})}})),
            (std::vector<uint8_t>{4, 0}));
  // Floats need fmod=1; integer modulo by zero is an error.
  EXPECT_EQ(RunStatus({.op_type = "Mod", .inputs = {Make<float>({1}, {1}), Make<float>({1}, {2})}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunStatus({.op_type = "Mod", .inputs = {Make<int32_t>({1}, {1}), Make<int32_t>({1}, {0})}}).code(),
      StatusCode::kInvalidArgument);
}

TEST(ElementwiseBitShiftTest, LeftRightAndWideShifts) {
  const Tensor x = Make<uint8_t>({4}, {1, 16, 255, 3});
  const Tensor s = Make<uint8_t>({4}, {1, 2, 8, 7});
  EXPECT_EQ(
      Values<uint8_t>(
          Run1({.op_type = "BitShift", .attributes = {{"direction", StringAttr("LEFT")}}, .inputs = {x, s}})),
      (std::vector<uint8_t>{2, 64, 0, 128}));
  EXPECT_EQ(
      Values<uint8_t>(Run1(
          {.op_type = "BitShift", .attributes = {{"direction", StringAttr("RIGHT")}}, .inputs = {x, s}})),
      (std::vector<uint8_t>{0, 4, 0, 0}));
  EXPECT_EQ(Values<uint64_t>(Run1({.op_type = "BitShift",
                                   .attributes = {{"direction", StringAttr("LEFT")}},
                                   .inputs = {Make<uint64_t>({1}, {1}), Make<uint64_t>({1}, {40})}})),
            (std::vector<uint64_t>{uint64_t{1} << 40}));
  EXPECT_EQ(
      RunStatus({.op_type = "BitShift", .attributes = {{"direction", StringAttr("UP")}}, .inputs = {x, s}})
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus({.op_type = "BitShift",
                       .attributes = {{"direction", StringAttr("LEFT")}},
                       .inputs = {Make<int32_t>({1}, {1}), Make<int32_t>({1}, {1})}})
                .code(),
            StatusCode::kUnsupported);
}

TEST(ElementwiseLogicTest, AndOrXorBroadcast) {
  const Tensor a = Bools({2, 2}, {0, 0, 1, 1});
  const Tensor b = Bools({2}, {0, 1});
  EXPECT_EQ(BoolValues(Run1({.op_type = "And", .inputs = {a, b}})), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "Or", .inputs = {a, b}})), (std::vector<int>{0, 1, 1, 1}));
  Tensor x = Run1({.op_type = "Xor", .inputs = {a, b}});
  EXPECT_EQ(x.dtype(), DType::kBool);
  EXPECT_EQ(BoolValues(x), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(
      RunStatus({.op_type = "And", .inputs = {Make<int32_t>({1}, {1}), Make<int32_t>({1}, {1})}}).code(),
      StatusCode::kUnsupported);
}

TEST(ElementwiseCompareTest, AllComparisons) {
  const Tensor a = Make<int64_t>({3}, {1, 2, 3});
  const Tensor b = Make<int64_t>({}, {2});
  EXPECT_EQ(BoolValues(Run1({.op_type = "Equal", .inputs = {a, b}})), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "Greater", .inputs = {a, b}})), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "Less", .inputs = {a, b}})), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "GreaterOrEqual", .inputs = {a, b}})), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "LessOrEqual", .inputs = {a, b}})), (std::vector<int>{1, 1, 0}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor eq = Run1({.op_type = "Equal", .inputs = {Make<float>({2}, {nan, 1}), Make<float>({2}, {nan, 1})}});
  EXPECT_EQ(eq.dtype(), DType::kBool);
  EXPECT_EQ(BoolValues(eq), (std::vector<int>{0, 1}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "Equal", .inputs = {Bools({2}, {1, 0}), Bools({2}, {1, 1})}})),
            (std::vector<int>{1, 0}));
  EXPECT_FALSE(
      RunOp({.op_type = "Less", .inputs = {Make<float>({2}, {1, 2}), Make<float>({3}, {1, 2, 3})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "GreaterOrEqual", .opset = 11, .inputs = {a, b}}).ok());  // opset 12+
}

TEST(ElementwiseWhereTest, ThreeWayBroadcast) {
  // cond [2,1], x [1,3], y scalar -> [2,3].
  Tensor out =
      Run1({.op_type = "Where",
            .inputs = {Bools({2, 1}, {1, 0}), Make<float>({1, 3}, {1, 2, 3}), Make<float>({}, {-1})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 3, -1, -1, -1}));
  out = Run1({.op_type = "Where",
              .inputs = {Bools({2, 2}, {1, 0, 0, 1}), Make<int64_t>({2, 2}, {1, 2, 3, 4}),
                         Make<int64_t>({2, 2}, {5, 6, 7, 8})}});
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 6, 7, 4}));
  EXPECT_EQ(RunStatus({.op_type = "Where",
                       .inputs = {Bools({3}, {1, 0, 1}), Make<float>({2}, {1, 2}), Make<float>({2}, {1, 2})}})
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus({.op_type = "Where",
                       .inputs = {Make<float>({1}, {1}), Make<float>({1}, {1}), Make<float>({1}, {2})}})
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ElementwiseVariadicTest, MaxMinSumMean) {
  const Tensor a = Make<float>({3}, {1, 5, 3});
  const Tensor b = Make<float>({2, 1}, {2, 4});
  const Tensor c = Make<float>({}, {3});
  // Broadcast to [2,3].
  EXPECT_EQ(Values<float>(Run1({.op_type = "Max", .inputs = {a, b, c}})),
            (std::vector<float>{3, 5, 3, 4, 5, 4}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Min", .inputs = {a, b, c}})),
            (std::vector<float>{1, 2, 2, 1, 3, 3}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Sum", .inputs = {a, b, c}})),
            (std::vector<float>{6, 10, 8, 8, 12, 10}));
  EXPECT_EQ(Values<float>(Run1({.op_type = "Mean", .inputs = {a, b, c}})),
            (std::vector<float>{2, 10.0f / 3, 8.0f / 3, 8.0f / 3, 4, 10.0f / 3}));
  Tensor one = Run1({.op_type = "Sum", .inputs = {a}});
  EXPECT_EQ(Values<float>(one), (std::vector<float>{1, 5, 3}));
  EXPECT_EQ(
      Values<uint16_t>(
          Run1({.op_type = "Max", .inputs = {Make<uint16_t>({2}, {1, 60000}), Make<uint16_t>({2}, {7, 2})}})),
      (std::vector<uint16_t>{7, 60000}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor m = Run1({.op_type = "Max", .inputs = {Make<float>({2}, {nan, 1}), Make<float>({2}, {1, nan})}});
  EXPECT_TRUE(std::isnan(m.data<float>()[0]) && std::isnan(m.data<float>()[1]));
}

TEST(ElementwiseVariadicTest, Errors) {
  EXPECT_EQ(
      RunStatus({.op_type = "Max", .inputs = {Make<float>({2}, {1, 2}), Make<float>({3}, {1, 2, 3})}}).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus({.op_type = "Sum", .inputs = {Make<float>({1}, {1}), Make<double>({1}, {1})}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunStatus({.op_type = "Mean", .inputs = {Make<int32_t>({1}, {1}), Make<int32_t>({1}, {1})}}).code(),
      StatusCode::kUnsupported);
  EXPECT_FALSE(RunOp({.op_type = "Min", .inputs = {}}).ok());
}

}  // namespace
}  // namespace npugap
