// The kernel types added for the other workloads of the calibration source (InceptionV3, ViT,
// YOLOv5, DeepFM; docs/perf.md "Kernel types and their rules"): each vector rule costs the
// instruction counts of its TBE DSL compute, the depthwise convolutions run on the cube one C0
// group at a time, and a record of every added type is predicted (no unknown type). Expected
// values are computed from the profile's own rates, not copied from any measurement.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/calibrate/calibration.h"

namespace npugap::analysis::perf {
namespace {

double Rate(const target::Target& t, const std::string& cls, const std::string& dtype) {
  return t.kernel->vector_instructions.at(cls).at(dtype).value;
}

struct Counts {
  std::string type;
  double simple, transcendental, divide;
};

// The counts of the DSL as listed in cost_model_vector.cc's comments, on a float32 tensor (no
// casts): the vector time is the sum of the classes' cycles per element.
TEST(PerfCoverage, VectorRulesCostTheirDslInstructionCounts) {
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  const std::string x = "ND:float32:64x1024x1024";
  const double per_core = 64.0 * 1024 * 1024 / 32 / t.compute.clock.value;
  const std::vector<Counts> rules = {{"SigmoidCrossEntropyWithLogits", 8, 2, 0},
                                     {"SigmoidCrossEntropyWithLogitsGrad", 4, 1, 1},
                                     {"Adam", 16, 1, 1},
                                     {"AdamApplyOne", 10, 1, 1},
                                     {"AdamApplyOneWithDecay", 12, 1, 1},
                                     {"ApplyRMSProp", 10, 1, 1},
                                     {"ApplyFtrl", 32, 4, 3},
                                     {"ConfusionMulGrad", 3, 0, 0},
                                     {"LeakyRelu", 1, 0, 0},
                                     {"LeakyReluGrad", 9, 0, 0},
                                     {"Mish", 7, 1, 0},
                                     {"MishGrad", 13, 1, 0},
                                     {"Softplus", 8, 4, 0},
                                     {"SoftplusGrad", 2, 1, 1},
                                     {"Swish", 7, 2, 1},
                                     {"ResizeNearestNeighborGrad", 1, 0, 0},
                                     {"ReLU6", 2, 0, 0},
                                     {"ReLU6Grad", 7, 0, 1},
                                     {"ClipByValue", 4, 0, 0},
                                     {"BNInference", 4, 0, 0},
                                     {"HardSwish", 5, 0, 0},
                                     {"HardSigmoid", 4, 0, 0},
                                     {"HardSigmoidGrad", 5, 0, 0},
                                     {"HardSwishGrad", 7, 0, 1}};
  for (const Counts& c : rules) {
    const double want =
        1e6 * per_core *
        (c.simple * Rate(t, "simple", "float32") + c.transcendental * Rate(t, "transcendental", "float32") +
         c.divide * Rate(t, "divide", "float32"));
    const KernelCost got = PredictKernel(K(c.type, 32, {x, x}, {x}), t);
    EXPECT_TRUE(got.known) << c.type;
    EXPECT_NEAR(got.vector_us, want, 1e-6 * want) << c.type;
  }
}

// The DSL of sigmoid_cross_entropy_with_logits casts float16 to float32 first: on a float16
// record it costs float32 rates plus a cast per full-size operand (predict, target, loss).
TEST(PerfCoverage, SigmoidCrossEntropyComputesInFloat32) {
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  const std::string h = "ND:float16:16000x1024";  // DeepFM's logits at a large batch
  const double per_core = 16000.0 * 1024 / 32 / t.compute.clock.value;
  const double want =
      1e6 * per_core * ((8 + 3) * Rate(t, "simple", "float32") + 2 * Rate(t, "transcendental", "float32"));
  EXPECT_NEAR(PredictKernel(K("SigmoidCrossEntropyWithLogits", 32, {h, h}, {h}), t).vector_us, want,
              1e-6 * want);
}

// YOLOv5's 2x nearest upsampling moves data only; its gradient adds the four gradients of each
// input pixel, one add per gradient element (float32 5HD, as MindSpore registers it).
TEST(PerfCoverage, NearestResizeMovesAndItsGradientAdds) {
  const auto& t = Ascend910();
  const KernelCost up = PredictKernel(
      K("ResizeNearestNeighbor", 32, {"NC1HWC0:float16:32x16x20x20x16"}, {"NC1HWC0:float16:32x16x40x40x16"}),
      t);
  EXPECT_TRUE(up.known);
  EXPECT_EQ(up.vector_us, 0);
  EXPECT_EQ(up.bound, Bound::kMemory);
  const KernelCost grad = PredictKernel(K("ResizeNearestNeighborGrad", 32, {"NC1HWC0:float32:32x16x40x40x16"},
                                          {"NC1HWC0:float32:32x16x20x20x16"}),
                                        t);
  EXPECT_TRUE(grad.known);
  EXPECT_GT(grad.vector_us, 0);
}

// MobileNet's 3x3 depthwise layer on 32 x 112 x 112 x 32 channels (C1 = 2 groups of 16).
const std::string kX = "NC1HWC0:float16:32x2x112x112x16";
const std::string kW = "C1HWNCoC0:float16:2x3x3x1x16x16";

TEST(PerfCoverage, DepthwiseRunsOneC0GroupPerMatmulWithSixteenfoldWaste) {
  const auto& t = Ascend910();
  const auto fwd =
      internal::DeriveCubeShape("DepthwiseConv2dNative", K("DepthwiseConv2dNative", 32, {kX, kW}, {kX}), t);
  ASSERT_TRUE(fwd.ok()) << fwd.status().message();
  EXPECT_EQ(fwd->batch, 2);
  EXPECT_EQ(fwd->m, 32 * 12544);  // 112 x 112 = 12544 pixels, already whole 16-pixel fractals
  EXPECT_EQ(fwd->k, 9 * 16);
  EXPECT_EQ(fwd->n, 16);
  const double macs = static_cast<double>(fwd->batch * fwd->m * fwd->k * fwd->n);
  const double useful = 32.0 * 32 * 12544 * 9;  // N x C x pixels x taps
  EXPECT_DOUBLE_EQ(macs / useful, 16.0);
  // A is the unfolded x: 9 taps per pixel, read once from GM.
  EXPECT_DOUBLE_EQ(fwd->a_expand, 9.0);

  // The filter gradient: per group, 16 channels x 9 taps x 16, summed over dy's pixels.
  const auto dw = internal::DeriveCubeShape(
      "DepthwiseConv2dNativeBackpropFilter",
      K("DepthwiseConv2dNativeBackpropFilter", 32, {kX, kX}, {"C1HWNCoC0:float32:2x3x3x1x16x16"}), t);
  ASSERT_TRUE(dw.ok()) << dw.status().message();
  EXPECT_EQ(dw->batch, 2);
  EXPECT_EQ(dw->m, 16);
  EXPECT_EQ(dw->n, 9 * 16);
  EXPECT_EQ(dw->k, 32 * 12544);
  EXPECT_EQ(dw->out_bytes, 4);

  // The input gradient and AvgPoolGrad (a depthwise backprop input with a kernel of ones) run over
  // dx's pixels, a 7 x 7-padded odd map rounding each image to whole fractals.
  const std::string dy = "NC1HWC0:float16:32x128x8x8x16", dx = "NC1HWC0:float16:32x128x17x17x16";
  const auto pool = internal::DeriveCubeShape(
      "AvgPoolGrad", K("AvgPoolGrad", 32, {dy, dy, "C1HWNCoC0:float16:128x3x3x1x16x16"}, {dx}), t);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  EXPECT_EQ(pool->batch, 128);
  EXPECT_EQ(pool->m, 32 * 304);  // 289 pixels -> 19 fractals of 16
  EXPECT_EQ(pool->k, 9 * 16);
}

TEST(PerfCoverage, DepthwiseKernelsAreCubeBoundAndConvTransposeIsABackpropInput) {
  const auto& t = Ascend910();
  const KernelCost fwd = PredictKernel(K("DepthwiseConv2dNative", 32, {kX, kW}, {kX}), t);
  EXPECT_TRUE(fwd.known);
  EXPECT_TRUE(fwd.note.empty()) << fwd.note;
  EXPECT_GT(fwd.cube_us, 0);
  // Conv2DTranspose (conv2d_transpose_d: x = dy 5HD, filter FracZ, y 5HD) is costed as the
  // backprop-input convolution of the same operands.
  const std::vector<std::string> in = {"NC1HWC0:float16:32x16x20x20x16", "FracZ:float16:36x16x16x16"};
  const std::vector<std::string> out = {"NC1HWC0:float16:32x16x40x40x16"};
  const KernelCost tr = PredictKernel(K("Conv2DTranspose", 32, in, out), t);
  const KernelCost bi = PredictKernel(K("Conv2DBackpropInput", 32, in, out), t);
  EXPECT_TRUE(tr.note.empty()) << tr.note;
  EXPECT_DOUBLE_EQ(tr.time_us, bi.time_us);
  EXPECT_GT(tr.cube_us, 0);
}

// Without its C1HWNCoC0 filter a depthwise record has no matrix view: it is left unknown (the
// miss is listed), not costed at zero; DeriveCubeShape names what is missing.
TEST(PerfCoverage, ADepthwiseRecordWithoutItsFilterIsUnknownNotZero) {
  const auto& t = Ascend910();
  const Kernel k = K("DepthwiseConv2dNative", 32, {kX, "FracZ:float16:18x1x16x16"}, {kX});
  const KernelCost c = PredictKernel(k, t);
  EXPECT_FALSE(c.known);
  EXPECT_EQ(c.note, "'DepthwiseConv2dNative' without the filter operand its matrix view needs");
  const auto shape = internal::DeriveCubeShape("DepthwiseConv2dNative", k, t);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().message(), "DepthwiseConv2dNative needs a C1HWNCoC0 filter input");
  // AvgPoolGrad as npugap's lowering writes it (dy -> dx, no kernel matrix).
  EXPECT_FALSE(
      PredictKernel(
          K("AvgPoolGrad", 32, {"NC1HWC0:float16:32x8x14x14x16"}, {"NC1HWC0:float16:32x8x28x28x16"}), t)
          .known);
}

// The window of a max pooling comes from its argmax mask [N, C1, kh kw, ceil(Ho Wo / 16) + 1, 16]:
// ResNet-50's 3x3 stride-2 record keeps the table's 4.5 per input element; YOLOv5's SPP 5 x 5
// stride-1 pooling (outputs as many as inputs) costs 2 x 25 = 50.
TEST(PerfCoverage, ArgmaxPoolingCostsTheWindowItsMaskNames) {
  const Kernel resnet = K("MaxPoolWithArgmax", 128, {"NC1HWC0:float32:32x4x112x112x16"},
                          {"NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:uint8:32x4x9x197x16"});
  EXPECT_DOUBLE_EQ(*internal::ArgmaxPoolOpsPerElement("MaxPoolWithArgmax", resnet), 4.5);
  const Kernel grad =
      K("MaxPoolGradWithArgmax", 128,
        {"NC1HWC0:float32:32x4x112x112x16", "NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:uint8:32x4x9x197x16"},
        {"NC1HWC0:float32:32x4x112x112x16"});
  EXPECT_DOUBLE_EQ(*internal::ArgmaxPoolOpsPerElement("MaxPoolGradWithArgmax", grad), 4.5);
  const Kernel spp = K("MaxPoolWithArgmax", 32, {"NC1HWC0:float16:32x16x20x20x16"},
                       {"NC1HWC0:float16:32x16x20x20x16", "NC1HWC0:uint16:32x16x25x26x16"});
  // 50 per pooled element (3,276,800 of them), spread over the mask, the largest operand here.
  EXPECT_DOUBLE_EQ(*internal::ArgmaxPoolOpsPerElement("MaxPoolWithArgmax", spp) * 32 * 16 * 25 * 26 * 16,
                   50.0 * 32 * 16 * 20 * 20 * 16);
  // Without a mask the table's rule stands.
  EXPECT_FALSE(internal::ArgmaxPoolOpsPerElement(
                   "MaxPoolWithArgmax", K("MaxPoolWithArgmax", 32, {"NC1HWC0:float16:32x16x20x20x16"},
                                          {"NC1HWC0:float16:32x16x10x10x16"}))
                   .has_value());
  target::Target t = Ascend910();
  t.kernel->vector_instruction_heads.clear();
  EXPECT_NEAR(PredictKernel(spp, t).vector_us / PredictKernel(resnet, t).vector_us,
              50.0 * 32 * 16 * 400 / (4.5 * 32 * 4 * 12544) * Rate(t, "simple", "float16") /  // uint16: 2 B
                  Rate(t, "simple", "float32"),
              1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
