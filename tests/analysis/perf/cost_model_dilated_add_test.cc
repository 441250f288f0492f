// A strided 1x1 backprop input with a fused AddN adds C into the addend one dy row per channel
// block per image (TBE's kernel-size-1 schedule, `_dilate_schedule`: the `vector_add` is emitted
// at dy's column axis), so its vector part pays one instruction head per such row
// (cost_model_dilated_add.cc). Other backprop inputs keep the generic epilogue.
#include <gtest/gtest.h>

#include "../../../src/analysis/perf/cost_model_internal.h"
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

TEST(PerfDilatedAdd, OneHeadPerDyRowPerChannelBlockPerImage) {
  const target::Target& t = Ascend910();
  const double head = internal::InstructionHead(t.kernel->vector_instruction_heads, "simple");
  // 32 images on 16 cores: 2 per core, 64 channel blocks of dx, 7 rows of dy.
  const double expected = 2.0 * 64 * 7 * head / t.compute.clock.value;
  const Kernel k = StridedAddN("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2");
  EXPECT_NEAR(internal::DilatedAddHeadTime(k, "Conv2DBackpropInput", 16, t), expected, 1e-12);
  // The kernel's vector part carries them: it exceeds the same record without its AddN (whose
  // generic epilogue is one op lighter) by more than the heads alone.
  Kernel relu_only = k;
  relu_only.op_type = "FusionOp_Conv2DBackpropInput_ReluGradV2";
  relu_only.inputs.erase(relu_only.inputs.begin() + 2);
  const KernelCost with_add = PredictKernel(k, t);
  const KernelCost without = PredictKernel(relu_only, t);
  EXPECT_GT(with_add.vector_us - without.vector_us, 1e6 * expected);
}

TEST(PerfDilatedAdd, OnlyAStrided1x1BackpropInputWithAnAddN) {
  const target::Target& t = Ascend910();
  // No AddN: the dilation writes into the zero map, no add is emitted per row.
  Kernel relu_only = StridedAddN("FusionOp_Conv2DBackpropInput_ReluGradV2");
  relu_only.inputs.erase(relu_only.inputs.begin() + 2);
  EXPECT_EQ(internal::DilatedAddHeadTime(relu_only, "Conv2DBackpropInput", 16, t), 0);
  // Stride 1 (dy and dx 7 x 7): no dilation, the add runs over the UB tile as any epilogue.
  const Kernel stride1 = K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 16,
                           {"NC1HWC0:float16:32x32x7x7x16", "FracZ:float16:128x32x16x16",
                            "NC1HWC0:float16:32x128x7x7x16", "ND:uint8:32x128x7x7x2"},
                           {"NC1HWC0:float16:32x128x7x7x16"});
  EXPECT_EQ(internal::DilatedAddHeadTime(stride1, "Conv2DBackpropInput", 16, t), 0);
  // A 3x3 kernel (FracZ rows C1 x 9) takes the general pattern, which dilates dy instead.
  const Kernel k3x3 = K("FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 30,
                        {"NC1HWC0:float16:32x32x7x7x16", "FracZ:float16:288x32x16x16",
                         "NC1HWC0:float16:32x32x14x14x16", "ND:uint8:32x32x14x14x2"},
                        {"NC1HWC0:float16:32x32x14x14x16"});
  EXPECT_EQ(internal::DilatedAddHeadTime(k3x3, "Conv2DBackpropInput", 30, t), 0);
}

}  // namespace
}  // namespace npugap::analysis::perf
