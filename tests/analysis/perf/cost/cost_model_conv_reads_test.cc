// What the cube reads of a convolution's feature map (cost_model_cube.cc, ConvShape). A weight
// gradient is dW = x^T dy with k over dy's pixels and B the im2col of x. FusedDbnDw takes, besides x and dy,
// the BN input (as large as dy) and five per-channel [1, C1, 1, 1, C0] tensors; none of those may stand for
// dy or x. A forward 1x1 window at stride_h > 1 reads only the rows it uses. A strided forward's
// backprop input is bound on the batch axis only (CubeShape::batch_cores_only).
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CubeShape Shape(const Kernel& k) {
  auto s = DeriveCubeShape(k.op_type, k, Ascend910());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : CubeShape{};
}

// The records' FusedDbnDw: x, grads, x_norm, diff_scale, diff_offset, scale, batch_mean,
// batch_variance -> dbn_y, dw (MindSpore's fused_dbn_dw op info).
Kernel FusedDbnDw(const std::string& x, const std::string& dy, int c1, const std::string& dw) {
  const std::string channels = "NC1HWC0:float16:1x" + std::to_string(c1) + "x1x1x16";
  return K("FusedDbnDw", 32, {x, dy, dy, channels, channels, channels, channels, channels}, {dy, dw});
}

void ExpectView(const CubeShape& s, int64_t k, int64_t n, int64_t m, double b_expand) {
  EXPECT_EQ(s.k, k);
  EXPECT_EQ(s.n, n);
  EXPECT_EQ(s.m, m);
  EXPECT_DOUBLE_EQ(s.b_expand, b_expand);
}

TEST(PerfFilterGradient, FusedDbnDwRunsItsMadsOverDysPixelsNotAPerChannelTensors) {
  // 3x3 stride 1, 64 -> 64 channels on 56 x 56: k = 32 images x 3136 pixels (196 fractals each),
  // n = Cin x 9 = 576, m = Cout = 64; B is x unfolded 9 times.
  const CubeShape s = Shape(FusedDbnDw("NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x4x56x56x16", 4,
                                       "FracZ:float16:36x4x16x16"));
  ExpectView(s, 32 * 3136, 576, 64, 9.0);
  // The same product as the plain weight gradient of the same x and dy (which lists dy first).
  const CubeShape plain =
      Shape(K("Conv2DBackpropFilter", 32, {"NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x4x56x56x16"},
              {"FracZ:float16:36x4x16x16"}));
  ExpectView(plain, s.k, s.n, s.m, s.b_expand);
  // So the fused kernel's cube takes the plain kernel's MADs: 32 x 3136 x 576 x 64 MACs over 32
  // cores at 4096 per cycle at least.
  const auto& t = Ascend910();
  EXPECT_DOUBLE_EQ(CubeTime(s, 32, t).compute, CubeTime(plain, 32, t).compute);
  EXPECT_GE(CubeTime(s, 32, t).compute * t.compute.clock.value, 32.0 * 3136 * 576 * 64 / 32 / 4096);
  // The 7x7 stride-2 stem: k over dy's 112 x 112 pixels, B built by load3d at stride 2.
  const CubeShape stem = Shape(FusedDbnDw("NC1HWC0:float32:32x1x224x224x16",
                                          "NC1HWC0:float32:32x4x112x112x16", 4, "FracZ:float16:49x4x16x16"));
  ExpectView(stem, 32 * 12544, 784, 64, 784.0 * 12544 / (224.0 * 224 * 16));
  EXPECT_EQ(stem.load3d, CubeShape::Load3d::kB);
  EXPECT_EQ(stem.load3d_stride, 2);
}

TEST(PerfFilterGradient, UnfoldedXIsCountedAgainstXEvenWhenDyIsLarger) {
  // 1x1, 512 -> 2048 channels on 7 x 7 (49 pixels padded to 64 per image): B = n x k = 512 x
  // 2048 elements built from x's 32 x 512 x 49, so 64 / 49 of x, not clamped against dy's size.
  const CubeShape s =
      Shape(K("Conv2DBackpropFilter", 16, {"NC1HWC0:float32:32x128x7x7x16", "NC1HWC0:float32:32x32x7x7x16"},
              {"FracZ:float16:32x128x16x16"}));
  ExpectView(s, 32 * 64, 512, 2048, 64.0 / 49);
}

TEST(PerfStridedForward, A1x1WindowAtStrideTwoReadsEveryOtherRowOfXWhole) {
  // 1x1 stride 2, 256 -> 512 channels, 56 x 56 -> 28 x 28: TBE's strideh_opti brings rows 0, 2,
  // ... of x into L1 (28 of 56, every column), so the cube reads half of x: twice its unfolded
  // matrix (every other column of those rows), and the other half never.
  const CubeShape s = Shape(K("Conv2D", 16, {"NC1HWC0:float32:32x16x56x56x16", "FracZ:float32:16x32x16x16"},
                              {"NC1HWC0:float32:32x32x28x28x16"}));
  const int64_t x = 32 * 16 * 56 * 56 * 16;
  EXPECT_EQ(s.m * s.k, x / 4);
  EXPECT_DOUBLE_EQ(s.a_expand, 0.5);
  EXPECT_EQ(s.unread_elements, x / 2);
  EXPECT_EQ(s.load3d_stride, 2);
  // A 3x3 window at stride 2 touches every row: all of x is read, unfolded on chip.
  const CubeShape s3 = Shape(K("Conv2D", 16, {"NC1HWC0:float32:32x8x56x56x16", "FracZ:float32:72x8x16x16"},
                               {"NC1HWC0:float32:32x8x28x28x16"}));
  EXPECT_EQ(s3.unread_elements, 0);
  EXPECT_GE(s3.a_expand, 1.0);
  // A 1x1 stride-1 window reads x as it lies.
  const CubeShape s1 = Shape(K("Conv2D", 16, {"NC1HWC0:float32:32x4x56x56x16", "FracZ:float32:4x16x16x16"},
                               {"NC1HWC0:float32:32x16x56x56x16"}));
  EXPECT_EQ(s1.unread_elements, 0);
  EXPECT_DOUBLE_EQ(s1.a_expand, 1.0);
}

TEST(PerfFusedDbnDw, MovesTheDtypesItsOpInfoRegistersWhateverTheLabels) {
  // MindSpore's fused_dbn_dw op info has one dtype_format: x, grads, x_norm and dbn_y float16,
  // the five per-channel tensors and dw float32. The records label them the other way round.
  const Kernel recorded = FusedDbnDw("NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x16x56x56x16", 16,
                                     "FracZ:float16:4x16x16x16");
  const auto registered = WithRegisteredDtypes(recorded);
  ASSERT_TRUE(registered.has_value());
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(registered->inputs[i].dtype, i < 3 ? "float16" : "float32") << i;
  EXPECT_EQ(registered->outputs[0].dtype, "float16");
  EXPECT_EQ(registered->outputs[1].dtype, "float32");
  EXPECT_EQ(registered->inputs[1].shape, recorded.inputs[1].shape);
  // So a record labelled as registered costs the same as one labelled the other way round.
  Kernel labelled = recorded;
  labelled.inputs = registered->inputs;
  labelled.outputs = registered->outputs;
  EXPECT_DOUBLE_EQ(PredictKernel(recorded, Ascend910()).time_us,
                   PredictKernel(labelled, Ascend910()).time_us);
  // Another kernel type, or another operand list, is left as recorded.
  EXPECT_FALSE(WithRegisteredDtypes(K("Conv2DBackpropFilter", 16,
                                      {"NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x4x56x56x16"},
                                      {"FracZ:float16:4x4x16x16"}))
                   .has_value());
  Kernel short_list = recorded;
  short_list.inputs.resize(3);
  EXPECT_FALSE(WithRegisteredDtypes(short_list).has_value());
}

TEST(PerfFusedDbnDw, ItsBnGradientRunsInFloat32OnFloat16Maps) {
  // The TIK kernel casts dy and x_norm to float32, runs a vmadd, a vadd and a vmul, and casts dx
  // back: 6 instructions per element of dy at the float32 rate, over the 32 cores.
  const Kernel k = FusedDbnDw("NC1HWC0:float32:32x4x56x56x16", "NC1HWC0:float32:32x16x56x56x16", 16,
                              "FracZ:float16:4x16x16x16");
  const auto& t = Ascend910();
  const KernelCost c = PredictKernel(k, t);
  VectorOps six;
  six.simple = 6;
  const double elements = 32.0 * 16 * 56 * 56 * 16;
  EXPECT_GE(c.vector_us, 1e6 * VectorTime(static_cast<int64_t>(elements), six, "float32", t) / 32);
  EXPECT_LT(c.vector_us, 2e6 * VectorTime(static_cast<int64_t>(elements), six, "float32", t) / 32);
}

TEST(PerfConvSplit, AStridedBackpropInputIsBoundOnTheBatchOnly) {
  // The records' 3x3 stride-2 backprop input 14 x 14 -> 28 x 28 (dy dilated to dx) and its
  // stride-1 sibling 14 x 14 -> 14 x 14; and the 1x1 stride-2 one (kernel-size-1 pattern).
  const CubeShape strided =
      Shape(K("Conv2DBackpropInput", 30, {"NC1HWC0:float16:32x16x14x14x16", "FracZ:float16:144x16x16x16"},
              {"NC1HWC0:float16:32x16x28x28x16"}));
  const CubeShape plain =
      Shape(K("Conv2DBackpropInput", 16, {"NC1HWC0:float16:32x16x14x14x16", "FracZ:float16:144x16x16x16"},
              {"NC1HWC0:float16:32x16x14x14x16"}));
  const CubeShape one_by_one =
      Shape(K("Conv2DBackpropInput", 28, {"NC1HWC0:float16:32x64x14x14x16", "FracZ:float16:32x64x16x16"},
              {"NC1HWC0:float16:32x32x28x28x16"}));
  // The strided one runs the stride-1 kernel's MADs at dx's 28 x 28 (the dilated dy).
  const CubeShape at_dx =
      Shape(K("Conv2DBackpropInput", 16, {"NC1HWC0:float16:32x16x28x28x16", "FracZ:float16:144x16x16x16"},
              {"NC1HWC0:float16:32x16x28x28x16"}));
  EXPECT_EQ(strided.m, at_dx.m);
  EXPECT_EQ(strided.n, at_dx.n);
  EXPECT_EQ(strided.k, at_dx.k);
  EXPECT_TRUE(strided.batch_cores_only);
  EXPECT_TRUE(one_by_one.batch_cores_only);
  EXPECT_FALSE(plain.batch_cores_only);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
