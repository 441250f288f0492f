// Unary elementwise ops and Clip: expected values from the functions' definitions (tabulated
// values of erf, exact trig points) or worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs a float32 unary op and checks every output within `tol` (absolute).
void ExpectUnary(const std::string& op, std::vector<float> in, std::vector<float> expected,
                 float tol = 1e-6f) {
  const Tensor out = Run1({.op_type = op, .inputs = {Make<float>({static_cast<int64_t>(in.size())}, in)}});
  ExpectFloatValues(out, expected, tol, op);
}

TEST(ElementwiseUnaryTest, BasicMath) {
  ExpectUnary("Abs", {-2, 0, 3.5f}, {2, 0, 3.5f});
  ExpectUnary("Neg", {-2, 0, 3.5f}, {2, 0, -3.5f});
  ExpectUnary("Exp", {0, 1, -1}, {1, 2.7182818f, 0.36787944f});
  ExpectUnary("Log", {1, 2.7182818f, 0, -1}, {0, 1, -kInf, kNaN});
  ExpectUnary("Sqrt", {4, 2, -1}, {2, 1.41421356f, kNaN});
  ExpectUnary("Reciprocal", {4, -0.5f, 0}, {0.25f, -2, kInf});
  ExpectUnary("Floor", {1.5f, -1.5f, 2}, {1, -2, 2});
  ExpectUnary("Ceil", {1.5f, -1.5f, 2}, {2, -1, 2});
  // Half to even.
  ExpectUnary("Round", {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f}, {0, 2, 2, 0, -2, 2, -3});
  ExpectUnary("Sign", {-3, 0, 2, kNaN}, {-1, 0, 1, kNaN});
  // erf(0.5) = 0.5204998778, erf(1) = 0.8427007929, erf(-2) = -0.9953222650.
  ExpectUnary("Erf", {0, 0.5f, 1, -2}, {0, 0.5204998778f, 0.8427007929f, -0.9953222650f});
}

TEST(ElementwiseUnaryTest, Trigonometric) {
  const float pi = 3.14159265f;
  ExpectUnary("Sin", {0, pi / 6, pi / 2}, {0, 0.5f, 1});
  ExpectUnary("Cos", {0, pi / 3, pi}, {1, 0.5f, -1});
  ExpectUnary("Tan", {0, pi / 4}, {0, 1});
  ExpectUnary("Asin", {0, 0.5f, 1, 2}, {0, pi / 6, pi / 2, kNaN});
  ExpectUnary("Acos", {1, 0.5f, -1}, {0, pi / 3, pi});
  ExpectUnary("Atan", {0, 1, -1}, {0, pi / 4, -pi / 4});
  // sinh(1) = 1.1752011936, cosh(1) = 1.5430806348, tanh(1) = 0.7615941560.
  ExpectUnary("Sinh", {0, 1}, {0, 1.1752011936f});
  ExpectUnary("Cosh", {0, 1}, {1, 1.5430806348f});
  ExpectUnary("Tanh", {0, 1, -100}, {0, 0.7615941560f, -1});
  // asinh(1) = ln(1 + sqrt 2), acosh(2) = ln(2 + sqrt 3), atanh(0.5) = ln(3) / 2.
  ExpectUnary("Asinh", {0, 1}, {0, 0.8813735870f});
  ExpectUnary("Acosh", {1, 2, 0}, {0, 1.3169578969f, kNaN});
  ExpectUnary("Atanh", {0, 0.5f, 1}, {0, 0.5493061443f, kInf});
}

TEST(ElementwiseUnaryTest, IntegerAbsNegSign) {
  EXPECT_EQ(Values<int8_t>(Run1({.op_type = "Abs", .inputs = {Make<int8_t>({3}, {-5, 7, -128})}})),
            (std::vector<int8_t>{5, 7, -128}));
  EXPECT_EQ(Values<uint32_t>(Run1({.op_type = "Abs", .inputs = {Make<uint32_t>({1}, {4000000000u})}})),
            (std::vector<uint32_t>{4000000000u}));
  EXPECT_EQ(Values<int64_t>(Run1({.op_type = "Neg", .inputs = {Make<int64_t>({2}, {-5, 7})}})),
            (std::vector<int64_t>{5, -7}));
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Sign", .inputs = {Make<int32_t>({3}, {-9, 0, 4})}})),
            (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(RunOp({.op_type = "Neg", .inputs = {Make<uint8_t>({1}, {1})}}).status().code(),
            StatusCode::kUnsupported);
}

TEST(ElementwiseUnaryTest, DoubleAndHalf) {
  Tensor out = Run1({.op_type = "Sqrt", .inputs = {Make<double>({2}, {2, 9})}});
  EXPECT_EQ(out.dtype(), DType::kFloat64);
  EXPECT_DOUBLE_EQ(out.data<double>()[0], 1.4142135623730951);
  EXPECT_DOUBLE_EQ(out.data<double>()[1], 3);
  Tensor half = Tensor::Empty(DType::kBFloat16, {2});
  half.data<uint16_t>()[0] = numerics::FloatToBFloat16(-2.0f);
  half.data<uint16_t>()[1] = numerics::FloatToBFloat16(0.25f);
  out = Run1({.op_type = "Exp", .inputs = {half}});
  ASSERT_EQ(out.dtype(), DType::kBFloat16);
  EXPECT_EQ(out.data<uint16_t>()[0], numerics::FloatToBFloat16(std::exp(-2.0f)));
  EXPECT_EQ(out.data<uint16_t>()[1], numerics::FloatToBFloat16(std::exp(0.25f)));
}

TEST(ElementwiseUnaryTest, UnsupportedTypesAndMissingInput) {
  EXPECT_EQ(RunOp({.op_type = "Exp", .inputs = {Make<int32_t>({1}, {1})}}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOp({.op_type = "IsNaN", .inputs = {Make<int32_t>({1}, {1})}}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(RunOp({.op_type = "Exp", .inputs = {Tensor()}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "Round", .opset = 10, .inputs = {Make<float>({1}, {1})}}).ok());
}

TEST(ElementwiseUnaryTest, IsNaNIsInfNot) {
  const Tensor x = Make<float>({4}, {kNaN, kInf, -kInf, 1});
  Tensor nan = Run1({.op_type = "IsNaN", .inputs = {x}});
  EXPECT_EQ(nan.dtype(), DType::kBool);
  EXPECT_EQ(BoolValues(nan), (std::vector<int>{1, 0, 0, 0}));
  EXPECT_EQ(BoolValues(Run1({.op_type = "IsInf", .inputs = {x}})), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(
      BoolValues(Run1({.op_type = "IsInf", .attributes = {{"detect_negative", IntAttr(0)}}, .inputs = {x}})),
      (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(
      BoolValues(Run1({.op_type = "IsInf", .attributes = {{"detect_positive", IntAttr(0)}}, .inputs = {x}})),
      (std::vector<int>{0, 0, 1, 0}));
  Tensor b = Tensor::Empty(DType::kBool, {3});
  b.data<uint8_t>()[0] = 1;
  b.data<uint8_t>()[1] = 0;
  b.data<uint8_t>()[2] = 1;
  Tensor n = Run1({.op_type = "Not", .inputs = {b}});
  EXPECT_EQ(n.dtype(), DType::kBool);
  EXPECT_EQ(BoolValues(n), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(RunOp({.op_type = "Not", .inputs = {x}}).status().code(), StatusCode::kUnsupported);
}

TEST(ElementwiseClipTest, AttributesBeforeOpset11) {
  const Tensor x = Make<float>({4}, {-3, -0.5f, 0.5f, 3});
  EXPECT_EQ(Values<float>(Run1({.op_type = "Clip",
                                .opset = 6,
                                .attributes = {{"min", FloatAttr(-1)}, {"max", FloatAttr(1)}},
                                .inputs = {x}})),
            (std::vector<float>{-1, -0.5f, 0.5f, 1}));
  // Without attributes nothing is clipped.
  EXPECT_EQ(Values<float>(Run1({.op_type = "Clip", .opset = 6, .inputs = {x}})),
            (std::vector<float>{-3, -0.5f, 0.5f, 3}));
}

TEST(ElementwiseClipTest, OptionalInputsSinceOpset11) {
  const Tensor x = Make<float>({4}, {-3, -0.5f, kNaN, 3});
  Tensor out =
      Run1({.op_type = "Clip", .opset = 11, .inputs = {x, Make<float>({}, {-1}), Make<float>({}, {1})}});
  EXPECT_EQ(out.data<float>()[0], -1);
  EXPECT_EQ(out.data<float>()[1], -0.5f);
  EXPECT_TRUE(std::isnan(out.data<float>()[2]));
  EXPECT_EQ(out.data<float>()[3], 1);
  // Only max given (min omitted).
  out = Run1({.op_type = "Clip", .inputs = {Make<float>({3}, {-5, 0, 5}), Tensor(), Make<float>({}, {2})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-5, 0, 2}));
  // min > max: everything becomes max.
  out = Run1(
      {.op_type = "Clip", .inputs = {Make<float>({2}, {-5, 5}), Make<float>({}, {3}), Make<float>({}, {1})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 1}));
  EXPECT_EQ(Values<int8_t>(Run1({.op_type = "Clip",
                                 .inputs = {Make<int8_t>({3}, {-100, 5, 100}), Make<int8_t>({}, {-10}),
                                            Make<int8_t>({}, {10})}})),
            (std::vector<int8_t>{-10, 5, 10}));
}

TEST(ElementwiseClipTest, BadBounds) {
  const Tensor x = Make<float>({2}, {1, 2});
  EXPECT_EQ(RunOp({.op_type = "Clip", .inputs = {x, Make<float>({2}, {0, 1})}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp({.op_type = "Clip", .inputs = {x, Make<double>({}, {0})}}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace npugap
