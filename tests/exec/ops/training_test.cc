#include <gtest/gtest.h>

#include <cmath>

#include "op_test_expect.h"

namespace npugap {
namespace {

OpCall TrainingCall(const std::string& op) {
  OpCall call{op, "ai.onnx.preview.training"};
  call.opset = 1;
  return call;
}

ir::Tensor F(std::vector<float> v) {
  return ir::Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v);
}

TEST(TrainingOps, MomentumStandardFirstStepTakesTheWholeGradient) {
  OpCall call = TrainingCall("Momentum");
  call.attributes = {{"alpha", FloatAttr(0.9f)}, {"beta", FloatAttr(0.5f)}};
  call.inputs = {ir::Tensor::FromVector<float>({}, {0.1f}), ir::Tensor::FromVector<int64_t>({}, {0}),
                 F({1.0f}), F({2.0f}), F({0.0f})};
  call.num_outputs = 2;
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  // T = 0: beta adjusted to 1, V = 0.9*0 + 2 = 2, X = 1 - 0.1*2 = 0.8.
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[0], 2.0f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 0.8f);
}

TEST(TrainingOps, AdamAppliesBiasCorrection) {
  OpCall call = TrainingCall("Adam");
  call.inputs = {ir::Tensor::FromVector<float>({}, {0.1f}),
                 ir::Tensor::FromVector<int64_t>({}, {1}),
                 F({1.0f}),
                 F({0.5f}),
                 F({0.0f}),
                 F({0.0f})};
  call.num_outputs = 3;
  auto out = RunOp(call);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const double v = 0.1 * 0.5, h = 0.001 * 0.25;
  const double r = 0.1 * std::sqrt(1 - 0.999) / (1 - 0.9);
  EXPECT_NEAR((*out)[1].data<float>()[0], v, 1e-7);
  EXPECT_NEAR((*out)[2].data<float>()[0], h, 1e-4 * h);  // 1 - 0.999f is only float-accurate
  EXPECT_NEAR((*out)[0].data<float>()[0], 1.0 - r * v / (std::sqrt(h) + 1e-6), 1e-5);
}

TEST(TrainingOps, AdagradRejectsIncompleteGroups) {
  OpCall call = TrainingCall("Adagrad");
  call.inputs = {ir::Tensor::FromVector<float>({}, {0.1f}), ir::Tensor::FromVector<int64_t>({}, {1}),
                 F({1.0f}), F({0.5f})};
  call.num_outputs = 2;
  EXPECT_FALSE(RunOp(call).ok());
}

}  // namespace
}  // namespace npugap
