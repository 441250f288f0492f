// The backprop-input convolution stores its output in fp16 whatever the record labels it
// (cost_model_conv_dtype.cc: TBE's Ascend 910 op info lists y "float16,int32", and both of TBE's
// backprop-input patterns cast the L0C sums to float16 in UB). Forward convolutions and weight
// gradients keep their labels.
#include <gtest/gtest.h>

#include "../../../src/analysis/perf/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfConvDtype, OnlyTheBackpropInputConvolutionWritesFp16Only) {
  EXPECT_TRUE(internal::CubeWritesFp16Only("Conv2DBackpropInput"));
  EXPECT_TRUE(internal::CubeWritesFp16Only("Conv2DTranspose"));
  EXPECT_FALSE(internal::CubeWritesFp16Only("Conv2D"));
  EXPECT_FALSE(internal::CubeWritesFp16Only("Conv2DBackpropFilter"));
  EXPECT_FALSE(internal::CubeWritesFp16Only("FusedDbnDw"));
  EXPECT_FALSE(internal::CubeWritesFp16Only("MatMul"));
}

TEST(PerfConvDtype, ABackpropInputsFloat32OutputIsStoredAsFp16AForwardOnesAsLabelled) {
  const auto& t = Ascend910();
  const Kernel dx =
      K("Conv2DBackpropInput", 28, {"NC1HWC0:float32:32x8x56x56x16", "FracZ:float32:16x8x16x16"},
        {"NC1HWC0:float32:32x16x56x56x16"});
  const auto s = internal::DeriveCubeShape("Conv2DBackpropInput", dx, t);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->out_bytes, 2);
  const Kernel y = K("Conv2D", 28, {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:16x8x16x16"},
                     {"NC1HWC0:float32:32x8x56x56x16"});
  const auto f = internal::DeriveCubeShape("Conv2D", y, t);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->out_bytes, 4);
}

// A float32 label on dx (and on the fused AddN's addend, which shares dx's type) costs what the
// float16 label does: the kernel moves and computes the same fp16 maps either way.
TEST(PerfConvDtype, AFusedBackpropInputCostsTheSameUnderEitherLabel) {
  const auto& t = Ascend910();
  const auto record = [](const std::string& dtype) {
    return K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 28,
             {"NC1HWC0:" + dtype + ":32x4x56x56x16", "FracZ:" + dtype + ":16x4x16x16",
              "NC1HWC0:" + dtype + ":32x16x56x56x16", "ND:uint32:32x16x56x56x2"},
             {"NC1HWC0:" + dtype + ":32x16x56x56x16"});
  };
  const KernelCost fp32 = PredictKernel(record("float32"), t);
  const KernelCost fp16 = PredictKernel(record("float16"), t);
  ASSERT_TRUE(fp32.known && fp16.known);
  EXPECT_GT(fp16.time_us, 0);
  EXPECT_DOUBLE_EQ(fp32.time_us, fp16.time_us);
  // The plain kernel too: halving dx's bytes may not make it slower (the output counted at one
  // size by the cube and at another by the kernel's byte total would be charged as extra moves).
  const Kernel plain32 =
      K("Conv2DBackpropInput", 28, {"NC1HWC0:float32:32x8x56x56x16", "FracZ:float32:16x8x16x16"},
        {"NC1HWC0:float32:32x16x56x56x16"});
  const Kernel plain16 =
      K("Conv2DBackpropInput", 28, {"NC1HWC0:float16:32x8x56x56x16", "FracZ:float16:16x8x16x16"},
        {"NC1HWC0:float16:32x16x56x56x16"});
  EXPECT_DOUBLE_EQ(PredictKernel(plain32, t).time_us, PredictKernel(plain16, t).time_us);
}

// A forward convolution's float32 output stays 4 bytes: its label is not covered by the rule.
TEST(PerfConvDtype, AForwardConvolutionsFloat32OutputCostsMoreThanFp16) {
  const auto& t = Ascend910();
  const auto record = [](const std::string& out) {
    return K("Conv2D", 28, {"NC1HWC0:float16:32x16x56x56x16", "FracZ:float16:16x4x16x16"},
             {"NC1HWC0:" + out + ":32x4x56x56x16"});
  };
  EXPECT_GT(PredictKernel(record("float32"), t).time_us, PredictKernel(record("float16"), t).time_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
