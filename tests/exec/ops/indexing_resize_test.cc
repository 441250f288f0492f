// Tests of the indexing family's resampling kernels: Resize, Upsample, GridSample. Expected values
// are worked out by hand from the coordinate formulas of the ONNX Resize docs and PyTorch's
// grid_sample definition.
#include <gtest/gtest.h>

#include <cmath>

#include "indexing_test_util.h"
#include "op_test_expect.h"

namespace npugap::testing::indexing {
namespace {

// Resize-11/13 inputs: X, roi, scales, sizes (an undefined tensor is an omitted input).
OpCall ResizeCall(Tensor x, Tensor scales, Tensor sizes, std::map<std::string, ir::Attribute> attributes,
                  Tensor roi = Tensor()) {
  return {.op_type = "Resize", .attributes = std::move(attributes), .inputs = {x, roi, scales, sizes}};
}

// Keys cubic convolution weight of a tap at distance d (the Resize docs' cubic_coeff_a kernel).
double CubicKernel(double d, double a) {
  d = std::abs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

TEST(IndexingResize, NearestUpsampleByScales) {
  auto out = RunAll(ResizeCall(F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({4}, {1, 1, 2, 3}), Tensor(),
                               {{"mode", StringAttr("nearest")}}));
  ExpectValues<float>(out[0], {1, 1, 4, 6},
                      {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(IndexingResize, NearestModes) {
  const Tensor x = F32({4}, {1, 2, 3, 4});
  // asymmetric: x_original = x / 2 -> 0, .5, 1, 1.5, ..., 3.5; round half up, clamp to 3.
  auto out = RunAll(ResizeCall(x, Tensor(), I64({1}, {8}),
                               {{"coordinate_transformation_mode", StringAttr("asymmetric")},
                                {"nearest_mode", StringAttr("round_prefer_ceil")}}));
  ExpectValues<float>(out[0], {8}, {1, 2, 2, 3, 3, 4, 4, 4});
  // half_pixel downsample by 2: x_original = 2x + 0.5 -> 0.5, 2.5; round half down.
  out = RunAll(ResizeCall(x, F32({1}, {0.5f}), Tensor(), {}));
  ExpectValues<float>(out[0], {2}, {1, 3});
  out = RunAll(ResizeCall(x, F32({1}, {0.5f}), Tensor(), {{"nearest_mode", StringAttr("ceil")}}));
  ExpectValues<float>(out[0], {2}, {2, 4});
}

TEST(IndexingResize, LinearHalfPixel) {
  auto out = RunAll(ResizeCall(F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({4}, {1, 1, 2, 2}), Tensor(),
                               {{"mode", StringAttr("linear")}}));
  ExpectNear(out[0], {1, 1, 4, 4},
             {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
}

TEST(IndexingResize, LinearAlignCornersAndPytorchHalfPixel) {
  auto out = RunAll(ResizeCall(
      F32({2}, {1, 2}), Tensor(), I64({1}, {3}),
      {{"mode", StringAttr("linear")}, {"coordinate_transformation_mode", StringAttr("align_corners")}}));
  ExpectNear(out[0], {3}, {1, 1.5f, 2});
  // A single output column samples x_original = 0.
  out = RunAll(ResizeCall(F32({1, 4}, {1, 2, 3, 4}), Tensor(), I64({2}, {1, 1}),
                          {{"mode", StringAttr("linear")},
                           {"coordinate_transformation_mode", StringAttr("pytorch_half_pixel")}}));
  ExpectNear(out[0], {1, 1}, {1});
}

TEST(IndexingResize, CubicAsymmetric) {
  // x_original = x / 2; at x = 1.5 the taps 0..3 weigh k(1.5), k(.5), k(.5), k(1.5).
  const double a = -0.75;
  const float at_half = static_cast<float>(CubicKernel(1.5, a) * 0 + CubicKernel(0.5, a) * 0 +
                                           CubicKernel(0.5, a) * 1 + CubicKernel(1.5, a) * 4);
  const float at_one_and_half = static_cast<float>(CubicKernel(1.5, a) * 0 + CubicKernel(0.5, a) * 1 +
                                                   CubicKernel(0.5, a) * 4 + CubicKernel(1.5, a) * 9);
  EXPECT_NEAR(at_one_and_half, 2.125f, 1e-6);
  auto out = RunAll(ResizeCall(
      F32({6}, {0, 1, 4, 9, 16, 25}), F32({1}, {2}), Tensor(),
      {{"mode", StringAttr("cubic")}, {"coordinate_transformation_mode", StringAttr("asymmetric")}}));
  ASSERT_EQ(out[0].shape(), (ir::Shape{12}));
  const float* y = out[0].data<float>();
  EXPECT_NEAR(y[0], 0, 1e-5);
  EXPECT_NEAR(y[1], at_half, 1e-5);
  EXPECT_NEAR(y[2], 1, 1e-5);
  EXPECT_NEAR(y[3], at_one_and_half, 1e-5);
  EXPECT_NEAR(y[8], 16, 1e-5);
}

TEST(IndexingResize, CubicExcludeOutsideRenormalizes) {
  // half_pixel upsample by 2, x = 0 -> x_original = -0.25: taps -2..1 at distances 1.75, .75, .25,
  // 1.25; the two outside taps are dropped and the rest renormalized.
  const double a = -0.5;
  const double w0 = CubicKernel(0.25, a), w1 = CubicKernel(1.25, a);
  const float expected = static_cast<float>((w0 * 0 + w1 * 1) / (w0 + w1));
  auto out = RunAll(ResizeCall(
      F32({4}, {0, 1, 4, 9}), F32({1}, {2}), Tensor(),
      {{"mode", StringAttr("cubic")}, {"cubic_coeff_a", FloatAttr(-0.5f)}, {"exclude_outside", IntAttr(1)}}));
  ASSERT_EQ(out[0].shape(), (ir::Shape{8}));
  EXPECT_NEAR(out[0].data<float>()[0], expected, 1e-5);
}

TEST(IndexingResize, TfCropAndResizeExtrapolates) {
  // roi [0.5, 1.5] of length 4: x_original = 1.5 + 1.5 x -> 1.5, 3, 4.5 (outside).
  auto out = RunAll(ResizeCall(F32({4}, {0, 10, 20, 30}), Tensor(), I64({1}, {3}),
                               {{"mode", StringAttr("linear")},
                                {"coordinate_transformation_mode", StringAttr("tf_crop_and_resize")},
                                {"extrapolation_value", FloatAttr(7)}},
                               F32({2}, {0.5f, 1.5f})));
  ExpectNear(out[0], {3}, {15, 30, 7});
}

TEST(IndexingResize, Opset10AndUpsampleUseAsymmetricCoordinates) {
  // Resize-10 nearest: floor when upsampling, ceiling when downsampling.
  auto out =
      RunAll({.op_type = "Resize", .opset = 10, .inputs = {I64({5}, {1, 2, 3, 4, 5}), F32({1}, {0.6f})}});
  ExpectValues<int64_t>(out[0], {3}, {1, 3, 5});
  out = RunAll({.op_type = "Upsample",
                .opset = 7,
                .attributes = {{"scales", FloatsAttr({1, 2})}},
                .inputs = {I64({1, 2}, {1, 2})}});
  ExpectValues<int64_t>(out[0], {1, 4}, {1, 1, 2, 2});
  out = RunAll({.op_type = "Upsample",
                .opset = 9,
                .attributes = {{"mode", StringAttr("linear")}},
                .inputs = {F32({2}, {1, 2}), F32({1}, {2})}});
  ExpectNear(out[0], {4}, {1, 1.5f, 2, 2});
}

TEST(IndexingResize, RejectsBadScalesAndSizes) {
  const Tensor x = F32({2}, {1, 2});
  ExpectInvalid(ResizeCall(x, F32({1}, {2}), I64({1}, {4}), {}));
  ExpectInvalid(ResizeCall(x, Tensor(), Tensor(), {}));
  ExpectInvalid(ResizeCall(x, F32({2}, {2, 2}), Tensor(), {}));
  ExpectInvalid(ResizeCall(x, F32({1}, {0}), Tensor(), {}));
  ExpectInvalid(ResizeCall(x, Tensor(), I64({1}, {-1}), {}));
  ExpectInvalid(ResizeCall(x, F32({1}, {2}), Tensor(), {{"mode", StringAttr("area")}}));
  ExpectInvalid(
      ResizeCall(x, F32({1}, {2}), Tensor(), {{"coordinate_transformation_mode", StringAttr("x")}}));
}

// ---- GridSample ------------------------------------------------------------------------------

OpCall GridSampleCall(Tensor x, Tensor grid, std::map<std::string, ir::Attribute> attributes) {
  return {.op_type = "GridSample", .attributes = std::move(attributes), .inputs = {x, grid}};
}

Tensor Image() { return F32({1, 1, 2, 2}, {1, 2, 3, 4}); }

TEST(IndexingGridSample, BilinearZerosAndBorder) {
  // align_corners=0: x = ((g + 1) * 2 - 1) / 2, so -1 -> -0.5, 0 -> 0.5, 1 -> 1.5.
  const Tensor grid = F32({1, 1, 3, 2}, {0, 0, -1, -1, 1, 1});
  auto out = RunAll(GridSampleCall(Image(), grid, {}));
  ExpectNear(out[0], {1, 1, 1, 3}, {2.5f, 0.25f, 1.0f});
  out = RunAll(GridSampleCall(Image(), grid, {{"padding_mode", StringAttr("border")}}));
  ExpectNear(out[0], {1, 1, 1, 3}, {2.5f, 1, 4});
}

TEST(IndexingGridSample, AlignCornersAndNearest) {
  const Tensor grid = F32({1, 1, 3, 2}, {-1, -1, 1, 1, 0, -1});
  auto out = RunAll(GridSampleCall(Image(), grid, {{"align_corners", IntAttr(1)}}));
  ExpectNear(out[0], {1, 1, 1, 3}, {1, 4, 1.5f});
  // x = 0.5 rounds half to even (0); x = 0.6 rounds to 1.
  out = RunAll(GridSampleCall(Image(), F32({1, 1, 3, 2}, {0, 0, 0.2f, 0.2f, -1, 1}),
                              {{"mode", StringAttr("nearest")}, {"align_corners", IntAttr(1)}}));
  ExpectNear(out[0], {1, 1, 1, 3}, {1, 4, 3});
}

TEST(IndexingGridSample, ReflectionPadding) {
  // align_corners=1: g = -2 -> x = -0.5 reflects to 0.5; g = 3 -> x = 2 reflects to 0.
  auto out =
      RunAll(GridSampleCall(Image(), F32({1, 1, 2, 2}, {-2, -1, 3, 1}),
                            {{"padding_mode", StringAttr("reflection")}, {"align_corners", IntAttr(1)}}));
  ExpectNear(out[0], {1, 1, 1, 2}, {1.5f, 3});
}

TEST(IndexingGridSample, BicubicKeepsConstantsAndPixelCenters) {
  auto out =
      RunAll(GridSampleCall(F32({1, 1, 2, 2}, {5, 5, 5, 5}), F32({1, 1, 2, 2}, {0.3f, -0.7f, 1.4f, 0.1f}),
                            {{"mode", StringAttr("bicubic")}, {"padding_mode", StringAttr("border")}}));
  ExpectNear(out[0], {1, 1, 1, 2}, {5, 5});
  std::vector<float> ramp(16);
  for (int i = 0; i < 16; ++i) ramp[static_cast<size_t>(i)] = static_cast<float>(i * i);
  // align_corners=1 on 4 pixels: g = -1/3 -> x = 1 exactly, so the value is pixel (1, 2).
  out = RunAll(GridSampleCall(F32({1, 1, 4, 4}, ramp), F32({1, 1, 1, 2}, {-1.0f / 3, 1.0f / 3}),
                              {{"mode", StringAttr("bicubic")}, {"align_corners", IntAttr(1)}}));
  ExpectNear(out[0], {1, 1, 1, 1}, {81}, 1e-3f);
}

TEST(IndexingGridSample, RejectsBadShapes) {
  ExpectInvalid(GridSampleCall(F32({1, 2, 2}, {1, 2, 3, 4}), F32({1, 1, 1, 2}, {0, 0}), {}));
  ExpectInvalid(GridSampleCall(Image(), F32({1, 1, 1, 3}, {0, 0, 0}), {}));
  ExpectInvalid(GridSampleCall(Image(), F32({2, 1, 1, 2}, {0, 0, 0, 0}), {}));
  ExpectInvalid(GridSampleCall(Image(), F32({1, 1, 1, 2}, {0, 0}), {{"mode", StringAttr("area")}}));
}

}  // namespace
}  // namespace npugap::testing::indexing
