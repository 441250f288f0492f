// First-principles properties of the per-kernel cost model on the ascend910 profile: padding to
// the fractal, tail effects of block_dim, memory vs compute bound, fused kernels = their parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

Operand Op(const std::string& text) {
  auto op = ParseOperand(text);
  EXPECT_TRUE(op.ok()) << op.status().message();
  return *op;
}

std::string Nd(int64_t a, int64_t b, const std::string& dt) {
  return "ND:" + dt + ":" + std::to_string(a) + "x" + std::to_string(b);
}

Kernel MatMulNd(int64_t m, int64_t k, int64_t n, const std::string& dt = "float16") {
  return K("MatMul", 32, {Nd(m, k, dt), Nd(k, n, dt)}, {Nd(m, n, dt)});
}

TEST(PerfCostModel, CubePadsMatMulToTheFractal) {
  const auto& t = Ascend910();
  // m = 17 occupies two 16-row fractals: as much cube work as m = 32, more than m = 16.
  const double m16 = PredictKernel(MatMulNd(16 * 64, 1024, 1024), t).cube_us;
  const double m17 = PredictKernel(MatMulNd(16 * 64 + 1, 1024, 1024), t).cube_us;
  const double m32 = PredictKernel(MatMulNd(16 * 64 + 16, 1024, 1024), t).cube_us;
  EXPECT_GT(m17, m16);
  EXPECT_DOUBLE_EQ(m17, m32);
}

// A weight gradient dW = x^T dy in FRACTAL_NZ, inputs in the forward op's order (x first): at a
// batch of 1 both the batch and the 10 outputs pad to one fractal, which once made k read as the
// 200,704 features (a 16 s kernel). k is the batch: the same cube work as an explicit 16-row k.
TEST(PerfCostModel, WeightGradientKIsTheSharedDimEvenWhenDimsPadAlike) {
  const auto& t = Ascend910();
  const int64_t features = 200704;                            // 12544 fractals
  const std::string x = "FRACTAL_NZ:float16:12544x1x16x16";   // [1, features]
  const std::string dy = "FRACTAL_NZ:float16:1x1x16x16";      // [1, 10]
  const std::string dw = "FRACTAL_NZ:float16:12544x1x16x16";  // [10, features]
  const KernelCost grad = PredictKernel(K("MatMul", 32, {x, dy}, {dw}), t);
  const KernelCost explicit_k = PredictKernel(MatMulNd(16, 16, features), t);
  ASSERT_TRUE(grad.known);
  EXPECT_NEAR(grad.cube_us, explicit_k.cube_us, 1e-9 * explicit_k.cube_us);
  EXPECT_LT(grad.time_us, 1000.0);
}

TEST(PerfCostModel, Int8PadsKToThirtyTwo) {
  const auto& t = Ascend910();
  // The int8 fractal is 16x32x16: k = 40 pads to 64, the same work as k = 64.
  const double k40 = PredictKernel(MatMulNd(4096, 40, 4096, "int8"), t).cube_us;
  const double k64 = PredictKernel(MatMulNd(4096, 64, 4096, "int8"), t).cube_us;
  const double k32 = PredictKernel(MatMulNd(4096, 32, 4096, "int8"), t).cube_us;
  EXPECT_DOUBLE_EQ(k40, k64);
  EXPECT_LT(k32, k40);
  // and int8 runs at twice the fp16 MAC rate (8192 vs 4096 MACs per cycle in the profile)
  const double f64 = PredictKernel(MatMulNd(4096, 64, 4096), t).cube_us;
  EXPECT_NEAR(f64 / k64, 2.0, 1e-9);
}

TEST(PerfCostModel, CubeTimeFollowsCoresClockAndRate) {
  const auto& t = Ascend910();
  // 4096^3 fp16 over 32 cores x 4096 MACs x clock: 8192 tiles of 128x256 divide evenly.
  const KernelCost c = PredictKernel(MatMulNd(4096, 4096, 4096), t);
  const double expect = 4096.0 * 4096 * 4096 / (32 * 4096 * t.compute.clock.value) * 1e6;
  EXPECT_NEAR(c.cube_us, expect, 1e-6 * expect);
  // A convolution has fp16 kernels only: a float32 label on its input does not change its cube
  // time (no fp32 passes; the C0 of 16 is read as fp16).
  const std::vector<std::string> w = {"FracZ:float16:36x4x16x16"};
  const auto conv = [&](const std::string& dt) {
    return K("Conv2D", 32, {"NC1HWC0:" + dt + ":32x4x56x56x16", w[0]}, {"NC1HWC0:float16:32x4x56x56x16"});
  };
  EXPECT_DOUBLE_EQ(PredictKernel(conv("float32"), t).cube_us, PredictKernel(conv("float16"), t).cube_us);
}

TEST(PerfCostModel, BlockDimTailCostsAWholeWave) {
  // Bytes only: the DMA heads per tile (cost_model_dma_test.cc) do not scale with the cores.
  target::Target t = Ascend910AtAttRates();
  t.kernel->dma_instruction_heads.clear();
  auto add = [](int bd) {
    return K("Add", bd, {"ND:float16:64x1024x1024", "ND:float16:64x1024x1024"}, {"ND:float16:64x1024x1024"});
  };
  const KernelCost c32 = PredictKernel(add(32), t);
  const KernelCost c33 = PredictKernel(add(33), t);  // 33 blocks on 32 cores: two waves
  const KernelCost c16 = PredictKernel(add(16), t);
  const KernelCost c8 = PredictKernel(add(8), t);
  EXPECT_EQ(c32.bound, Bound::kMemory);
  // Two waves of 33 blocks: the busiest core runs two blocks of ceil(64 Mi / 33) elements in whole
  // 32 B blocks of 16 (cost_model_split.cc), against 4 Mi on each of 16 blocks: worse than 32
  // blocks, a little better than 16.
  const double elements = 64.0 * 1024 * 1024;
  const double busiest33 = 2 * std::ceil(std::ceil(elements / 33) / 16) * 16;
  EXPECT_NEAR(c33.memory_us, c16.memory_us * busiest33 / (elements / 16), 1e-9 * c33.memory_us);
  EXPECT_GT(c33.memory_us, 1.5 * c32.memory_us);
  // Below the HBM limit the per-core DMA paths set the time: half the cores, twice the time.
  EXPECT_NEAR(c8.memory_us, 2 * c16.memory_us, 1e-9 * c8.memory_us);
}

TEST(PerfCostModel, CubeWorkNotDividingOverCoresCostsTheBusiestCoreAFractal) {
  const auto& t = Ascend910();
  // 33 fractal rows (k and n one fractal: only m can be split) on 32 cores: the busiest core
  // computes 2 rows of fractals where 32 rows give every core one.
  const double t32 = PredictKernel(MatMulNd(16 * 32, 16, 16), t).cube_us;
  const double t33 = PredictKernel(MatMulNd(16 * 33, 16, 16), t).cube_us;
  EXPECT_NEAR(t33 / t32, 2.0, 1e-9);
}

TEST(PerfCostModel, MemoryComputeAndLatencyBounds) {
  const auto& t = Ascend910();
  const KernelCost big = PredictKernel(
      K("Add", 32, {"ND:float32:100000000", "ND:float32:100000000"}, {"ND:float32:100000000"}), t);
  EXPECT_EQ(big.bound, Bound::kMemory);
  EXPECT_GT(big.memory_us, big.vector_us);
  const KernelCost gelu =
      PredictKernel(K("GeLUGrad", 32, {"ND:float16:100000000"}, {"ND:float16:100000000"}), t);
  EXPECT_EQ(gelu.bound, Bound::kVector);  // 15 ops per element outrun the bytes
  const KernelCost tiny = PredictKernel(K("Add", 1, {"ND:float16:", "ND:float16:"}, {"ND:float16:"}), t);
  EXPECT_EQ(tiny.bound, Bound::kLatency);
  // The launch, then its one tile's stages one after another (nothing to overlap with,
  // PipelineFillTime): its two loads (a DMA head each and one 32 B block each), the head of its
  // one add instruction (and its one element, 1e-5 us), and its store (a head and one block).
  const double clock = t.compute.clock.value;
  const double head_us = 1e6 * t.kernel->vector_instruction_heads.at("simple").value / clock;
  const double load_us =
      1e6 * (2 * t.kernel->dma_instruction_heads.at("gm_to_ub").value + 2 * 32 / t.datapath->gm_to_ub.value) /
      clock;
  const double store_us =
      1e6 * (t.kernel->dma_instruction_heads.at("ub_to_gm").value + 32 / t.datapath->ub_to_gm.value) / clock;
  EXPECT_NEAR(tiny.time_us, 1e6 * t.kernel->launch_overhead.value + load_us + head_us + store_us, 1e-4);
  // A skinny matmul is bound by its operand traffic, a square one by the cube.
  EXPECT_EQ(PredictKernel(MatMulNd(1 << 20, 16, 16), t).bound, Bound::kMemory);
}

TEST(PerfCostModel, EachBlockAfterTheFirstAddsItsStart) {
  const auto& t = Ascend910();
  // The same few bytes spread over 30 blocks end 29 block starts after the one-block kernel.
  const auto add = [&](int block_dim) {
    return PredictKernel(K("Add", block_dim, {"ND:float16:", "ND:float16:"}, {"ND:float16:"}), t);
  };
  EXPECT_NEAR(add(30).time_us - add(1).time_us, 29e6 * t.kernel->block_start.value, 0.01);
  EXPECT_EQ(add(30).bound, Bound::kLatency);
}

TEST(PerfCostModel, FusedKernelIsComposedOfItsParts) {
  const auto& t = Ascend910AtAttRates();
  const std::vector<std::string> in = {"NC1HWC0:float16:32x4x56x56x16", "FracZ:float16:36x4x16x16"};
  const std::vector<std::string> out = {"NC1HWC0:float16:32x4x56x56x16", "NC1HWC0:float32:1x4x1x1x16",
                                        "NC1HWC0:float32:1x4x1x1x16"};
  const KernelCost fused = PredictKernel(K("FusionOp_Conv2D_BNTrainingReduce", 32, in, out), t);
  const KernelCost conv = PredictKernel(K("Conv2D", 32, in, {out[0]}), t);
  const KernelCost bn = PredictKernel(K("BNTrainingReduce", 32, {out[0]}, {out[1], out[2]}), t);
  // The BN sums need whole convolution sums: the fused kernel may not split k over the cores, so
  // its cube does at least the plain convolution's work per core.
  EXPECT_GE(fused.cube_us, conv.cube_us - 1e-9);
  EXPECT_NEAR(fused.vector_us, bn.vector_us, 1e-9);
  // The fused kernel drains each tile into the BN sums' UB stage after its MADs, with no L0C
  // preload (session 16, rn13), where the plain convolution's next tile covers its drain: so it
  // is no faster than either part, and here (3x3, 56 x 56, 64 channels on 32 blocks) no longer
  // faster than the two kernels apart either (69.8 against 64.7 us); the measured fused record
  // of this shape (24 blocks) takes 98.4 us. The saved launch and HBM round trip of y are what
  // the plain BN kernel's moves would cost.
  EXPECT_GE(fused.time_us, std::max(conv.time_us, bn.time_us) - 1e-9);
  EXPECT_LT(fused.memory_us, conv.memory_us + bn.memory_us);
  // Elementwise chains add their vector work.
  const std::vector<std::string> x = {"ND:float32:1000000", "ND:float32:1000000"};
  const double mul = PredictKernel(K("Mul", 32, x, {x[0]}), t).vector_us;
  const double neg = PredictKernel(K("Neg", 32, x, {x[0]}), t).vector_us;
  EXPECT_NEAR(PredictKernel(K("FusionOp_Mul_Neg", 32, x, {x[0]}), t).vector_us, mul + neg, 1e-9);
}

TEST(PerfCostModel, AMatmulNeverSplitsKOverCores) {
  const auto& t = Ascend910();
  // One 16 x 16 output fractal over k = 65536: only a k split could spread it over the cores.
  // A matmul keeps all of k on one core whatever is fused after it (no AtomicAddrClean precedes a
  // matmul record; TBE's static schedule has no k split), so 32 blocks take as long as one.
  const std::vector<std::string> in = {Nd(16, 65536, "float16"), Nd(65536, 16, "float16")};
  const std::vector<std::string> out = {Nd(16, 16, "float16")};
  const double plain = PredictKernel(K("MatMul", 32, in, out), t).cube_us;
  EXPECT_DOUBLE_EQ(PredictKernel(K("FusionOp_MatMul_GeLU", 32, in, out), t).cube_us, plain);
  EXPECT_DOUBLE_EQ(PredictKernel(K("FusionOp_MatMul_Mul", 32, in, out), t).cube_us, plain);
  EXPECT_DOUBLE_EQ(PredictKernel(K("MatMul", 1, in, out), t).cube_us, plain);
}

TEST(PerfCostModel, AConvolutionWeightGradientSplitsKOverCores) {
  const auto& t = Ascend910();
  // dW of a 1x1 convolution: a 64 x 64 output over k = 32 x 56 x 56 = 100,352 (the records put an
  // AtomicAddrClean before each such kernel): 32 blocks split k, one block cannot.
  const std::vector<std::string> in = {"NC1HWC0:float16:32x4x56x56x16", "NC1HWC0:float16:32x4x56x56x16"};
  const std::vector<std::string> out = {"FracZ:float32:4x4x16x16"};
  const double one = PredictKernel(K("Conv2DBackpropFilter", 1, in, out), t).cube_us;
  const double many = PredictKernel(K("Conv2DBackpropFilter", 32, in, out), t).cube_us;
  EXPECT_LT(many, one / 8);
}

TEST(PerfCostModel, CubeReadsFp32LabelInC0Of16AsFp16) {
  const auto& t = Ascend910();
  // 1x1 conv, memory bound: its float32-labelled NC1HWC0 input moves as fp16, and so does its
  // output (a 910 convolution writes float16: WithConvolutionDtypes).
  const auto conv = [](const std::string& in, const std::string& out) {
    return K("Conv2D", 30, {"NC1HWC0:" + in + ":32x4x56x56x16", "FracZ:float16:4x16x16x16"},
             {"NC1HWC0:" + out + ":32x16x56x56x16"});
  };
  EXPECT_DOUBLE_EQ(PredictKernel(conv("float32", "float16"), t).memory_us,
                   PredictKernel(conv("float16", "float16"), t).memory_us);
  EXPECT_DOUBLE_EQ(PredictKernel(conv("float16", "float32"), t).memory_us,
                   PredictKernel(conv("float16", "float16"), t).memory_us);
  // A vector kernel moves what its labels say.
  const auto bn = [](const std::string& dt) {
    return K("BNTrainingUpdate", 30, {"NC1HWC0:" + dt + ":32x16x56x56x16"},
             {"NC1HWC0:" + dt + ":32x16x56x56x16"});
  };
  EXPECT_NEAR(PredictKernel(bn("float32"), t).memory_us, 2 * PredictKernel(bn("float16"), t).memory_us, 1e-6);
  // In ND a float32 label is 4 bytes.
  const auto nd = [](const std::string& dt) {
    return K("Cast", 30, {"ND:" + dt + ":4096x4096"}, {"ND:" + dt + ":4096x4096"});
  };
  EXPECT_NEAR(PredictKernel(nd("float32"), t).memory_us, 2 * PredictKernel(nd("float16"), t).memory_us, 1e-6);
}

TEST(PerfCostModel, ConvolutionReadsItsInputOnceNotItsIm2col) {
  const auto& t = Ascend910AtAttRates();
  // A 3x3 conv unfolds x on chip: less operand traffic, and less time, than a matmul over the
  // unfolded matrix (m = 32*28*28, k = 9*128, n = 128) doing the same MACs.
  const KernelCost conv =
      PredictKernel(K("Conv2D", 32, {"NC1HWC0:float16:32x8x28x28x16", "FracZ:float16:72x8x16x16"},
                      {"NC1HWC0:float16:32x8x28x28x16"}),
                    t);
  const KernelCost mm = PredictKernel(MatMulNd(32 * 28 * 28, 9 * 128, 128), t);
  EXPECT_LT(conv.memory_us, 0.5 * mm.memory_us);
  EXPECT_LT(conv.time_us, mm.time_us);
}

TEST(PerfCostModel, ConvolutionPadsEachImageToWholeFractals) {
  // At the profile's rates with the L0C -> UB drain the two differ by 3.8% (4.52 against 4.36 us;
  // not traced: W enters load3d's row switches, 16 / W); the padding is checked at the older rates.
  const auto& t = Ascend910AtAttRates();
  // NC1HWC0 keeps an image's pixels together: 7 x 7 = 49 output pixels per image fill 4 fractals
  // of 16 rows, as much cube work as 8 x 8 = 64, more than the 49 x 32 / 16 = 98 rows of the
  // batch taken as one matrix.
  const auto conv = [](int hw) {
    const std::string s = std::to_string(hw);
    return K("Conv2D", 32, {"NC1HWC0:float16:32x32x" + s + "x" + s + "x16", "FracZ:float16:32x32x16x16"},
             {"NC1HWC0:float16:32x32x" + s + "x" + s + "x16"});
  };
  EXPECT_DOUBLE_EQ(PredictKernel(conv(7), t).cube_us, PredictKernel(conv(8), t).cube_us);
}

// TBE computes a 1x1 backprop-input (DeConvKernelSize1Pattern) over dy's pixels and dilates the
// result to dx in UB; any other kernel (the general pattern) dilates dy first and runs a
// stride-1 convolution over dx's pixels, its zeros included.
TEST(PerfCostModel, StridedBackpropInputCountsTheMacsItsPatternRuns) {
  // Without the per-instruction heads, whose count follows the tiling each kernel gets, the cube
  // time is the MACs alone.
  const auto edited = LoadEditedAscend910([](nlohmann::json& j) {
    j["kernel"].erase("cube_instruction_heads");
    for (const auto& [key, rate] :
         {std::pair{"gm_to_l1", 32}, {"l2_to_l1", 110}, {"gm_to_ub", 32}, {"ub_to_gm", 32}})
      j["datapath"][key]["value"] = rate;  // the rates its arithmetic was written at (Ascend910AtAttRates)
    j["datapath"].erase("l0c_to_ub");
  });
  ASSERT_TRUE(edited.ok()) << edited.status().message();
  const target::Target& t = *edited;
  const auto dx_of = [&](const std::string& dy, const std::string& w, const std::string& dx) {
    return PredictKernel(K("Conv2DBackpropInput", 16, {"NC1HWC0:float16:" + dy, "FracZ:float16:" + w},
                           {"NC1HWC0:float16:" + dx}),
                         t);
  };
  // 1x1, stride 2: the MADs of the stride-1 kernel at dy's 14 x 14, but a 4x larger dx written.
  const KernelCost strided = dx_of("32x16x14x14x16", "8x16x16x16", "32x8x28x28x16");
  const KernelCost at_dy = dx_of("32x16x14x14x16", "8x16x16x16", "32x8x14x14x16");
  EXPECT_DOUBLE_EQ(strided.cube_us, at_dy.cube_us);
  EXPECT_GT(strided.time_us, at_dy.time_us);
  // 3x3, stride 2: the MADs of the stride-1 kernel at dx's 28 x 28 (its matrix view, which
  // PerfConvSplit in cost_model_conv_reads_test.cc checks: the strided one is split over its cores
  // differently).
}

TEST(PerfCostModel, FusedVectorWorkOnTheCubeOutputRunsAtItsType) {
  const auto& t = Ascend910();
  // The BN sums of a fused conv run over the conv's output as it leaves L0C, which a 910
  // convolution writes in float16 whatever its label (WithConvolutionDtypes).
  const auto fused = [](const std::string& out) {
    return K(
        "FusionOp_Conv2D_BNTrainingReduce", 32, {"NC1HWC0:float32:32x4x56x56x16", "FracZ:float16:4x16x16x16"},
        {"NC1HWC0:" + out + ":32x16x56x56x16", "NC1HWC0:float32:1x16x1x1x16", "NC1HWC0:float32:1x16x1x1x16"});
  };
  EXPECT_GT(PredictKernel(fused("float16"), t).vector_us, 0);
  EXPECT_DOUBLE_EQ(PredictKernel(fused("float32"), t).vector_us,
                   PredictKernel(fused("float16"), t).vector_us);
}

TEST(PerfCostModel, UnknownTypesAndAiCpu) {
  const auto& t = Ascend910();
  const KernelCost u =
      PredictKernel(K("FusionOp_Conv2D_NoSuchOp", 32, {"ND:float16:16"}, {"ND:float16:16"}), t);
  EXPECT_FALSE(u.known);
  EXPECT_EQ(u.time_us, 0);
  EXPECT_TRUE(u.note.empty()) << u.note;  // the unknown type is the reason; notes are for records
  Kernel k = K("Add", 0, {"ND:float32:1000000", "ND:float32:1000000"}, {"ND:float32:1000000"});
  k.aicpu = true;
  const KernelCost a = PredictKernel(k, t);
  EXPECT_EQ(a.bound, Bound::kAiCpu);
  EXPECT_GT(a.time_us, 1e6 * t.aicpu->task_overhead.value);
  k.aicpu = false;
  EXPECT_LT(PredictKernel(k, t).time_us, a.time_us);  // the AI Core is far faster
  EXPECT_EQ(PredictKernel(k, t).block_dim, 32);       // block_dim 0: the model picks the cores
}

}  // namespace
}  // namespace npugap::analysis::perf
