// The fused vector epilogue of a matmul on a coupled core (910): beside the next tile's MADs, the
// full-size tensors it loads queued on MTE2 with the operand loads (cost_model_cube.cc,
// EpilogueOverlapsCube); a convolution's after each tile's MADs.
#include <gtest/gtest.h>

#include <algorithm>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

// BERT's FFN shapes in FRACTAL_NZ: 16384 tokens x 768 -> 3072.
const std::string kX = "FRACTAL_NZ:float16:48x1024x16x16";
const std::string kW = "FRACTAL_NZ:float16:48x192x16x16";
const std::string kC = "FRACTAL_NZ:float16:192x1024x16x16";

TEST(PerfEpilogue, GeLUOnTheCubeOutputHidesUnderTheMads) {
  const auto& t = Ascend910();
  const KernelCost gelu =
      PredictKernel(K("FusionOp_MatMul_GeLU", 30, {kX, kW, "ND:float16:3072"}, {kC, kC}), t);
  const KernelCost plain = PredictKernel(K("MatMul", 30, {kX, kW, "ND:float16:3072"}, {kC}), t);
  ASSERT_GT(gelu.vector_us, 0);
  // The GeLU runs beside the MADs (only its second output's store drains with C's, next test):
  // the kernel takes the longer of the two sides, here the cube's, not their sum.
  EXPECT_LT(gelu.time_us, plain.time_us + 0.5 * gelu.vector_us);
  EXPECT_GE(gelu.time_us, std::max(plain.time_us, gelu.overhead_us + gelu.vector_us) - 1e-6);
}

TEST(PerfEpilogue, ASecondFullSizeOutputDrainsInSeriesWithC) {
  const auto& t = Ascend910();
  // _MatMul_GeLU writes the product and its GeLU, both 16384 x 3072 fp16: each tile's second
  // output leaves through MTE3 after C's drain, on the 30 cores at ub_to_gm.
  const KernelCost two =
      PredictKernel(K("FusionOp_MatMul_GeLU", 30, {kX, kW, "ND:float16:3072"}, {kC, kC}), t);
  const KernelCost one = PredictKernel(K("FusionOp_MatMul_GeLU", 30, {kX, kW, "ND:float16:3072"}, {kC}), t);
  const double bytes = 16384.0 * 3072 * 2;
  const double store_us = 1e6 * bytes / 30 / (t.datapath->ub_to_gm.value * t.compute.clock.value);
  EXPECT_NEAR(two.time_us - one.time_us, store_us, 1e-6 * store_us);
  // An output smaller than C (a per-row sum) is not written per tile with C.
  const KernelCost small =
      PredictKernel(K("FusionOp_MatMul_GeLU", 30, {kX, kW, "ND:float16:3072"}, {kC, "ND:float16:3072"}), t);
  EXPECT_DOUBLE_EQ(small.time_us, one.time_us);
}

TEST(PerfEpilogue, AnEpilogueThatLoadsFullSizeTensorsRunsBesideTheNextTilesMads) {
  const auto& t = Ascend910();
  // dX of the FFN up: dy (16384 x 768) . W -> 16384 x 3072, then GeLUGrad with x and y from GM.
  const std::string kWt = "FRACTAL_NZ:float16:192x48x16x16";
  const KernelCost grad = PredictKernel(K("FusionOp_MatMul_GeLUGrad", 30, {kX, kWt, kC, kC}, {kC}), t);
  const KernelCost plain = PredictKernel(K("MatMul", 30, {kX, kWt}, {kC}), t);
  ASSERT_GT(grad.vector_us, 0);
  // x and y, 16384 x 3072 fp16 each, loaded GM -> UB per tile over the 30 cores.
  const double rate = t.datapath->gm_to_ub.value * t.compute.clock.value;
  const double loads_us = 1e6 * 2 * 16384.0 * 3072 * 2 / 30 / rate;
  // Beside the next tile's MADs: less than the cube path, the loads and the vector work in series.
  EXPECT_LT(grad.time_us, plain.time_us + loads_us + grad.vector_us - 1);
  // Each tile's vector work waits for its own loads (single-buffered UB): not less than both.
  EXPECT_GE(grad.time_us, grad.overhead_us + grad.vector_us + loads_us - 1e-6);
  // The loads queue on MTE2 with the operand loads: an addend delays a load-bound matmul by its
  // bytes (the 768 x 768 projection's dX plus the residual, 32 blocks).
  const std::string a = "FRACTAL_NZ:float16:48x1024x16x16", w = "FRACTAL_NZ:float16:48x48x16x16";
  const KernelCost addn = PredictKernel(K("FusionOp_MatMul_AddN", 32, {a, w, a}, {a}), t);
  const KernelCost mm = PredictKernel(K("MatMul", 32, {a, w}, {a}), t);
  const double addend_us = 1e6 * 16384.0 * 768 * 2 / 32 / rate;
  EXPECT_GE(addn.time_us, mm.time_us + addend_us - 1e-6);
  // A broadcast operand smaller than C (an attention mask, a bias) is not a full-size load.
  const std::string q = "FRACTAL_NZ:float16:128x12x4x8x16x16", s = "FRACTAL_NZ:float16:128x12x8x8x16x16";
  const KernelCost masked = PredictKernel(
      K("FusionOp_BatchMatMul_FusedMulAdd", 30, {q, q, "ND:float16:", "ND:float16:128x1x1x128"}, {s}), t);
  const KernelCost unmasked = PredictKernel(K("BatchMatMul", 30, {q, q}, {s}), t);
  EXPECT_LT(masked.time_us, unmasked.time_us + 0.5 * masked.vector_us);
}

TEST(PerfEpilogue, AMatMulEpilogueIssuesItsInstructionsPerL0cTile) {
  // The static 1 x 30 schedule gives each core 16384 x 112 of C in 64-row tiles (the profile's
  // static_matmul_m_l0): 256 L0C tiles of 7168 elements, and the fused GeLUGrad issues each of
  // its float32 instructions once per tile: 26 simple and 3 casts (x, y and the result are
  // full size), one exp, one div. The UB plan of a plain vector kernel would hold 10922 elements
  // (256 KiB over two buffers of three float32 operands), 168 tiles.
  const std::string kWt = "FRACTAL_NZ:float16:192x48x16x16";
  const Kernel k = K("FusionOp_MatMul_GeLUGrad", 30, {kX, kWt, kC, kC}, {kC});
  const auto& t = Ascend910();
  const double heads_us = PredictKernel(k, t).vector_us - PredictKernel(k, Ascend910WithoutHeads()).vector_us;
  const auto& h = t.kernel->vector_instruction_heads;
  const double per_tile = 29 * h.at("simple").value + h.at("transcendental").value + h.at("divide").value;
  EXPECT_NEAR(heads_us, 1e6 * 256 * per_tile / t.compute.clock.value, 1e-6);
}

TEST(PerfEpilogue, AMatMulEpilogueComputesOnTheBusiestCoresShareOfC) {
  // The static 1 x 30 split cuts n by tvm split(nparts = 30): 192 or 182 n fractals both give
  // the busiest core 7 (16384 x 112 of C), so the epilogue's vector work is the same, where an
  // even split over 30 cores would give the 182-fractal kernel 5% less.
  const auto grad = [](int n16) {
    const std::string n = std::to_string(n16);
    const std::string c = "FRACTAL_NZ:float16:" + n + "x1024x16x16";
    return K("FusionOp_MatMul_GeLUGrad", 30, {kX, "FRACTAL_NZ:float16:" + n + "x48x16x16", c, c}, {c});
  };
  const auto& t = Ascend910WithoutHeads();
  const double wide = PredictKernel(grad(192), t).vector_us, narrow = PredictKernel(grad(182), t).vector_us;
  ASSERT_GT(wide, 0);
  EXPECT_NEAR(narrow, wide, 1e-9 * wide);
}

TEST(PerfEpilogue, ConvolutionEpiloguesStayAfterTheMads) {
  const auto& t = Ascend910AtAttRates();
  // The rule is the matmul schedule's; a convolution's fused BN sums keep following its tiles.
  const std::vector<std::string> in = {"NC1HWC0:float16:32x4x56x56x16", "FracZ:float16:4x16x16x16"};
  const std::vector<std::string> y = {"NC1HWC0:float32:32x16x56x56x16"};
  const KernelCost fused = PredictKernel(
      K("FusionOp_Conv2D_BNTrainingReduce", 30, in, {y[0], "ND:float32:256", "ND:float32:256"}), t);
  const KernelCost conv = PredictKernel(K("Conv2D", 30, in, y), t);
  ASSERT_GT(fused.vector_us, 0);
  EXPECT_GE(fused.time_us, conv.time_us + fused.vector_us - 1e-3);
}

}  // namespace
}  // namespace npugap::analysis::perf
