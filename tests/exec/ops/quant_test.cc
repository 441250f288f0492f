// Tests of the quant family. Expected values are worked out by hand from the ONNX formulas
// (round half to even, saturate to the 8-bit range).
#include <gtest/gtest.h>

#include "op_test_expect.h"

namespace npugap {
namespace {

Tensor U8(Shape shape, std::vector<uint8_t> v) { return Tensor::FromVector<uint8_t>(std::move(shape), v); }
Tensor I8(Shape shape, std::vector<int8_t> v) { return Tensor::FromVector<int8_t>(std::move(shape), v); }

TEST(QuantQuantizeLinear, RoundsHalfToEvenAndSaturates) {
  // x / 2: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -1.5 -> -2; + zero point 10; 600 / 2 + 10 saturates.
  Tensor x = F32({6}, {1, 3, 5, -3, 600, -600});
  auto y = RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({}, {2}), U8({}, {10})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{10, 12, 12, 8, 255, 0}));
  // int8 output, and no zero point means uint8 with zero point 0.
  y = RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({}, {2}), I8({}, {0})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<int8_t>((*y)[0]), (std::vector<int8_t>{0, 2, 2, -2, 127, -128}));
  y = RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({}, {2})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[0].dtype(), DType::kUInt8);
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{0, 2, 2, 0, 255, 0}));
}

TEST(QuantQuantizeLinear, PerAxis) {
  // Axis 1 of a 1x2x2 tensor: channel 0 scale 1 zp 0, channel 1 scale 10 zp 100.
  Tensor x = F32({1, 2, 2}, {1, 2, 10, -20});
  auto y = RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({2}, {1, 10}), U8({2}, {0, 100})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{1, 2, 101, 98}));
  // Axis -1 (last): the same numbers laid out per column.
  y = RunOp({.op_type = "QuantizeLinear",
             .attributes = {{"axis", IntAttr(-1)}},
             .inputs = {x, F32({2}, {1, 10}), U8({2}, {0, 100})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{1, 100, 10, 98}));
  // Errors: wrong count, axis out of range, zero point shape differs, per-axis before opset 13.
  EXPECT_FALSE(RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({3}, {1, 1, 1})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "QuantizeLinear",
                      .attributes = {{"axis", IntAttr(3)}},
                      .inputs = {x, F32({2}, {1, 1})}})
                   .ok());
  EXPECT_FALSE(RunOp({.op_type = "QuantizeLinear", .inputs = {x, F32({2}, {1, 1}), U8({}, {0})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "QuantizeLinear", .opset = 10, .inputs = {x, F32({2}, {1, 1})}}).ok());
  EXPECT_EQ(
      RunOp({.op_type = "QuantizeLinear", .inputs = {Tensor::FromVector<double>({1}, {1}), F32({}, {1})}})
          .status()
          .code(),
      StatusCode::kUnsupported);
}

TEST(QuantDequantizeLinear, PerTensorPerAxisAndInt32) {
  auto y = RunOp(
      {.op_type = "DequantizeLinear", .inputs = {U8({3}, {0, 128, 255}), F32({}, {0.5f}), U8({}, {128})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{-64, 0, 63.5f}));
  y = RunOp({.op_type = "DequantizeLinear",
             .inputs = {I8({2, 2}, {-1, 1, -1, 1}), F32({2}, {2, 3}), I8({2}, {1, -1})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{-4, 6, -4, 6}));  // per column (axis 1)
  y = RunOp({.op_type = "DequantizeLinear",
             .inputs = {Tensor::FromVector<int32_t>({2}, {-7, 9}), F32({}, {0.5f})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{-3.5f, 4.5f}));
  EXPECT_FALSE(
      RunOp({.op_type = "DequantizeLinear", .inputs = {U8({3}, {1, 2, 3}), F32({}, {1}), I8({}, {0})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "DequantizeLinear",
                      .inputs = {Tensor::FromVector<int32_t>({1}, {1}), F32({}, {1}),
                                 Tensor::FromVector<int32_t>({}, {3})}})
                   .ok());
}

TEST(QuantDynamicQuantizeLinear, ScaleZeroPointAndData) {
  // Range [-1, 1.55] -> scale 2.55 / 255 = 0.01, zero point round(1 / 0.01) = 100.
  auto y =
      RunOp({.op_type = "DynamicQuantizeLinear", .inputs = {F32({3}, {-1, 0, 1.55f})}, .num_outputs = 3});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_NEAR((*y)[1].data<float>()[0], 0.01f, 1e-7f);
  EXPECT_EQ((*y)[2].data<uint8_t>()[0], 100);
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{0, 100, 255}));
  // All positive: the range is widened to include 0, so the zero point is 0.
  y = RunOp({.op_type = "DynamicQuantizeLinear", .inputs = {F32({2}, {2.55f, 1.f})}, .num_outputs = 3});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[2].data<uint8_t>()[0], 0);
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{255, 100}));
  EXPECT_EQ(
      RunOp({.op_type = "DynamicQuantizeLinear", .inputs = {U8({1}, {1})}, .num_outputs = 3}).status().code(),
      StatusCode::kUnsupported);
}

TEST(QuantMatMulInteger, ZeroPointsPerTensorAndPerRow) {
  // (A - 1) x (B - 2) with A = [[1, 2], [3, 4]], B = [[2, 3], [4, 5]]:
  // [[0, 1], [2, 3]] x [[0, 1], [2, 3]] = [[2, 3], [6, 11]].
  Tensor a = U8({2, 2}, {1, 2, 3, 4}), b = U8({2, 2}, {2, 3, 4, 5});
  auto y = RunOp({.op_type = "MatMulInteger", .inputs = {a, b, U8({}, {1}), U8({}, {2})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{2, 3, 6, 11}));
  // Per-row A zero points [1, 3]: rows [0, 1] and [0, 1] -> [[2, 3], [2, 3]]; int8 B, no B zp.
  y = RunOp({.op_type = "MatMulInteger", .inputs = {a, I8({2, 1}, {-1, 2}), U8({2}, {1, 3})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{2, 2}));
  // Batched A against one B.
  y = RunOp({.op_type = "MatMulInteger", .inputs = {U8({2, 1, 2}, {1, 0, 0, 1}), b}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{2, 3, 4, 5}));
  EXPECT_FALSE(RunOp({.op_type = "MatMulInteger", .inputs = {a, U8({3, 1}, {1, 2, 3})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "MatMulInteger", .inputs = {a, b, U8({3}, {1, 2, 3})}}).ok());
}

TEST(QuantQLinearMatMul, Requantizes) {
  // a = [10, 12] (zp 10, scale 0.5) -> [0, 2]; b = [[4], [6]] (zp 2, scale 0.25) -> [[2], [4]];
  // real = (0*2 + 2*4) * 0.5 * 0.25 = 1 -> / y_scale 0.1 = 10 -> + zp 20 = 30.
  auto y = RunOp({.op_type = "QLinearMatMul",
                  .inputs = {U8({1, 2}, {10, 12}), F32({}, {0.5f}), U8({}, {10}), U8({2, 1}, {4, 6}),
                             F32({}, {0.25f}), U8({}, {2}), F32({}, {0.1f}), U8({}, {20})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{30}));
  // int8 output saturates: y_scale 0.001 -> 1000 -> 127.
  y = RunOp({.op_type = "QLinearMatMul",
             .inputs = {U8({1, 2}, {10, 12}), F32({}, {0.5f}), U8({}, {10}), U8({2, 1}, {4, 6}),
                        F32({}, {0.25f}), U8({}, {2}), F32({}, {0.001f}), I8({}, {0})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<int8_t>((*y)[0]), (std::vector<int8_t>{127}));
  EXPECT_FALSE(RunOp({.op_type = "QLinearMatMul", .inputs = {U8({1, 2}, {1, 2})}}).ok());
}

TEST(QuantConvInteger, ZeroPointsAndPadding) {
  // x - 2 = [[0, 1], [2, 3]], w - 1 = [[1, 1], [1, 1]] -> 6; padding 1 gives 3x3 partial sums,
  // padding standing for the zero point (contributes nothing).
  Tensor x = U8({1, 1, 2, 2}, {2, 3, 4, 5}), w = U8({1, 1, 2, 2}, {2, 2, 2, 2});
  auto y = RunOp({.op_type = "ConvInteger", .inputs = {x, w, U8({}, {2}), U8({}, {1})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{6}));
  y = RunOp({.op_type = "ConvInteger",
             .attributes = {{"pads", IntsAttr({1, 1, 1, 1})}},
             .inputs = {x, w, U8({}, {2}), U8({}, {1})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{0, 1, 1, 2, 6, 4, 2, 5, 3}));
  // Per-channel w zero points: channel 1's weights equal its zero point -> all zero.
  Tensor w2 = U8({2, 1, 2, 2}, {2, 2, 2, 2, 7, 7, 7, 7});
  y = RunOp({.op_type = "ConvInteger", .inputs = {x, w2, U8({}, {2}), U8({2}, {1, 7})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{6, 0}));
  EXPECT_FALSE(RunOp({.op_type = "ConvInteger", .inputs = {x, w, U8({2}, {1, 2})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "ConvInteger", .inputs = {x, U8({1, 2, 1, 1}, {1, 1})}}).ok());
}

TEST(QuantQLinearConv, RequantizesWithBias) {
  // acc = sum((x - 2) * (w - 1)) = 6, + B 4 = 10; * 0.5 * 0.5 / 0.25 = 10; + y_zp 100 = 110.
  Tensor x = U8({1, 1, 2, 2}, {2, 3, 4, 5}), w = U8({1, 1, 2, 2}, {2, 2, 2, 2});
  auto y = RunOp({.op_type = "QLinearConv",
                  .inputs = {x, F32({}, {0.5f}), U8({}, {2}), w, F32({1}, {0.5f}), U8({1}, {1}),
                             F32({}, {0.25f}), U8({}, {100}), Tensor::FromVector<int32_t>({1}, {4})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{110}));
  // Bias of the wrong type.
  EXPECT_FALSE(RunOp({.op_type = "QLinearConv",
                      .inputs = {x, F32({}, {0.5f}), U8({}, {2}), w, F32({1}, {0.5f}), U8({1}, {1}),
                                 F32({}, {0.25f}), U8({}, {100}), F32({1}, {4})}})
                   .ok());
}

}  // namespace
}  // namespace npugap
