// The block split of vector kernels (cost_model_split.cc): the busiest block takes whole units
// (rows of a row-wise kernel, 32 B blocks of a flat split), so a kernel whose units do not divide
// by its block_dim ends with the block that has one unit more. Expected values are worked out
// from the profile's own numbers.
#include <gtest/gtest.h>

#include <algorithm>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

const target::Target& Bare() { return Ascend910WithoutHeads(); }

TEST(PerfSplit, RowKernelBlocksTakeWholeRows) {
  const auto softmax = [](const char* shape, int block_dim) {
    const std::string x = std::string("ND:float16:") + shape;
    return PredictKernel(K("SoftmaxV2", block_dim, {x}, {x}), Bare());
  };
  // 40 rows on 30 blocks: 10 blocks take 2 rows and the kernel ends with them, as with 60 rows on
  // 30 blocks or 40 rows on 20 (an even split would make the first 1.5x faster than both).
  const KernelCost tail = softmax("40x4096", 30), full = softmax("60x4096", 30),
                   fewer = softmax("40x4096", 20);
  EXPECT_GT(tail.vector_us, 0);
  EXPECT_NEAR(tail.vector_us, full.vector_us, 1e-9);
  EXPECT_NEAR(tail.vector_us, fewer.vector_us, 1e-9);
  EXPECT_NEAR(tail.memory_us, fewer.memory_us, 1e-9);
}

TEST(PerfSplit, FlatSplitGivesTheBusiestBlockWhole32ByteBlocks) {
  const target::Target& t = Bare();
  // 49 float16 elements on 3 blocks: ceil(49 / 3) = 17 elements, rounded up to the 16 elements of
  // a 32 B block: the busiest block has 32 of the 49 (an even split would give it 16.3).
  const KernelCost c = PredictKernel(K("Relu", 3, {"ND:float16:49"}, {"ND:float16:49"}), t);
  const double clock = t.compute.clock.value;
  const double stored = 128;  // 98 bytes, stored in whole 32 B blocks
  const double share = 32.0 / 49;
  const double load = stored * share / (t.datapath->gm_to_ub.value * clock);
  const double store = stored * share / (t.datapath->ub_to_gm.value * clock);
  const double hbm = 2 * stored / t.memory.bandwidth.value;
  EXPECT_NEAR(c.memory_us, 1e6 * std::max({load, store, hbm}), 1e-9);
}

TEST(PerfSplit, FoldedBlocksRunInWavesOfTheBusiestBlock) {
  target::Target t = Bare();
  t.datapath->gm_to_ub = Ascend910AtAttRates().datapath->gm_to_ub;  // 32 B/cycle: below the HBM share
  // 64 blocks on 32 cores: 2 waves, each of ceil(2000 / 64) = 32 elements (two 32 B blocks), so
  // the busiest core reads 64 of the 2,000 elements (an even split: 62.5). A sum to one element
  // writes almost nothing, so the per-core read, not the HBM, sets the time.
  const KernelCost c = PredictKernel(K("ReduceSum", 64, {"ND:float16:2000"}, {"ND:float16:1"}), t);
  const double load = 4000.0 * 64 / 2000 / (t.datapath->gm_to_ub.value * t.compute.clock.value);
  const double hbm = (4000.0 + 32) / t.memory.bandwidth.value;
  ASSERT_GT(load, hbm);
  EXPECT_NEAR(c.memory_us, 1e6 * load, 1e-9);
}

TEST(PerfSplit, BnUpdateGradBlocksTakeWholeChannelSlicesOrWholeImages) {
  const target::Target& t = Bare();
  // bn_update_grad's schedule cuts C1 (C1 >= block_dim) or N into block_dim parts of whole units:
  // the busiest block's vector work is its units' elements x 5 float32 simple ops.
  const auto grad = [&](const std::string& dims, const std::string& c, int block_dim) {
    const std::string x = "NC1HWC0:float32:" + dims, ch = "NC1HWC0:float32:" + c;
    return PredictKernel(K("BNTrainingUpdateGrad", block_dim, {x, x, ch, ch}, {ch, ch}), t).vector_us;
  };
  const double rate = t.kernel->vector_instructions.at("simple").at("float32").value;
  const auto us = [&](double elements) { return 1e6 * elements * 5 * rate / t.compute.clock.value; };
  // 32 images on 30 blocks: 16 blocks take 2 images each, 14 are idle (an even split: 1.07).
  EXPECT_NEAR(grad("32x16x56x56x16", "1x16x1x1x16", 30), us(2 * 16 * 56 * 56 * 16.0), 1e-9);
  // 64 c1 slices on 30 blocks: the busiest takes 3 of them for all 32 images.
  EXPECT_NEAR(grad("32x64x14x14x16", "1x64x1x1x16", 30), us(32 * 3 * 14 * 14 * 16.0), 1e-9);
  // At block_dim 32 both cuts are even (the ResNet-50 special case of 32 x 16 x 14 x 14, N by 2
  // and C1 by 8 over 32 blocks, is even too).
  EXPECT_NEAR(grad("32x16x14x14x16", "1x16x1x1x16", 32), us(16 * 14 * 14 * 16.0), 1e-9);
  // H divisible by the block count is another schedule (a cut of H, not modelled): flat split.
  EXPECT_NEAR(grad("32x16x56x56x16", "1x16x1x1x16", 28), us(32 * 16 * 56 * 56 * 16.0 / 28), 1e-6);
}

TEST(PerfSplit, BnReduceGradBlocksTakeWholeImagesUnlessC1DividesByTheBlocks) {
  const target::Target& t = Bare();
  // bn_training_reduce_grad falls back to the elementwise schedule, which cuts N with
  // split(nparts = block_dim): whole images per block. Its vector work is 4 float32 ops.
  const auto grad = [&](const std::string& dims, const std::string& c, int block_dim) {
    const std::string x = "NC1HWC0:float32:" + dims, ch = "NC1HWC0:float32:" + c;
    return PredictKernel(K("BNTrainingReduceGrad", block_dim, {x, x, ch, ch, ch, ch, ch}, {x}), t).vector_us;
  };
  const double rate = t.kernel->vector_instructions.at("simple").at("float32").value;
  const auto us = [&](double elements) { return 1e6 * elements * 4 * rate / t.compute.clock.value; };
  // 32 images on 30 blocks: 16 blocks take 2 images, 14 are idle (an even split: 1.07 images).
  EXPECT_NEAR(grad("32x128x7x7x16", "1x128x1x1x16", 30), us(2 * 128 * 7 * 7 * 16.0), 1e-9);
  // At block_dim 32 the cut is even.
  EXPECT_NEAR(grad("32x128x7x7x16", "1x128x1x1x16", 32), us(128 * 7 * 7 * 16.0), 1e-9);
  // C1 a multiple of block_dim: the schedule's own even cut of C1 (flat split, the same share).
  EXPECT_NEAR(grad("32x60x7x7x16", "1x60x1x1x16", 30), us(32 * 2 * 7 * 7 * 16.0), 1e-6);
  // Fewer images than blocks: a later axis is cut (not modelled): the flat split, ceil(1,605,632
  // / 30) = 53,522 elements rounded up to whole 32 B blocks of 8 float32: 53,528.
  EXPECT_NEAR(grad("16x128x7x7x16", "1x128x1x1x16", 30), us(53528), 1e-9);
}

TEST(PerfSplit, LambUpdateBlocksTakeWholeSlicesOfTheFirstAxis) {
  const target::Target& t = Bare();
  // lamb_apply_weight_assign runs the elementwise schedule, which cuts axis 0 with
  // split(nparts = block_dim) once it reaches block_dim. Its vector work is 4 simple ops.
  const auto weight = [&](const std::string& dims, int block_dim) {
    const std::string w = "ND:float32:" + dims, s = "ND:float32:1";
    return PredictKernel(K("LambApplyWeightAssign", block_dim, {s, s, s, w, w}, {w}), t).vector_us;
  };
  const double rate = t.kernel->vector_instructions.at("simple").at("float32").value;
  const auto us = [&](double elements) { return 1e6 * elements * 4 * rate / t.compute.clock.value; };
  // 40 rows on 30 blocks: 10 blocks take 2 rows of 3,072 (the flat split: 4,096 elements).
  EXPECT_NEAR(weight("40x3072", 30), us(2 * 3072.0), 1e-9);
  // Fewer rows than blocks: a later axis is cut (not modelled): the flat split, 61,440 / 30.
  EXPECT_NEAR(weight("20x3072", 30), us(2048), 1e-9);
  // The three-output optimizer kernel takes the same cut: 40 rows end with the block of 2 rows, as
  // 60 rows do.
  const auto optimizer = [&](const std::string& dims) {
    const std::string x = "ND:float32:" + dims, s = "ND:float32:1";
    return PredictKernel(K("LambApplyOptimizerAssign", 30, {x, x, x, x, s, s, s, s, s, s, s, s}, {x, x, x}),
                         t)
        .vector_us;
  };
  EXPECT_GT(optimizer("40x768"), 0);
  EXPECT_NEAR(optimizer("40x768"), optimizer("60x768"), 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
