// DMA instruction heads per UB tile (kernel.dma_instruction_heads, cost_model_memory.cc,
// docs/perf.md "Tiles"): every expected value is worked out here from the profile's own numbers
// (UB size, DMA rates, clock, heads); the head part of a kernel is its memory time with the heads
// minus its memory time without them, on kernels whose MTE2 load is their slowest memory path.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

// The profile without DMA heads, everything else as built in.
const target::Target& NoDmaHeads() {
  static const target::Target bare = [] {
    target::Target b = Ascend910();
    b.kernel->dma_instruction_heads.clear();
    return b;
  }();
  return bare;
}

class Profile {
 public:
  const target::Target& t = Ascend910();
  const target::Target& bare = NoDmaHeads();
  const double ub = static_cast<double>(t.buffers.ub->value), clock = t.compute.clock.value;
  double H(const char* dir) const { return t.kernel->dma_instruction_heads.at(dir).value; }
  double Us(double cycles) const { return 1e6 * cycles / clock; }
  // Microseconds of DMA heads in a kernel's slowest memory path.
  double Heads(const Kernel& k) const {
    return PredictKernel(k, t).memory_us - PredictKernel(k, bare).memory_us;
  }
};

TEST(PerfDma, ChannelKernelLoadsEachOperandOncePerPlane) {
  const Profile p;
  // BNTrainingUpdateGrad on NC1HWC0 float32: dy and x are full size, mean and rstd per channel.
  // Each tile is one (n, c1) plane (cost_model_tiles.cc) and loads dy, x and the c1 slice of
  // mean and rstd: four MTE2 instructions per plane. The busiest of 30 blocks holds whole c1
  // slices when C1 >= 30 (ceil(C1 / 30) of them, all 32 images), else whole images
  // (ceil(32 / 30) = 2, all C1): bn_update_grad's split (cost_model_split.cc).
  const auto grad = [](const std::string& dims, const std::string& c) {
    const std::string x = "NC1HWC0:float32:" + dims, ch = "NC1HWC0:float32:" + c;
    return K("BNTrainingUpdateGrad", 30, {x, x, ch, ch}, {ch, ch});
  };
  const double planes7 = 32.0 * std::ceil(128.0 / 30);
  EXPECT_NEAR(p.Heads(grad("32x128x7x7x16", "1x128x1x1x16")), p.Us(planes7 * 4 * p.H("gm_to_ub")), 1e-9);
  const double planes14 = 32.0 * std::ceil(64.0 / 30);
  EXPECT_NEAR(p.Heads(grad("32x64x14x14x16", "1x64x1x1x16")), p.Us(planes14 * 4 * p.H("gm_to_ub")), 1e-9);
  // A plane larger than a tile (56 x 56 x 16 float32 = 196 KiB; two full-size operands, each
  // double-buffered) is cut into ceil(plane / tile) tiles, each its own four loads.
  const double cap = std::floor(p.ub / (2 * 2 * 4.0));
  const double per_plane = std::ceil(56.0 * 56 * 16 / cap);
  EXPECT_NEAR(p.Heads(grad("32x16x56x56x16", "1x16x1x1x16")),
              p.Us(std::ceil(32.0 / 30) * 16 * per_plane * 4 * p.H("gm_to_ub")), 1e-9);
}

TEST(PerfDma, ElementwiseKernelPaysOneHeadPerTileAndOperand) {
  const Profile p;
  // Add of two float16 inputs into one output: three full-size buffers, double-buffered. On 8
  // cores the per-core DMA path, not the HBM, is the slowest.
  const std::string x = "ND:float16:64x1024x1024";
  const Kernel add = K("Add", 8, {x, x}, {x});
  const double cap = std::floor(p.ub / (2 * 3 * 2.0));
  const double tiles = std::ceil(64.0 * 1024 * 1024 / 8 / cap);
  // Two loads per tile on MTE2; the single store per tile runs beside them on MTE3.
  const KernelCost with = PredictKernel(add, p.t), without = PredictKernel(add, p.bare);
  const double load = 2.0 * 64 * 1024 * 1024 * 2 / 8 / (p.t.datapath->gm_to_ub.value * p.clock);
  ASSERT_NEAR(without.memory_us, 1e6 * load, 1e-9);  // the load, not HBM, is the slowest path
  EXPECT_NEAR(with.memory_us - without.memory_us, p.Us(tiles * 2 * p.H("gm_to_ub")), 1e-9);
  // Large tiles make the heads small: 27 cycles on a 43 KB tile that moves in ~1370, 2 %.
  EXPECT_LT(with.memory_us - without.memory_us, 0.025 * without.memory_us);
}

TEST(PerfDma, SmallOperandIsLoadedOncePerCore) {
  const Profile p;
  // A scalar multiplier (not per-channel) is read once, the full-size input once per tile.
  const std::string x = "ND:float32:16x1024x1024";
  const Kernel mul = K("Mul", 8, {x, "ND:float32:1"}, {x});
  const double cap = std::floor(p.ub / (2 * 2 * 4.0));
  const double tiles = std::ceil(16.0 * 1024 * 1024 / 8 / cap);
  EXPECT_NEAR(p.Heads(mul), p.Us((tiles + 1) * p.H("gm_to_ub")), 1e-9);
}

TEST(PerfDma, DataMovementKernelPaysTheHeadsToo) {
  const Profile p;
  // A layout change moves every byte through the UB in tiles like an elementwise kernel: two
  // full-size operands, double-buffered; on 4 cores the per-core load is the slowest path.
  const Kernel move = K("TransData", 4, {"ND:float16:4096x4096"}, {"FRACTAL_NZ:float16:256x256x16x16"});
  const double cap = std::floor(p.ub / (2 * 2 * 2.0));
  const double tiles = std::ceil(4096.0 * 4096 / 4 / cap);
  EXPECT_NEAR(p.Heads(move), p.Us(tiles * p.H("gm_to_ub")), 1e-9);
}

TEST(PerfDma, NegativeDmaHeadInTheProfileIsAnErrorNamingTheField) {
  const auto bad = LoadEditedAscend910(
      [](nlohmann::json& j) { j["kernel"]["dma_instruction_heads"]["ub_to_gm"]["value"] = -1; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel.dma_instruction_heads.ub_to_gm"), std::string::npos)
      << bad.status().message();
}

// Not a DMA head, but the bytes those DMAs move: ReLUV2's mask is vcmp's bit mode in CANN's
// relu_v2 (one bit per element of x, uint8 [N, C1, H, W, C0 / 8]), so it is 1 byte per element
// of its shape whatever the record's label; the same shape in a kernel without a ReLUV2 part
// keeps its label.
TEST(PerfDma, ReluV2MaskIsOneBytePerElementWhateverItsLabel) {
  const Profile p;
  const std::string x = "NC1HWC0:float16:32x4x56x56x16";
  const auto relu = [&](const std::string& mask_dtype) {
    return K("ReluV2", 30, {x}, {x, "ND:" + mask_dtype + ":32x4x56x56x2"});
  };
  EXPECT_DOUBLE_EQ(PredictKernel(relu("uint32"), p.t).time_us, PredictKernel(relu("uint8"), p.t).time_us);
  // Without heads the memory time is the slowest of the per-core loads, stores and the HBM.
  const double elems = 32.0 * 4 * 56 * 56 * 16, in = elems * 2, out = elems * 2 + elems / 8;
  const double rate = p.t.datapath->gm_to_ub.value * p.clock;
  const double want = std::max({in / 30 / rate, out / 30 / (p.t.datapath->ub_to_gm.value * p.clock),
                                (in + out) / p.t.memory.bandwidth.value});
  EXPECT_NEAR(PredictKernel(relu("uint32"), p.bare).memory_us, 1e6 * want, 1e-9);
  // ReluGradV2 reads the mask: the same rule on the input side.
  const auto grad = [&](const std::string& mask_dtype) {
    return K("ReluGradV2", 30, {x, "ND:" + mask_dtype + ":32x4x56x56x2"}, {x});
  };
  EXPECT_DOUBLE_EQ(PredictKernel(grad("uint32"), p.t).time_us, PredictKernel(grad("uint8"), p.t).time_us);
  // An Add writing an operand of that shape is not a mask: its uint32 label is 4 bytes.
  const auto add = [&](const std::string& dtype) {
    return K("Add", 30, {x, x}, {x, "ND:" + dtype + ":32x4x56x56x2"});
  };
  EXPECT_GT(PredictKernel(add("uint32"), p.t).time_us, PredictKernel(add("uint8"), p.t).time_us);
}

// In a fused convolution gradient the ReLU runs on the output dx, which is not the largest operand
// when the convolution narrows the channels (dy 16 C1 groups, dx 4): the mask has dx's shape and
// is still bits. A ResNet-50 record's operands (resnet50_bs32_train.csv).
TEST(PerfDma, ReluGradMaskOfANarrowerOutputIsStillBits) {
  const Profile p;
  const auto fused = [&](const std::string& mask_dtype) {
    return K(
        "FusionOp_Conv2DBackpropInput_ReluGradV2", 28,
        {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:4x16x16x16", "ND:" + mask_dtype + ":32x4x56x56x2"},
        {"NC1HWC0:float32:32x4x56x56x16"});
  };
  const KernelCost u32 = PredictKernel(fused("uint32"), p.t), u8 = PredictKernel(fused("uint8"), p.t);
  ASSERT_TRUE(u32.known && u8.known);
  EXPECT_DOUBLE_EQ(u32.time_us, u8.time_us);
  // The label does count where the shape is no mask of any map (C0 / 8 = 2 lanes, here 3).
  const auto odd = [&](const std::string& dtype) {
    return K("FusionOp_Conv2DBackpropInput_ReluGradV2", 28,
             {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:4x16x16x16", "ND:" + dtype + ":32x4x56x56x3"},
             {"NC1HWC0:float32:32x4x56x56x16"});
  };
  EXPECT_GT(PredictKernel(odd("uint32"), p.t).time_us, PredictKernel(odd("uint8"), p.t).time_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
