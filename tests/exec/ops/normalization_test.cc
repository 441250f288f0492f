// Tests of the normalization family (BatchNormalization, InstanceNormalization,
// LayerNormalization, LpNormalization, LRN, MeanVarianceNormalization and the losses). Expected
// values are worked out by hand from the formulas of the ONNX operator docs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "npugap/numerics/half.h"
#include "op_test_expect.h"

namespace npugap {
namespace {

TEST(NormalizationBatchNorm, Inference) {
  // Channel 0: mean 0, var 1, scale 1, B 0 -> y = x. Channel 1: mean 1, var 4, scale 2, B 1
  // -> y = (x - 1) / 2 * 2 + 1 = x.  Use B = 3 to see the shift: y = x + 2.
  Tensor x = F32({1, 2, 1, 2}, {1, 2, 3, 5});
  OpCall call{"BatchNormalization",
              "",
              15,
              {{"epsilon", FloatAttr(0)}},
              {x, F32({2}, {1, 2}), F32({2}, {0, 3}), F32({2}, {0, 1}), F32({2}, {1, 4})}};
  ExpectNearRelative(RunAll(call)[0], {1, 2, 1, 2}, {1, 2, 5, 7});
  // Opset 6 (is_test attribute, same inference formula) and a 2-D input.
  call.opset = 6;
  call.attributes["is_test"] = IntAttr(1);
  call.inputs[0] = F32({2, 2}, {1, 3, 2, 5});
  ExpectNearRelative(RunAll(call)[0], {2, 2}, {1, 5, 2, 7});
}

TEST(NormalizationBatchNorm, TrainingMode) {
  // x: channel 0 = [1, 3] -> mean 2, var 1; channel 1 = [2, 2] -> mean 2, var 0.
  Tensor x = F32({2, 2}, {1, 2, 3, 2});
  OpCall call{"BatchNormalization",
              "",
              15,
              {{"epsilon", FloatAttr(0)}, {"training_mode", IntAttr(1)}, {"momentum", FloatAttr(0.5f)}},
              {x, F32({2}, {1, 1}), F32({2}, {0, 0}), F32({2}, {0, 10}), F32({2}, {1, 1})},
              3};
  call.attributes["epsilon"] = FloatAttr(1e-6f);
  std::vector<Tensor> out = RunAll(call);
  ExpectNearRelative(out[0], {2, 2}, {-1, 0, 1, 0}, 1e-4f);
  ExpectNearRelative(out[1], {2}, {1, 6});     // 0.5 * [0, 10] + 0.5 * [2, 2]
  ExpectNearRelative(out[2], {2}, {1, 0.5f});  // 0.5 * [1, 1] + 0.5 * [1, 0]
}

TEST(NormalizationBatchNorm, NonSpatialOpset7) {
  // spatial = 0: one statistic per activation (C x D = 2 x 1 here, params of shape 2x1).
  Tensor x = F32({1, 2, 1}, {4, 9});
  OpCall call{"BatchNormalization",
              "",
              7,
              {{"epsilon", FloatAttr(0)}, {"spatial", IntAttr(0)}},
              {x, F32({2, 1}, {1, 1}), F32({2, 1}, {0, 0}), F32({2, 1}, {2, 1}), F32({2, 1}, {4, 16})}};
  ExpectNearRelative(RunAll(call)[0], {1, 2, 1}, {1, 2});
}

TEST(NormalizationBatchNorm, Errors) {
  Tensor x = F32({1, 2, 1, 1}, {1, 2});
  OpCall call{"BatchNormalization",
              "",
              15,
              {},
              {x, F32({3}, {1, 1, 1}), F32({2}, {0, 0}), F32({2}, {0, 0}), F32({2}, {1, 1})}};
  EXPECT_FALSE(RunOp(call).ok());
  call.inputs[1] = F32({2}, {1, 1});
  call.inputs[0] = F32({2}, {1, 2});  // rank 1
  EXPECT_FALSE(RunOp(call).ok());
}

TEST(NormalizationInstanceNorm, PerChannel) {
  // Channel 0 = [1, 2, 3, 4]: mean 2.5, var 1.25. Channel 1 = [2, 2, 2, 2]: var 0 -> y = B.
  Tensor x = F32({1, 2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  OpCall call{"InstanceNormalization",
              "",
              6,
              {{"epsilon", FloatAttr(1e-12f)}},
              {x, F32({2}, {2, 1}), F32({2}, {1, 7})}};
  const float s = 1 / std::sqrt(1.25f);
  ExpectNearRelative(RunAll(call)[0], {1, 2, 4}, {1 - 3 * s, 1 - s, 1 + s, 1 + 3 * s, 7, 7, 7, 7}, 1e-4f);
  call.inputs[2] = F32({3}, {0, 0, 0});
  EXPECT_FALSE(RunOp(call).ok());
}

TEST(NormalizationLayerNorm, LastAxisWithStatistics) {
  // Row [1, 2, 3]: mean 2, var 2/3. Row [4, 4, 4]: var 0 -> y = B.
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 4, 4});
  OpCall call{"LayerNormalization",
              "",
              17,
              {{"epsilon", FloatAttr(0)}},
              {x, F32({3}, {1, 1, 2}), F32({3}, {0, 0, 1})},
              3};
  call.attributes["epsilon"] = FloatAttr(1e-12f);
  std::vector<Tensor> out = RunAll(call);
  const float s = 1 / std::sqrt(2.0f / 3.0f);
  ExpectNearRelative(out[0], {2, 3}, {-s, 0, 2 * s + 1, 0, 0, 1}, 1e-4f);
  ExpectNearRelative(out[1], {2, 1}, {2, 4});
  EXPECT_NEAR(out[2].data<float>()[0], s, 1e-4f);
}

TEST(NormalizationLayerNorm, Axis0AndBroadcastScale) {
  // axis 0 of 2x2: one row [1, 3, 5, 7]: mean 4, var 5. Scale of shape [2] broadcasts over 2x2.
  Tensor x = F32({2, 2}, {1, 3, 5, 7});
  OpCall call{"LayerNormalization",  "", 17, {{"axis", IntAttr(0)}, {"epsilon", FloatAttr(0)}},
              {x, F32({2}, {1, 2})}, 1};
  const float s = 1 / std::sqrt(5.0f);
  ExpectNearRelative(RunAll(call)[0], {2, 2}, {-3 * s, -2 * s, s, 6 * s}, 1e-4f);
}

TEST(NormalizationLayerNorm, Float16KeepsFloat32Statistics) {
  // Row [1, 3]: mean 2, var 1 -> y = [-1, 1]; Mean / InvStdDev stay float32 (stash_type 1).
  Tensor x = Tensor::Empty(ir::DType::kFloat16, {1, 2});
  Tensor scale = Tensor::Empty(ir::DType::kFloat16, {2});
  for (int i = 0; i < 2; ++i) {
    x.data<uint16_t>()[i] = numerics::FloatToHalf(i == 0 ? 1.0f : 3.0f);
    scale.data<uint16_t>()[i] = numerics::FloatToHalf(1.0f);
  }
  std::vector<Tensor> out =
      RunAll(OpCall{"LayerNormalization", "", 17, {{"epsilon", FloatAttr(0)}}, {x, scale}, 3});
  ASSERT_EQ(out[0].dtype(), ir::DType::kFloat16);
  EXPECT_EQ(numerics::HalfToFloat(out[0].data<uint16_t>()[0]), -1.0f);
  EXPECT_EQ(numerics::HalfToFloat(out[0].data<uint16_t>()[1]), 1.0f);
  ExpectNearRelative(out[1], {1, 1}, {2});
  ExpectNearRelative(out[2], {1, 1}, {1});
}

TEST(NormalizationLayerNorm, Errors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(RunOp(OpCall{"LayerNormalization", "", 17, {}, {x, F32({2}, {1, 1})}}).ok());
  EXPECT_FALSE(RunOp(OpCall{"LayerNormalization", "", 17, {{"axis", IntAttr(3)}}, {x, F32({1}, {1})}}).ok());
}

TEST(NormalizationLpNorm, P1P2AndZero) {
  ExpectNearRelative(RunAll(OpCall{"LpNormalization", "", 1, {}, {F32({2, 2}, {3, 4, 0, 0})}})[0], {2, 2},
                     {0.6f, 0.8f, 0, 0});
  ExpectNearRelative(RunAll(OpCall{"LpNormalization",
                                   "",
                                   1,
                                   {{"p", IntAttr(1)}, {"axis", IntAttr(0)}},
                                   {F32({2, 2}, {1, -2, 3, 2})}})[0],
                     {2, 2}, {0.25f, -0.5f, 0.75f, 0.5f});
  EXPECT_FALSE(RunOp(OpCall{"LpNormalization", "", 1, {{"p", IntAttr(3)}}, {F32({2}, {1, 2})}}).ok());
  EXPECT_FALSE(RunOp(OpCall{"LpNormalization", "", 1, {{"axis", IntAttr(1)}}, {F32({2}, {1, 2})}}).ok());
}

TEST(NormalizationLrn, AcrossChannels) {
  // alpha / size = 1, beta = 1, bias = 1: y_c = x_c / (1 + sum of x^2 over the window).
  // size 3 -> windows [0, 1], [0, 2], [1, 2]: sums 5, 14, 13.
  Tensor x = F32({1, 3, 1, 1}, {1, 2, 3});
  OpCall call{"LRN",
              "",
              13,
              {{"size", IntAttr(3)}, {"alpha", FloatAttr(3)}, {"beta", FloatAttr(1)}, {"bias", FloatAttr(1)}},
              {x}};
  ExpectNearRelative(RunAll(call)[0], {1, 3, 1, 1}, {1.0f / 6, 2.0f / 15, 3.0f / 14});
  // size 2 -> windows [c, c + 1] (floor((size-1)/2) = 0 before, ceil = 1 after): 5, 13, 9.
  call.attributes["size"] = IntAttr(2);
  call.attributes["alpha"] = FloatAttr(2);
  ExpectNearRelative(RunAll(call)[0], {1, 3, 1, 1}, {1.0f / 6, 2.0f / 14, 3.0f / 10});
  call.attributes["size"] = IntAttr(0);
  EXPECT_FALSE(RunOp(call).ok());
}

TEST(NormalizationMvn, DefaultAxes) {
  // Per channel over N, H, W: channel 0 = [1, 3] -> mean 2, std 1; channel 1 = [2, 6] -> mean 4, std 2.
  Tensor x = F32({1, 2, 1, 2}, {1, 3, 2, 6});
  ExpectNearRelative(RunAll(OpCall{"MeanVarianceNormalization", "", 13, {}, {x}})[0], {1, 2, 1, 2},
                     {-1, 1, -1, 1});
  // axes [1]: pairs across channels: [1, 2] and [3, 6].
  ExpectNearRelative(RunAll(OpCall{"MeanVarianceNormalization", "", 13, {{"axes", IntsAttr({1})}}, {x}})[0],
                     {1, 2, 1, 2}, {-1, -1, 1, 1});
  EXPECT_FALSE(RunOp(OpCall{"MeanVarianceNormalization", "", 13, {{"axes", IntsAttr({4})}}, {x}}).ok());
}

// The ONNX NegativeLogLikelihoodLoss doc example: N = 2, C = 3, d1 = 2.
Tensor NllInput() { return F32({2, 3, 2}, {1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2}); }
Tensor NllTarget() { return I64({2, 2}, {2, 1, 0, 2}); }

TEST(NormalizationLoss, NllReductions) {
  OpCall call{
      "NegativeLogLikelihoodLoss", "", 13, {{"reduction", StringAttr("none")}}, {NllInput(), NllTarget()}};
  ExpectNearRelative(RunAll(call)[0], {2, 2}, {-3, -2, 0, -2});
  call.attributes["reduction"] = StringAttr("sum");
  call.inputs.push_back(F32({3}, {0.2f, 0.3f, 0.1f}));
  ExpectNearRelative(RunAll(call)[0], {}, {-1.1f});
  call.attributes["reduction"] = StringAttr("mean");
  ExpectNearRelative(RunAll(call)[0], {}, {-1.1f / 0.7f});  // weights applied: 0.1 + 0.3 + 0.2 + 0.1
  call.inputs.pop_back();
  ExpectNearRelative(RunAll(call)[0], {}, {-7.0f / 4});
}

TEST(NormalizationLoss, NllIgnoreIndex) {
  // Ignoring class 2 drops samples (0, 0) and (1, 1): mean of -2 and -0 over 2 samples.
  OpCall call{"NegativeLogLikelihoodLoss", "", 13, {{"ignore_index", IntAttr(2)}}, {NllInput(), NllTarget()}};
  ExpectNearRelative(RunAll(call)[0], {}, {-1});
  // ignore_index outside [0, C) is fine as long as only ignored targets use it.
  call.attributes["ignore_index"] = IntAttr(-1);
  call.inputs[1] = I64({2, 2}, {-1, 1, 0, -1});
  ExpectNearRelative(RunAll(call)[0], {}, {-1});
}

TEST(NormalizationLoss, NllErrors) {
  OpCall call{"NegativeLogLikelihoodLoss", "", 13, {}, {NllInput(), I64({2, 2}, {3, 0, 0, 0})}};
  EXPECT_FALSE(RunOp(call).ok());  // target 3 >= C
  call.inputs[1] = I64({2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_FALSE(RunOp(call).ok());  // shape
  call.inputs[1] = NllTarget();
  call.attributes["reduction"] = StringAttr("avg");
  EXPECT_FALSE(RunOp(call).ok());
}

TEST(NormalizationLoss, SoftmaxCrossEntropy) {
  // scores [0, 0] -> log_prob [-log 2, -log 2]; scores [0, log 3] -> log_prob [-log 4, log 3 - log 4].
  const float l2 = std::log(2.0f), l3 = std::log(3.0f), l4 = std::log(4.0f);
  Tensor scores = F32({2, 2}, {0, 0, 0, l3});
  OpCall call{"SoftmaxCrossEntropyLoss",  "", 13, {{"reduction", StringAttr("none")}},
              {scores, I64({2}, {1, 1})}, 2};
  std::vector<Tensor> out = RunAll(call);
  ExpectNearRelative(out[0], {2}, {l2, l4 - l3});
  ExpectNearRelative(out[1], {2, 2}, {-l2, -l2, -l4, l3 - l4});
  call.attributes["reduction"] = StringAttr("mean");
  call.inputs.push_back(F32({2}, {1, 3}));
  ExpectNearRelative(RunAll(call)[0], {}, {(3 * l2 + 3 * (l4 - l3)) / 6});
  call.inputs[2] = F32({3}, {1, 1, 1});
  EXPECT_FALSE(RunOp(call).ok());
}

}  // namespace
}  // namespace npugap
