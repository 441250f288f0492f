// Convolutions on the cube side (cost_model_load3d.cc, cost_model_cube.cc, cost_model_cube_time.cc):
// load3d writes the unfolded operand into L0 at CANN's table rates, and a convolution is timed as
// CANN's convolution cycle calculators time it (A's and B's MTE1 loads add, each MAD and load
// instruction pays kernel.cube_instruction_heads). Matmuls keep the GEMM model.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

using Load3d = CubeShape::Load3d;

TEST(PerfLoad3d, RatesFollowCannsTableOnTheL0aPort) {
  // stride 1: 512 / (n + 2) into L0A, 512 / (n + 4) into L0B; strides 2, 4, 8: 512 / (2 s + n)
  // and 512 / (2 s + n + 2); any other stride 32 and 512 / 18.
  EXPECT_DOUBLE_EQ(Load3dRate(512, false, 1, 0), 256);
  EXPECT_DOUBLE_EQ(Load3dRate(512, true, 1, 0), 128);
  EXPECT_DOUBLE_EQ(Load3dRate(512, false, 1, 2), 128);
  EXPECT_DOUBLE_EQ(Load3dRate(512, false, 2, 0), 128);
  EXPECT_DOUBLE_EQ(Load3dRate(512, true, 2, 1), 512.0 / 7);
  EXPECT_DOUBLE_EQ(Load3dRate(512, false, 4, 0), 64);
  EXPECT_DOUBLE_EQ(Load3dRate(512, false, 3, 0), 32);
  EXPECT_DOUBLE_EQ(Load3dRate(512, true, 3, 0), 512.0 / 18);
  // Row changes inside a 16-pixel fractal: 16 / W, or 15 / W when W divides 16.
  EXPECT_EQ(Load3dRowSwitches(7), 2);
  EXPECT_EQ(Load3dRowSwitches(14), 1);
  EXPECT_EQ(Load3dRowSwitches(8), 1);
  EXPECT_EQ(Load3dRowSwitches(16), 0);
  EXPECT_EQ(Load3dRowSwitches(56), 0);
}

CubeShape Shape(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  auto s = DeriveCubeShape(op, K(op, 16, std::move(in), std::move(out)), Ascend910());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : CubeShape{};
}

void ExpectLoad3d(const CubeShape& s, Load3d where, int stride, int rows) {
  EXPECT_TRUE(s.conv);
  EXPECT_EQ(s.load3d, where);
  EXPECT_EQ(s.load3d_stride, stride);
  EXPECT_EQ(s.load3d_row_switches, rows);
}

TEST(PerfLoad3d, TheUnfoldedOperandOfEachConvolutionIsFoundWithItsStrideAndRows) {
  // Forward 3x3 stride 1 over a 7 x 7 map: A by load3d, 2 row switches per fractal.
  CubeShape s = Shape("Conv2D", {"NC1HWC0:float16:32x32x7x7x16", "FracZ:float16:288x32x16x16"},
                      {"NC1HWC0:float16:32x32x7x7x16"});
  ExpectLoad3d(s, Load3d::kA, 1, 2);
  EXPECT_EQ(s.images, 32);
  // 1x1 stride 1 is loaded as it lies (load2d); 1x1 stride 2 needs load3d at stride 2.
  EXPECT_EQ(Shape("Conv2D", {"NC1HWC0:float16:32x4x56x56x16", "FracZ:float16:4x16x16x16"},
                  {"NC1HWC0:float16:32x16x56x56x16"})
                .load3d,
            Load3d::kNone);
  s = Shape("Conv2D", {"NC1HWC0:float16:32x16x56x56x16", "FracZ:float16:16x32x16x16"},
            {"NC1HWC0:float16:32x32x28x28x16"});
  ExpectLoad3d(s, Load3d::kA, 2, 0);
  // A strided 3x3 backprop input convolves the dilated dy at stride 1 over dx's 28 x 28 pixels.
  s = Shape("Conv2DBackpropInput", {"NC1HWC0:float16:32x16x14x14x16", "FracZ:float16:144x16x16x16"},
            {"NC1HWC0:float16:32x16x28x28x16"});
  ExpectLoad3d(s, Load3d::kA, 1, 0);
  EXPECT_EQ(s.images, 32);  // m runs over 32 images of 784 pixels each, split per image
  EXPECT_EQ(s.m, 32 * 784);
  // A 1x1 one runs over dy's pixels, loaded as they lie.
  s = Shape("Conv2DBackpropInput", {"NC1HWC0:float16:32x16x14x14x16", "FracZ:float16:8x16x16x16"},
            {"NC1HWC0:float16:32x8x28x28x16"});
  EXPECT_EQ(s.load3d, Load3d::kNone);
  EXPECT_EQ(s.images, 32);
  EXPECT_EQ(s.m, 32 * 208);  // 14 x 14 = 196 pixels of dy per image, padded to 13 fractals
  // Weight gradients: B is x unfolded over dy's pixels. Conv2DBackpropFilter lists dy first,
  // FusedDbnDw x first; the stride is x's width over dy's either way (3x3 56 -> 28 and 1x1 56 -> 28).
  s = Shape("Conv2DBackpropFilter", {"NC1HWC0:float16:32x8x28x28x16", "NC1HWC0:float16:32x8x56x56x16"},
            {"FracZ:float16:72x8x16x16"});
  ExpectLoad3d(s, Load3d::kB, 2, 0);
  s = Shape("FusedDbnDw",
            {"NC1HWC0:float16:32x16x56x56x16", "NC1HWC0:float16:32x32x28x28x16",
             "NC1HWC0:float16:32x32x28x28x16", "NC1HWC0:float16:1x32x1x1x16"},
            {"NC1HWC0:float16:32x32x28x28x16", "FracZ:float16:16x32x16x16"});
  ExpectLoad3d(s, Load3d::kB, 2, 0);
  // A matmul is no convolution.
  EXPECT_FALSE(Shape("MatMul", {"ND:float16:64x64", "ND:float16:64x64"}, {"ND:float16:64x64"}).conv);
}

TEST(PerfLoad3d, AConvolutionPaysInstructionHeadsAndLoadsAThenB) {
  const auto& t = Ascend910AtAttRates();
  ASSERT_TRUE(t.kernel.has_value());
  const auto& heads = t.kernel->cube_instruction_heads;
  ASSERT_EQ(heads.size(), 3u);
  const double mad_head = heads.at("mad").value, l2d = heads.at("load2d").value,
               l3d = heads.at("load3d").value;
  // One 16 x 16 x 16 step on one core. MAD: 1 cycle + its head. MTE1: A by load3d at stride 1
  // (512 B at 256 B/cycle = 2 cycles + the load3d head), then B by load2d (512 B at the profile's
  // 256 B/cycle into L0B = 2 cycles + the load2d head): the step takes the MTE1 sum. A and B
  // stream from GM (16 cycles each at 32 B/cycle, double-buffered under the step), and the next
  // tile covers the drain; the fastest mode is the step alone when it outlasts the loads.
  CubeShape conv;
  conv.m = conv.n = conv.k = 16;
  conv.conv = true;
  conv.load3d = Load3d::kA;
  const double clock = t.compute.clock.value;
  const CubeTimes c = CubeTime(conv, 1, t);
  const double step = std::max(1 + mad_head, 2 + l3d + 2 + l2d);
  EXPECT_NEAR(c.compute * clock, 1 + mad_head, 1e-9);
  EXPECT_NEAR(c.critical * clock, 16 + std::max(16.0, step), 1e-9);
  // The same product as a matmul pays no heads and takes the slower of its two loads.
  CubeShape mm;
  mm.m = mm.n = mm.k = 16;
  const CubeTimes m = CubeTime(mm, 1, t);
  EXPECT_NEAR(m.compute * clock, 1, 1e-9);
  EXPECT_LT(m.critical, c.critical);
}

TEST(PerfLoad3d, NegativeCubeHeadInTheProfileIsAnErrorNamingTheField) {
  ExpectNegativeKernelFieldIsAnError("cube_instruction_heads", "load3d");
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
