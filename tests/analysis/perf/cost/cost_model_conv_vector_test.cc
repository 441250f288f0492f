// The vector parts of a convolution kernel: BNTrainingReduce computes in float32 (TBE's
// bn_training_reduce_compute casts a float16 x to float32 before its vmul and tuple_sum), and the
// parts compute on the convolution's output map C, not on the largest operand.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

// A 1x1 forward convolution of `cin_blocks` x 16 channels onto 64, fused with the BN sums.
KernelCost ConvBnReduce(int cin_blocks, const target::Target& t) {
  const std::string c = std::to_string(cin_blocks);
  return PredictKernel(
      K("FusionOp_Conv2D_BNTrainingReduce", 32,
        {"NC1HWC0:float16:32x" + c + "x56x56x16", "FracZ:float16:" + c + "x4x16x16"},
        {"NC1HWC0:float16:32x4x56x56x16", "NC1HWC0:float32:1x4x1x1x16", "NC1HWC0:float32:1x4x1x1x16"}),
      t);
}

TEST(PerfConvVector, BnTrainingReduceComputesInFloat32) {
  const auto rule = internal::FindVectorRule("BNTrainingReduce");
  ASSERT_TRUE(rule.has_value());
  EXPECT_TRUE(rule->ops.fp32);
  EXPECT_DOUBLE_EQ(rule->ops.simple, 3);
  // Fused after a convolution, on a float16 y: 3 float32 ops and y's cast per element of y, at the
  // profile's float32 simple rate, over 32 cores.
  const auto& t = Ascend910WithoutHeads();
  internal::VectorOps four;
  four.simple = 4;
  const double expected_us = 1e6 * internal::VectorTime(32LL * 4 * 56 * 56 * 16, four, "float32", t) / 32;
  EXPECT_NEAR(ConvBnReduce(16, t).vector_us, expected_us, 1e-6 * expected_us);
}

TEST(PerfConvVector, FusedPartsRunOverTheConvolutionsOutputNotItsLargestInput) {
  const auto& t = Ascend910WithoutHeads();
  // 256 -> 64 and 128 -> 64 channels: the same y, x 4x and 2x its size.
  const KernelCost wide = ConvBnReduce(16, t), narrow = ConvBnReduce(8, t);
  EXPECT_GT(wide.vector_us, 0);
  EXPECT_DOUBLE_EQ(wide.vector_us, narrow.vector_us);
  // A backprop input whose dy is wider than dx: the ReLU gradient runs over dx.
  const auto dx = [&](int dy_blocks) {
    const std::string c = std::to_string(dy_blocks);
    return PredictKernel(K("FusionOp_Conv2DBackpropInput_ReluGradV2", 32,
                           {"NC1HWC0:float16:32x" + c + "x28x28x16", "FracZ:float16:4x" + c + "x16x16",
                            "ND:uint8:32x4x28x28x2"},
                           {"NC1HWC0:float16:32x4x28x28x16"}),
                         t)
        .vector_us;
  };
  EXPECT_GT(dx(16), 0);
  EXPECT_DOUBLE_EQ(dx(16), dx(8));
}

}  // namespace
}  // namespace npugap::analysis::perf
