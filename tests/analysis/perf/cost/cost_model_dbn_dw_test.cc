// FusedDbnDw's BN-gradient pass in its TIK kernel's chunks (cost_model_dbn_dw.cc).
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

using internal::FusedDbnDwPass;

Kernel Dbn(const std::string& x, const std::string& dy, int c1, const std::string& dw) {
  Kernel k;
  k.op_type = "FusedDbnDw";
  k.block_dim = 32;
  const std::string channels = "NC1HWC0:float16:1x" + std::to_string(c1) + "x1x1x16";
  for (const std::string& s : {x, dy, dy, channels, channels, channels, channels, channels})
    k.inputs.push_back(*ParseOperand(s));
  k.outputs = {*ParseOperand(dy), *ParseOperand(dw)};
  return k;
}

TEST(PerfFusedDbnDwPass, PaysEachInstructionHeadOncePerChunkOfOnePlaneAndTheShapesPixels) {
  // case_28_28_512_128 (1x1, 128 -> 512 on 28 x 28): cal_hw = 112, so each of the 32 images (one
  // per block) has 32 C1 planes x 7 pixel chunks = 224 chunks, each with 8 vector instructions,
  // 2 GM -> UB moves and 1 UB -> L1 move.
  const auto& t = Ascend910();
  const Kernel k =
      Dbn("NC1HWC0:float32:32x8x28x28x16", "NC1HWC0:float32:32x32x28x28x16", 32, "FracZ:float16:8x32x16x16");
  const auto pass = FusedDbnDwPass(k, t);
  ASSERT_TRUE(pass.has_value());
  EXPECT_DOUBLE_EQ(pass->chunks, 224);
  internal::VectorOps six;
  six.simple = 6;
  const double clock = t.compute.clock.value;
  const double body = internal::VectorTime(32 * 28 * 28 * 16, six, "float32", t);
  const double vector_head = t.kernel->vector_instruction_heads.at("simple").value;
  EXPECT_NEAR(pass->vector, body + 224 * 8 * vector_head / clock, 1e-12);
  const auto& dma = t.kernel->dma_instruction_heads;
  EXPECT_NEAR(pass->dma_heads, 224 * (2 * dma.at("gm_to_ub").value + dma.at("ub_to_gm").value) / clock,
              1e-12);
  // The kernel's vector part is that pass: the generic DSL tile plan paid far fewer heads.
  EXPECT_NEAR(PredictKernel(k, t).vector_us, 1e6 * pass->vector, 1e-6);
}

TEST(PerfFusedDbnDwPass, TheStemAndTheThreeByThreeAreTheirOwnCases) {
  const auto& t = Ascend910();
  // case_112_224_64_3_7_2: the stem's 3 channels are one padded C1 plane, cal_hw = 224:
  // 4 planes x 56 chunks of dy's 12544 pixels.
  const auto stem = FusedDbnDwPass(Dbn("NC1HWC0:float32:32x1x224x224x16", "NC1HWC0:float32:32x4x112x112x16",
                                       4, "FracZ:float16:49x4x16x16"),
                                   t);
  ASSERT_TRUE(stem.has_value());
  EXPECT_DOUBLE_EQ(stem->chunks, 4 * 56);
  // case_56_56_64_64_3 (FracZ rows 9 x 4): 4 planes x 28 chunks of 112 pixels.
  const auto k3 = FusedDbnDwPass(
      Dbn("NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x4x56x56x16", 4, "FracZ:float16:36x4x16x16"),
      t);
  ASSERT_TRUE(k3.has_value());
  EXPECT_DOUBLE_EQ(k3->chunks, 4 * 28);
  // Batch 256: each block takes 8 images.
  const auto b256 = FusedDbnDwPass(
      Dbn("NC1HWC0:float32:256x4x56x56x16", "NC1HWC0:float32:256x4x56x56x16", 4, "FracZ:float16:36x4x16x16"),
      t);
  ASSERT_TRUE(b256.has_value());
  EXPECT_DOUBLE_EQ(b256->chunks, 8 * 4 * 28);
}

TEST(PerfFusedDbnDwPass, AShapeTheKernelDoesNotSupportKeepsTheGenericRule) {
  // 64 -> 64 1x1 on 28 x 28 is not in the kernel's table (it raises E60108 there).
  const Kernel k =
      Dbn("NC1HWC0:float32:32x4x28x28x16", "NC1HWC0:float32:32x4x28x28x16", 4, "FracZ:float16:4x4x16x16");
  EXPECT_FALSE(FusedDbnDwPass(k, Ascend910()).has_value());
  Kernel other = k;
  other.op_type = "Conv2DBackpropFilter";
  EXPECT_FALSE(FusedDbnDwPass(other, Ascend910()).has_value());
  EXPECT_GT(PredictKernel(k, Ascend910()).vector_us, 0);
}

}  // namespace
}  // namespace npugap::analysis::perf
