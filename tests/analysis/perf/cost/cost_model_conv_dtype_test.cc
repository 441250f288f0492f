// A convolution kernel moves the dtypes its registrations allow (cost_model_conv_dtype.cc):
// float16 maps and weights in, a float16 map out (forward and backprop input), a float32 weight
// gradient, float32 BN sums. The calibration files' labels as written are one MindSpore TypeId
// early (float16 <-> float32); read shifted they already are those dtypes, so a convolution costs
// the same under either reading.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

std::vector<std::string> Dtypes(const std::vector<Operand>& ops) {
  std::vector<std::string> d;
  for (const Operand& op : ops) d.push_back(op.dtype);
  return d;
}

using V = std::vector<std::string>;

}  // namespace
namespace internal {
namespace {
std::optional<Kernel> WithConvolutionDtypesOn910(const Kernel& k) {
  return WithConvolutionDtypes(k, Ascend910());
}
}  // namespace
}  // namespace internal
namespace {

TEST(PerfConvDtype, ConvolutionsMoveTheirRegisteredDtypesWhateverTheLabels) {
  // As the ResNet-50 file writes them: maps and weights "float32", sums and dW "float16".
  const auto fw = internal::WithConvolutionDtypesOn910(
      K("FusionOp_Conv2D_BNTrainingReduce", 16, {"NC1HWC0:float32:32x4x56x56x16", "FracZ:float32:4x4x16x16"},
        {"NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float16:1x4x1x1x16", "NC1HWC0:float16:1x4x1x1x16"}));
  ASSERT_TRUE(fw.has_value());
  EXPECT_EQ(Dtypes(fw->inputs), (V{"float16", "float16"}));
  EXPECT_EQ(Dtypes(fw->outputs), (V{"float16", "float32", "float32"}));
  const auto dx =
      internal::WithConvolutionDtypesOn910(K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 28,
                                             {"NC1HWC0:float32:32x4x56x56x16", "FracZ:float32:16x4x16x16",
                                              "NC1HWC0:float32:32x16x56x56x16", "ND:uint32:32x16x56x56x2"},
                                             {"NC1HWC0:float32:32x16x56x56x16"}));
  ASSERT_TRUE(dx.has_value());
  EXPECT_EQ(Dtypes(dx->inputs), (V{"float16", "float16", "float16", "uint32"}));  // the mask as recorded
  EXPECT_EQ(Dtypes(dx->outputs), (V{"float16"}));
  const auto dw = internal::WithConvolutionDtypesOn910(
      K("Conv2DBackpropFilter", 16, {"NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x4x56x56x16"},
        {"FracZ:float16:4x4x16x16"}));
  ASSERT_TRUE(dw.has_value());
  EXPECT_EQ(Dtypes(dw->inputs), (V{"float16", "float16"}));
  EXPECT_EQ(Dtypes(dw->outputs), (V{"float32"}));
  EXPECT_EQ(dw->outputs[0].shape, (std::vector<int64_t>{4, 4, 16, 16}));
  // An int8 convolution keeps its types; other kernels are not convolutions.
  const auto q = internal::WithConvolutionDtypesOn910(K(
      "Conv2D", 16, {"NC1HWC0:int8:32x4x56x56x16", "FracZ:int8:4x4x16x16"}, {"NC1HWC0:int32:32x4x56x56x16"}));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(Dtypes(q->inputs), (V{"int8", "int8"}));
  EXPECT_EQ(Dtypes(q->outputs), (V{"int32"}));
  EXPECT_FALSE(internal::WithConvolutionDtypesOn910(
                   K("MatMul", 32, {"ND:float32:64x64", "ND:float32:64x64"}, {"ND:float32:64x64"}))
                   .has_value());
  EXPECT_FALSE(
      internal::WithConvolutionDtypesOn910(
          K("BNTrainingUpdate", 32, {"NC1HWC0:float32:32x4x56x56x16"}, {"NC1HWC0:float32:32x4x56x56x16"}))
          .has_value());
}

// On a target whose cube takes float32 (the 910B2's convolutions have float32 kernels), the labels
// stand: a float32 forward convolution then writes 4 bytes per element.
TEST(PerfConvDtype, OnATargetWithAFloat32CubeTheLabelsStand) {
  const auto fp32_cube = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(fp32_cube.ok()) << fp32_cube.status().message();
  const Kernel y = K("Conv2D", 28, {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:16x8x16x16"},
                     {"NC1HWC0:float32:32x8x56x56x16"});
  EXPECT_FALSE(internal::WithConvolutionDtypes(y, *fp32_cube).has_value());
  EXPECT_TRUE(internal::WithConvolutionDtypes(y, Ascend910()).has_value());
  Kernel y16 = y;
  y16.outputs[0].dtype = "float16";
  EXPECT_GT(PredictKernel(y, *fp32_cube).memory_us, PredictKernel(y16, *fp32_cube).memory_us);
  EXPECT_DOUBLE_EQ(PredictKernel(y, Ascend910()).memory_us, PredictKernel(y16, Ascend910()).memory_us);
}

// Each convolution type of the ResNet-50 file costs the same with its labels as written and read
// one TypeId later (float32 <-> float16 swapped).
TEST(PerfConvDtype, AConvolutionCostsTheSameUnderEitherReadingOfTheLabels) {
  const auto& t = Ascend910();
  const auto both = [&](const std::string& type, int bd, const V& in, const V& out) {
    const auto swap = [](V ops) {
      for (std::string& s : ops) {
        if (s.find(":float32:") != std::string::npos)
          s.replace(s.find(":float32:"), 9, ":float16:");
        else if (s.find(":float16:") != std::string::npos)
          s.replace(s.find(":float16:"), 9, ":float32:");
      }
      return ops;
    };
    const KernelCost written = PredictKernel(K(type, bd, in, out), t);
    const KernelCost shifted = PredictKernel(K(type, bd, swap(in), swap(out)), t);
    ASSERT_TRUE(written.known && shifted.known) << type;
    EXPECT_GT(written.time_us, 0) << type;
    EXPECT_DOUBLE_EQ(written.time_us, shifted.time_us) << type;
  };
  both("FusionOp_Conv2D_BNTrainingReduce", 16, {"NC1HWC0:float32:32x4x56x56x16", "FracZ:float32:4x16x16x16"},
       {"NC1HWC0:float32:32x16x56x56x16", "NC1HWC0:float16:1x16x1x1x16", "NC1HWC0:float16:1x16x1x1x16"});
  both("Conv2DBackpropFilter", 16, {"NC1HWC0:float32:32x16x56x56x16", "NC1HWC0:float32:32x4x56x56x16"},
       {"FracZ:float16:4x16x16x16"});
  both("FusionOp_Conv2DBackpropInput_ReluGradV2", 16,
       {"NC1HWC0:float32:32x16x14x14x16", "FracZ:float32:144x16x16x16", "ND:uint32:32x16x28x28x2"},
       {"NC1HWC0:float32:32x16x28x28x16"});
  both("Conv2DBackpropInput", 28, {"NC1HWC0:float32:32x8x56x56x16", "FracZ:float32:16x8x16x16"},
       {"NC1HWC0:float32:32x16x56x56x16"});
}

// The forward convolution writes y in float16 and the weight gradient dW in float32 (the cube's
// fp32 sums) whatever the label says: the cube's drain moves 2 and 4 bytes per element.
TEST(PerfConvDtype, AForwardConvolutionWritesFp16AndAWeightGradientFp32) {
  const auto& t = Ascend910();
  const Kernel y = K("Conv2D", 28, {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:16x8x16x16"},
                     {"NC1HWC0:float32:32x8x56x56x16"});
  const auto f = internal::DeriveCubeShape("Conv2D", *internal::WithConvolutionDtypesOn910(y), t);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->out_bytes, 2);
  const Kernel dw =
      K("Conv2DBackpropFilter", 28, {"NC1HWC0:float32:32x8x56x56x16", "NC1HWC0:float32:32x16x56x56x16"},
        {"FracZ:float16:16x8x16x16"});
  const auto g =
      internal::DeriveCubeShape("Conv2DBackpropFilter", *internal::WithConvolutionDtypesOn910(dw), t);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->out_bytes, 4);
  EXPECT_EQ(g->in_bytes, 2);
}

// A float32 label on dx (and on the fused AddN's addend, which shares dx's type) costs what the
// float16 label does (wave 1's rule, now one case of the registrations): halving dx's bytes may
// not make the kernel slower either (the output counted at one size by the cube and at another
// by the kernel's byte total would be charged as extra moves).
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
}

}  // namespace
}  // namespace npugap::analysis::perf
