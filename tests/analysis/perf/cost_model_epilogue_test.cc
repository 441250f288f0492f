// The fused vector epilogue of a matmul on a coupled core (910): beside the next tile's MADs when
// it reads nothing but the cube's output, after them when it loads another full-size tensor
// through MTE2 (cost_model_cube.cc, EpilogueOverlapsCube).
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

TEST(PerfEpilogue, AnEpilogueThatLoadsFullSizeTensorsFollowsTheMads) {
  const auto& t = Ascend910();
  // dX of the FFN up: dy (16384 x 768) . W -> 16384 x 3072, then GeLUGrad with x and y from GM.
  const std::string kWt = "FRACTAL_NZ:float16:192x48x16x16";
  const KernelCost grad = PredictKernel(K("FusionOp_MatMul_GeLUGrad", 30, {kX, kWt, kC, kC}, {kC}), t);
  const KernelCost plain = PredictKernel(K("MatMul", 30, {kX, kWt}, {kC}), t);
  ASSERT_GT(grad.vector_us, 0);
  EXPECT_GE(grad.time_us, plain.time_us + grad.vector_us - 1e-6);
  // A broadcast operand smaller than C (an attention mask, a bias) is not a full-size load.
  const std::string q = "FRACTAL_NZ:float16:128x12x4x8x16x16", s = "FRACTAL_NZ:float16:128x12x8x8x16x16";
  const KernelCost masked = PredictKernel(
      K("FusionOp_BatchMatMul_FusedMulAdd", 30, {q, q, "ND:float16:", "ND:float16:128x1x1x128"}, {s}), t);
  const KernelCost unmasked = PredictKernel(K("BatchMatMul", 30, {q, q}, {s}), t);
  EXPECT_LT(masked.time_us, unmasked.time_us + 0.5 * masked.vector_us);
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
