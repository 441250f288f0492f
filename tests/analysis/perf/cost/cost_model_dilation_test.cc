// A strided 1x1 backprop input dilates C in UB one dy row per channel block per image (TBE's
// kernel-size-1 schedule, `_dilate_schedule`: the `vector_add` is emitted at dy's column axis;
// with a fused AddN it adds into the addend), so its vector part pays one instruction head per
// such row (cost_model_dilation.cc). Other backprop inputs keep the generic epilogue.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

// ResNet-50's 1x1 stride-2 downsample backprop input: dy 2048 x 7 x 7 -> dx 1024 x 14 x 14.
Kernel StridedAddN(const std::string& op_type) {
  return K(op_type, 16,
           {"NC1HWC0:float16:32x128x7x7x16", "FracZ:float16:64x128x16x16", "NC1HWC0:float16:32x64x14x14x16",
            "ND:uint8:32x64x14x14x2"},
           {"NC1HWC0:float16:32x64x14x14x16"});
}

TEST(PerfDilation, OneHeadPerDyRowPerChannelBlockPerImage) {
  const target::Target& t = Ascend910();
  const double head = internal::InstructionHead(t.kernel->vector_instruction_heads, "simple");
  // 32 images on 16 cores: 2 per core, 64 channel blocks of dx, 7 rows of dy.
  const double expected = 2.0 * 64 * 7 * head / t.compute.clock.value;
  const Kernel k = StridedAddN("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2");
  EXPECT_NEAR(internal::DilationHeadTime(k, "Conv2DBackpropInput", 16, t), expected, 1e-12);
  // The kernel's vector part carries them: the same record at stride 1 on a 14 x 14 dy (the
  // same dx, so the same generic epilogue, and no dilation) has that much less vector time.
  Kernel stride1 = k;
  stride1.inputs[0] = K("x", 16, {"NC1HWC0:float16:32x128x14x14x16"}, {}).inputs[0];
  const KernelCost strided = PredictKernel(k, t);
  const KernelCost plain = PredictKernel(stride1, t);
  EXPECT_NEAR(strided.vector_us - plain.vector_us, 1e6 * expected, 1e-6);
  // Without the AddN the dilation writes into the zero map: the same instructions.
  Kernel relu_only = k;
  relu_only.op_type = "FusionOp_Conv2DBackpropInput_ReluGradV2";
  relu_only.inputs.erase(relu_only.inputs.begin() + 2);
  EXPECT_NEAR(internal::DilationHeadTime(relu_only, "Conv2DBackpropInput", 16, t), expected, 1e-12);
}

TEST(PerfDilation, OnlyAStrided1x1BackpropInput) {
  const target::Target& t = Ascend910();
  // Stride 1 (dy and dx 7 x 7): no dilation, the add runs over the UB tile as any epilogue.
  const Kernel stride1 = K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 16,
                           {"NC1HWC0:float16:32x32x7x7x16", "FracZ:float16:128x32x16x16",
                            "NC1HWC0:float16:32x128x7x7x16", "ND:uint8:32x128x7x7x2"},
                           {"NC1HWC0:float16:32x128x7x7x16"});
  EXPECT_EQ(internal::DilationHeadTime(stride1, "Conv2DBackpropInput", 16, t), 0);
  // A 3x3 kernel (FracZ rows C1 x 9) takes the general pattern, which dilates dy instead.
  const Kernel k3x3 = K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 30,
                        {"NC1HWC0:float16:32x32x7x7x16", "FracZ:float16:288x32x16x16",
                         "NC1HWC0:float16:32x32x14x14x16", "ND:uint8:32x32x14x14x2"},
                        {"NC1HWC0:float16:32x32x14x14x16"});
  EXPECT_EQ(internal::DilationHeadTime(k3x3, "Conv2DBackpropInput", 30, t), 0);
}

}  // namespace
}  // namespace npugap::analysis::perf
