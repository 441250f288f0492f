// Activation ops: expected values from each op's formula in the ONNX spec, worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Runs a float32 activation and checks the outputs within `tol` (absolute).
void ExpectActivation(const std::string& op, std::map<std::string, ir::Attribute> attributes,
                      std::vector<float> in, std::vector<float> expected, float tol = 1e-6f) {
  const Tensor out = Run1({.op_type = op,
                           .attributes = std::move(attributes),
                           .inputs = {Make<float>({static_cast<int64_t>(in.size())}, in)}});
  ExpectFloatValues(out, expected, tol, op);
}

TEST(ActivationTest, ReluFamily) {
  ExpectActivation("Relu", {}, {-2, 0, 3, kNaN}, {0, 0, 3, kNaN});
  ExpectActivation("LeakyRelu", {}, {-2, 0, 3}, {-0.02f, 0, 3});
  ExpectActivation("LeakyRelu", {{"alpha", FloatAttr(0.5f)}}, {-2, 4}, {-1, 4});
  ExpectActivation("ThresholdedRelu", {}, {0.5f, 1, 1.5f, -3}, {0, 0, 1.5f, 0});
  ExpectActivation("ThresholdedRelu", {{"alpha", FloatAttr(-4)}}, {-3, -5}, {-3, 0});
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Relu", .inputs = {Make<int32_t>({3}, {-7, 0, 7})}})),
            (std::vector<int32_t>{0, 0, 7}));
}

TEST(ActivationTest, ExponentialUnits) {
  // Elu: alpha * (e^x - 1) below 0; e^-1 - 1 = -0.6321205588.
  ExpectActivation("Elu", {}, {-1, 0, 2}, {-0.6321205588f, 0, 2});
  ExpectActivation("Elu", {{"alpha", FloatAttr(2)}}, {-1, 2}, {-1.2642411177f, 2});
  // Selu with the spec's alpha 1.6732632 and gamma 1.0507010: gamma * alpha * (e^-1 - 1) = -1.1113307.
  ExpectActivation("Selu", {}, {-1, 0, 2}, {-1.1113307f, 0, 2.101402f}, 2e-6f);
  ExpectActivation("Selu", {{"alpha", FloatAttr(2)}, {"gamma", FloatAttr(3)}}, {-1, 1},
                   {3 * 2 * -0.6321205588f, 3}, 2e-6f);
  // Celu: alpha * (e^(x / alpha) - 1) below 0: alpha 2, x -2 -> 2 * (e^-1 - 1).
  ExpectActivation("Celu", {{"alpha", FloatAttr(2)}}, {-2, 0, 3}, {-1.2642411177f, 0, 3});
  ExpectActivation("Celu", {}, {-1}, {-0.6321205588f});
}

TEST(ActivationTest, SigmoidLike) {
  // 1 / (1 + e^-1) = 0.7310585786; large magnitudes saturate without NaN.
  ExpectActivation("Sigmoid", {}, {0, 1, -1, 100, -100, -1000},
                   {0.5f, 0.7310585786f, 0.2689414214f, 1, 0, 0});
  ExpectActivation("HardSigmoid", {}, {-3, 0, 1, 3, kNaN}, {0, 0.5f, 0.7f, 1, kNaN});
  ExpectActivation("HardSigmoid", {{"alpha", FloatAttr(0.5f)}, {"beta", FloatAttr(0.25f)}}, {1}, {0.75f});
  // HardSwish: x * clamp(x / 6 + 0.5, 0, 1).
  ExpectActivation("HardSwish", {}, {-4, -1, 0, 1, 4}, {0, -1.0f / 3, 0, 2.0f / 3, 4});
  // Softplus: ln(1 + e^x); ln 2 = 0.6931471806, ln(1 + e) = 1.3132616875.
  ExpectActivation("Softplus", {}, {0, 1, 100, -100}, {0.6931471806f, 1.3132616875f, 100, 0});
  ExpectActivation("Softsign", {}, {-3, 0, 1}, {-0.75f, 0, 0.5f});
}

TEST(ActivationTest, Shrink) {
  ExpectActivation("Shrink", {}, {-1, -0.5f, 0, 0.5f, 2}, {-1, 0, 0, 0, 2});
  ExpectActivation("Shrink", {{"lambd", FloatAttr(1)}, {"bias", FloatAttr(0.5f)}}, {-2, -1, 1, 2},
                   {-1.5f, 0, 0, 1.5f});
  EXPECT_EQ(Values<int32_t>(Run1({.op_type = "Shrink",
                                  .attributes = {{"lambd", FloatAttr(1.5f)}, {"bias", FloatAttr(1)}},
                                  .inputs = {Make<int32_t>({4}, {-3, -1, 1, 3})}})),
            (std::vector<int32_t>{-2, 0, 0, 2}));
}

TEST(ActivationTest, PReluBroadcastsSlope) {
  // X [2,3,2], slope [3,1]: one slope per channel.
  Tensor out = Run1({.op_type = "PRelu",
                     .inputs = {Make<float>({2, 3, 2}, {-1, 1, -1, 1, -1, 1, -2, 2, -2, 2, -2, 2}),
                                Make<float>({3, 1}, {0.1f, 0.2f, 0.3f})}});
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(Values<float>(out),
            (std::vector<float>{-0.1f, 1, -0.2f, 1, -0.3f, 1, -0.2f, 2, -0.4f, 2, -0.6f, 2}));
  out = Run1({.op_type = "PRelu", .inputs = {Make<int64_t>({3}, {-4, 0, 4}), Make<int64_t>({}, {3})}});
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{-12, 0, 4}));
}

TEST(ActivationTest, LegacyPReluSlopePerChannel) {
  // Opset 6: slope [C] applies along X's dim 1 (C = 2), not the last dim.
  Tensor out =
      Run1({.op_type = "PRelu",
            .opset = 6,
            .inputs = {Make<float>({1, 2, 3}, {-1, -1, -1, -1, -1, 1}), Make<float>({2}, {0.5f, 2})}});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-0.5f, -0.5f, -0.5f, -2, -2, 1}));
  EXPECT_EQ(RunOp({.op_type = "PRelu",
                   .opset = 6,
                   .inputs = {Make<float>({1, 2, 3}, std::vector<float>(6)),
                              Make<float>({4}, std::vector<float>(4))}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ActivationTest, Errors) {
  // PRelu's slope must broadcast to X's shape (unidirectionally).
  EXPECT_EQ(RunOp({.op_type = "PRelu",
                   .inputs = {Make<float>({3}, {1, 2, 3}), Make<float>({2, 3}, std::vector<float>(6))}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp({.op_type = "PRelu", .inputs = {Make<float>({3}, {1, 2, 3}), Make<float>({2}, {1, 2})}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp({.op_type = "PRelu", .inputs = {Make<float>({1}, {1})}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp({.op_type = "Sigmoid", .inputs = {Make<int32_t>({1}, {1})}}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOp({.op_type = "Relu", .inputs = {Make<uint8_t>({1}, {1})}}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(
      RunOp({.op_type = "Celu", .attributes = {{"alpha", FloatAttr(0)}}, .inputs = {Make<float>({1}, {1})}})
          .status()
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_FALSE(RunOp({.op_type = "HardSwish", .opset = 13, .inputs = {Make<float>({1}, {1})}}).ok());
}

TEST(ActivationTest, Float16AndDouble) {
  Tensor x = Tensor::Empty(DType::kFloat16, {3});
  const float in[] = {-2.0f, 0.0f, 1.5f};
  for (int i = 0; i < 3; ++i) x.data<uint16_t>()[i] = numerics::FloatToHalf(in[i]);
  Tensor out = Run1({.op_type = "LeakyRelu", .attributes = {{"alpha", FloatAttr(0.5f)}}, .inputs = {x}});
  ASSERT_EQ(out.dtype(), DType::kFloat16);
  EXPECT_EQ(numerics::HalfToFloat(out.data<uint16_t>()[0]), -1.0f);
  EXPECT_EQ(numerics::HalfToFloat(out.data<uint16_t>()[1]), 0.0f);
  EXPECT_EQ(numerics::HalfToFloat(out.data<uint16_t>()[2]), 1.5f);
  out = Run1({.op_type = "Sigmoid", .inputs = {Make<double>({2}, {0, -1})}});
  EXPECT_EQ(out.dtype(), DType::kFloat64);
  EXPECT_DOUBLE_EQ(out.data<double>()[0], 0.5);
  EXPECT_NEAR(out.data<double>()[1], 0.2689414213699951, 1e-15);
}

}  // namespace
}  // namespace npugap
