// Tests of the nn family: Conv, ConvTranspose, FusedConv, MatMul, Gemm and the pools.
// Small cases are checked against values worked out by hand; larger random cases (which take
// the oneDNN, depthwise and blocked-layout paths) against a naive loop written here from the
// ONNX formula.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "op_test_expect.h"

namespace npugap {
namespace {

Tensor Iota(Shape shape, float start = 0.f, float step = 1.f) {
  Tensor t = Tensor::Empty(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i);
  return t;
}

Tensor Random(Shape shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  Tensor t = Tensor::Empty(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

void ExpectNear(const Tensor& got, const Shape& shape, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(got.dtype(), DType::kFloat32);
  for (int64_t i = 0; i < got.numel(); ++i) {
    EXPECT_NEAR(got.data<float>()[i], want[static_cast<size_t>(i)], tol) << "at " << i;
  }
}

void ExpectClose(const Tensor& got, const Tensor& want, float rtol = 1e-4f, float atol = 1e-4f) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    ASSERT_NEAR(g, w, atol + rtol * std::abs(w)) << "at " << i;
  }
}

// Naive 2-D convolution straight from the ONNX definition.
Tensor NaiveConv2d(const Tensor& x, const Tensor& w, const Tensor* b, int64_t group,
                   std::array<int64_t, 2> stride, std::array<int64_t, 4> pads, std::array<int64_t, 2> dil) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3), m = w.dim(0), kh = w.dim(2),
                kw = w.dim(3);
  const int64_t oh = (h + pads[0] + pads[2] - ((kh - 1) * dil[0] + 1)) / stride[0] + 1;
  const int64_t ow = (wd + pads[1] + pads[3] - ((kw - 1) * dil[1] + 1)) / stride[1] + 1;
  Tensor y = Tensor::Empty(DType::kFloat32, {n, m, oh, ow});
  const int64_t cg = c / group, mg = m / group;
  for (int64_t in = 0; in < n; ++in)
    for (int64_t im = 0; im < m; ++im)
      for (int64_t y0 = 0; y0 < oh; ++y0)
        for (int64_t x0 = 0; x0 < ow; ++x0) {
          double acc = b ? b->data<float>()[im] : 0.0;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t bb = 0; bb < kw; ++bb) {
                const int64_t iy = y0 * stride[0] - pads[0] + a * dil[0],
                              ix = x0 * stride[1] - pads[1] + bb * dil[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const int64_t cc = (im / mg) * cg + ic;
                acc += x.data<float>()[((in * c + cc) * h + iy) * wd + ix] *
                       w.data<float>()[((im * cg + ic) * kh + a) * kw + bb];
              }
          y.data<float>()[((in * m + im) * oh + y0) * ow + x0] = static_cast<float>(acc);
        }
  return y;
}

// ---- Conv -----------------------------------------------------------------------------------

TEST(NnConv, Basic3x3WithAndWithoutPadding) {
  // ONNX's basic_conv example: x = 0..24 (5x5), w = ones(3x3).
  Tensor x = Iota({1, 1, 5, 5}), w = F32({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  auto y = RunOp({.op_type = "Conv", .attributes = {{"pads", IntsAttr({1, 1, 1, 1})}}, .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 5, 5}, {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                     117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  y = RunOp({.op_type = "Conv", .inputs = {x, w}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(NnConv, StridesBiasAndAutoPad) {
  Tensor x = Iota({1, 1, 4, 4}), w = F32({2, 1, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0}), b = F32({2}, {10, 20});
  // Stride 2, no padding: out(i,j) = x[2i][2j] + x[2i+1][2j+1] (+10) and x[2i][2j+1] + x[2i+1][2j] (+20).
  auto y = RunOp({.op_type = "Conv", .attributes = {{"strides", IntsAttr({2, 2})}}, .inputs = {x, w, b}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 2, 2, 2}, {15, 19, 31, 35, 25, 29, 41, 45});
  // SAME_UPPER, stride 1, k 2: total pad 1 goes to the end, so the last row/column see zeros.
  y = RunOp({.op_type = "Conv", .attributes = {{"auto_pad", StringAttr("SAME_UPPER")}}, .inputs = {x, w}});
  ASSERT_TRUE(y.ok());
  ASSERT_EQ((*y)[0].shape(), (Shape{1, 2, 4, 4}));
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[0], 0 + 5);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[15], 15);  // bottom-right: x[3][3] only
  // SAME_LOWER puts it at the beginning: top-left sees x[0][0] only.
  y = RunOp({.op_type = "Conv", .attributes = {{"auto_pad", StringAttr("SAME_LOWER")}}, .inputs = {x, w}});
  ASSERT_TRUE(y.ok());
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[0], 0);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[5], 0 + 5);  // (1,1): x[0][0] + x[1][1]
}

TEST(NnConv, OneDAndThreeD) {
  // 1-D: x = 1..5, w = [1, 2], dilation 2: y[i] = x[i] + 2 x[i+2].
  auto y = RunOp({.op_type = "Conv",
                  .attributes = {{"dilations", IntsAttr({2})}},
                  .inputs = {Iota({1, 1, 5}, 1), F32({1, 1, 2}, {1, 2})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 3}, {7, 10, 13});
  // 3-D: 2x2x2 ones kernel over 0..26 (3x3x3) gives sums of 2x2x2 cubes.
  y = RunOp(
      {.op_type = "Conv", .inputs = {Iota({1, 1, 3, 3, 3}), F32({1, 1, 2, 2, 2}, std::vector<float>(8, 1))}});
  ASSERT_TRUE(y.ok());
  // cube at origin: 0+1+3+4+9+10+12+13 = 52; each step in w adds 8, in h 24, in d 72.
  ExpectNear((*y)[0], {1, 1, 2, 2, 2}, {52, 60, 76, 84, 124, 132, 148, 156});
}

TEST(NnConv, LargeCasesMatchNaiveLoops) {
  struct Case {
    int64_t n, c, h, m, k, group, stride, pad, dil;
  };
  const Case cases[] = {
      {1, 32, 9, 32, 3, 1, 1, 1, 1},    // blocked layouts
      {2, 32, 10, 16, 3, 1, 2, 1, 1},   // strided
      {1, 3, 12, 16, 5, 1, 2, 2, 1},    // few input channels (first layer)
      {1, 64, 30, 32, 1, 1, 1, 0, 1},   // pointwise, plain GEMM
      {1, 24, 9, 24, 3, 24, 1, 1, 1},   // depthwise, small planes: oneDNN
      {2, 16, 11, 16, 3, 16, 2, 1, 1},  // depthwise strided
      {1, 8, 9, 8, 3, 8, 1, 2, 2},      // depthwise dilated
      {1, 4, 56, 4, 3, 4, 1, 1, 1},     // depthwise, wide planes: direct kernel
      {1, 3, 113, 3, 3, 3, 2, 1, 1},    // direct kernel, stride 2
      {1, 2, 60, 2, 3, 2, 1, 2, 2},     // direct kernel, dilated (runtime sizes)
      {1, 2, 60, 2, 5, 2, 1, 0, 1},     // direct kernel, 5x5 without padding
      {1, 2, 114, 2, 3, 2, 2, 0, 1},    // direct kernel, stride 2, even width, no padding
      {1, 2, 115, 2, 5, 2, 2, 2, 1},    // direct kernel, 5x5 stride 2
      {1, 32, 8, 64, 3, 4, 1, 1, 1},    // grouped
      {1, 16, 10, 16, 3, 1, 1, 2, 2},   // dilated
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    Tensor x = Random({c.n, c.c, c.h, c.h}, seed++), w = Random({c.m, c.c / c.group, c.k, c.k}, seed++);
    Tensor b = Random({c.m}, seed++);
    auto y = RunOp({.op_type = "Conv",
                    .attributes = {{"group", IntAttr(c.group)},
                                   {"strides", IntsAttr({c.stride, c.stride})},
                                   {"pads", IntsAttr({c.pad, c.pad, c.pad, c.pad})},
                                   {"dilations", IntsAttr({c.dil, c.dil})}},
                    .inputs = {x, w, b}});
    ASSERT_TRUE(y.ok()) << y.status().message();
    SCOPED_TRACE("case c=" + std::to_string(c.c) + " group=" + std::to_string(c.group));
    ExpectClose((*y)[0], NaiveConv2d(x, w, &b, c.group, {c.stride, c.stride}, {c.pad, c.pad, c.pad, c.pad},
                                     {c.dil, c.dil}));
    // A second run reuses the cached primitive and packed weights; new weights must be seen.
    Tensor w2 = Random(w.shape(), seed++);
    y = RunOp({.op_type = "Conv",
               .attributes = {{"group", IntAttr(c.group)},
                              {"strides", IntsAttr({c.stride, c.stride})},
                              {"pads", IntsAttr({c.pad, c.pad, c.pad, c.pad})},
                              {"dilations", IntsAttr({c.dil, c.dil})}},
               .inputs = {x, w2, b}});
    ASSERT_TRUE(y.ok());
    ExpectClose((*y)[0], NaiveConv2d(x, w2, &b, c.group, {c.stride, c.stride}, {c.pad, c.pad, c.pad, c.pad},
                                     {c.dil, c.dil}));
  }
}

TEST(NnConv, Float64AndFloat16) {
  Tensor x = Tensor::FromVector<double>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = Tensor::FromVector<double>({1, 1, 2, 2}, {1, 1, 1, 1});
  auto y = RunOp({.op_type = "Conv", .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ((*y)[0].dtype(), DType::kFloat64);
  EXPECT_DOUBLE_EQ((*y)[0].data<double>()[0], 12);
  EXPECT_DOUBLE_EQ((*y)[0].data<double>()[3], 28);
  // float16 1.0 = 0x3C00; 4 ones summed = 4.0 = 0x4400.
  Tensor xh16 = Tensor::Empty(DType::kFloat16, {1, 1, 2, 2});
  Tensor wh16 = Tensor::Empty(DType::kFloat16, {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i) xh16.data<uint16_t>()[i] = wh16.data<uint16_t>()[i] = 0x3C00;
  y = RunOp({.op_type = "Conv", .inputs = {xh16, wh16}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dtype(), DType::kFloat16);
  EXPECT_EQ((*y)[0].data<uint16_t>()[0], 0x4400);
}

TEST(NnConv, Errors) {
  Tensor x = Iota({1, 2, 4, 4});
  // Channel mismatch (W expects 3 input channels).
  EXPECT_FALSE(RunOp({.op_type = "Conv", .inputs = {x, Iota({1, 3, 3, 3})}}).ok());
  // Rank mismatch.
  EXPECT_FALSE(RunOp({.op_type = "Conv", .inputs = {x, Iota({1, 2, 3})}}).ok());
  // Kernel larger than the input.
  EXPECT_FALSE(RunOp({.op_type = "Conv", .inputs = {x, Iota({1, 2, 5, 5})}}).ok());
  // Bias of the wrong size.
  EXPECT_FALSE(RunOp({.op_type = "Conv", .inputs = {x, Iota({4, 2, 3, 3}), Iota({3})}}).ok());
  // group that does not divide the channels.
  EXPECT_FALSE(
      RunOp({.op_type = "Conv", .attributes = {{"group", IntAttr(3)}}, .inputs = {x, Iota({3, 1, 3, 3})}})
          .ok());
  // Wrong-sized pads, unknown auto_pad, kernel_shape disagreeing with W.
  EXPECT_FALSE(
      RunOp(
          {.op_type = "Conv", .attributes = {{"pads", IntsAttr({1, 1})}}, .inputs = {x, Iota({1, 2, 3, 3})}})
          .ok());
  EXPECT_FALSE(RunOp({.op_type = "Conv",
                      .attributes = {{"auto_pad", StringAttr("SAME")}},
                      .inputs = {x, Iota({1, 2, 3, 3})}})
                   .ok());
  EXPECT_FALSE(RunOp({.op_type = "Conv",
                      .attributes = {{"kernel_shape", IntsAttr({2, 2})}},
                      .inputs = {x, Iota({1, 2, 3, 3})}})
                   .ok());
  // Integer types are not Conv types.
  auto s = RunOp({.op_type = "Conv",
                  .inputs = {Tensor::FromVector<int32_t>({1, 1, 1, 1}, {1}),
                             Tensor::FromVector<int32_t>({1, 1, 1, 1}, {1})}});
  EXPECT_EQ(s.status().code(), StatusCode::kUnsupported);
}

TEST(NnConv, FusedConvAppliesSumAndActivation) {
  Tensor x = Iota({1, 1, 2, 2}, -2), w = F32({1, 1, 1, 1}, {1}),
         z = F32({1, 1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f});
  // x = [-2, -1, 0, 1]; Relu(x + z) = [0, 0, 0.5, 1.5].
  auto y = RunOp({.op_type = "FusedConv",
                  .domain = "com.microsoft",
                  .opset = 1,
                  .attributes = {{"activation", StringAttr("Relu")}},
                  .inputs = {x, w, Tensor(), z}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 2, 2}, {0, 0, 0.5f, 1.5f});
  // HardSigmoid(alpha 0.5, beta 0.5) on [-2, -1, 0, 1] = [0, 0, 0.5, 1].
  y = RunOp({.op_type = "FusedConv",
             .domain = "com.microsoft",
             .opset = 1,
             .attributes = {{"activation", StringAttr("HardSigmoid")},
                            {"activation_params", FloatsAttr({0.5f, 0.5f})}},
             .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 2, 2}, {0, 0, 0.5f, 1});
  EXPECT_EQ(RunOp({.op_type = "FusedConv",
                   .domain = "com.microsoft",
                   .opset = 1,
                   .attributes = {{"activation", StringAttr("Gelu")}},
                   .inputs = {x, w}})
                .status()
                .code(),
            StatusCode::kUnsupported);
  // Relu on a wide depthwise case (direct kernel).
  Tensor xd = Random({1, 2, 56, 56}, 9), wd = Random({2, 1, 3, 3}, 10);
  y = RunOp({.op_type = "FusedConv",
             .domain = "com.microsoft",
             .opset = 1,
             .attributes = {{"activation", StringAttr("Relu")},
                            {"group", IntAttr(2)},
                            {"pads", IntsAttr({1, 1, 1, 1})}},
             .inputs = {xd, wd}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  Tensor want_dw = NaiveConv2d(xd, wd, nullptr, 2, {1, 1}, {1, 1, 1, 1}, {1, 1});
  for (int64_t i = 0; i < want_dw.numel(); ++i)
    want_dw.data<float>()[i] = std::max(want_dw.data<float>()[i], 0.f);
  ExpectClose((*y)[0], want_dw);
  // Z and Relu on a large 1x1 convolution (blocked GEMM path), batch 2.
  Tensor xp = Random({2, 16, 28, 29}, 11), wp = Random({24, 16, 1, 1}, 12), bp = Random({24}, 13);
  Tensor zp = Random({2, 24, 28, 29}, 14);
  y = RunOp({.op_type = "FusedConv",
             .domain = "com.microsoft",
             .opset = 1,
             .attributes = {{"activation", StringAttr("Relu")}},
             .inputs = {xp, wp, bp, zp}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  Tensor want_pw = NaiveConv2d(xp, wp, &bp, 1, {1, 1}, {0, 0, 0, 0}, {1, 1});
  for (int64_t i = 0; i < want_pw.numel(); ++i) {
    want_pw.data<float>()[i] = std::max(want_pw.data<float>()[i] + zp.data<float>()[i], 0.f);
  }
  ExpectClose((*y)[0], want_pw);
  // Clip to [-1, 0.5] on a large, blocked-layout case checks the oneDNN post-op.
  Tensor xl = Random({1, 32, 6, 6}, 7), wl = Random({32, 32, 3, 3}, 8);
  y = RunOp({.op_type = "FusedConv",
             .domain = "com.microsoft",
             .opset = 1,
             .attributes = {{"activation", StringAttr("Clip")},
                            {"activation_params", FloatsAttr({-1.f, 0.5f})},
                            {"pads", IntsAttr({1, 1, 1, 1})}},
             .inputs = {xl, wl}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  Tensor want = NaiveConv2d(xl, wl, nullptr, 1, {1, 1}, {1, 1, 1, 1}, {1, 1});
  for (int64_t i = 0; i < want.numel(); ++i)
    want.data<float>()[i] = std::clamp(want.data<float>()[i], -1.f, 0.5f);
  ExpectClose((*y)[0], want);
}

// ---- ConvTranspose -------------------------------------------------------------------------

TEST(NnConvTranspose, ScatterAndPads) {
  // x = [[1, 2], [3, 4]], w = ones 2x2, stride 1: every output sums the inputs covering it.
  Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4}), w = F32({1, 1, 2, 2}, {1, 1, 1, 1});
  auto y = RunOp({.op_type = "ConvTranspose", .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  // Stride 2 places the 2x2 footprints side by side; pads 1 on each side trims the border.
  y = RunOp({.op_type = "ConvTranspose",
             .attributes = {{"strides", IntsAttr({2, 2})}, {"pads", IntsAttr({1, 1, 1, 1})}},
             .inputs = {x, w}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 2, 2}, {1, 2, 3, 4});
  // output_padding adds a zero row/column at the end (+ bias).
  y = RunOp({.op_type = "ConvTranspose",
             .attributes = {{"strides", IntsAttr({2, 2})}, {"output_padding", IntsAttr({1, 1})}},
             .inputs = {x, w, F32({1}, {0.5f})}});
  ASSERT_TRUE(y.ok());
  ASSERT_EQ((*y)[0].shape(), (Shape{1, 1, 5, 5}));
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[0], 1.5f);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[24], 0.5f);
}

TEST(NnConvTranspose, OutputShapeAndGroups) {
  // output_shape larger than the natural size: the extra tail holds only the bias.
  Tensor x = F32({1, 1, 2}, {1, 2}), w = F32({1, 1, 2}, {1, 1});
  auto y =
      RunOp({.op_type = "ConvTranspose", .attributes = {{"output_shape", IntsAttr({4})}}, .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 4}, {1, 3, 2, 0});
  // Two groups of one channel each with weights 1 and 10: channels stay separate.
  Tensor x2 = F32({1, 2, 1}, {1, 2}), w2 = F32({2, 1, 1}, {1, 10});
  y = RunOp({.op_type = "ConvTranspose", .attributes = {{"group", IntAttr(2)}}, .inputs = {x2, w2}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 2, 1}, {1, 20});
  EXPECT_FALSE(RunOp({.op_type = "ConvTranspose", .inputs = {x2, Iota({3, 1, 1})}}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "ConvTranspose", .attributes = {{"strides", IntsAttr({1, 1})}}, .inputs = {x, w}})
          .ok());
}

TEST(NnConvTranspose, LargeMatchesAdjointOfConv) {
  // <ConvTranspose(x), v> == <x, Conv(v)> for the same weights (transpose = adjoint).
  Tensor x = Random({1, 32, 5, 5}, 3), w = Random({32, 16, 3, 3}, 4), v = Random({1, 16, 11, 11}, 5);
  auto y =
      RunOp({.op_type = "ConvTranspose", .attributes = {{"strides", IntsAttr({2, 2})}}, .inputs = {x, w}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ((*y)[0].shape(), (Shape{1, 16, 11, 11}));
  // Conv with W viewed as (C_in=32 outputs, 16 inputs): that is W itself.
  Tensor cv = NaiveConv2d(v, w, nullptr, 1, {2, 2}, {0, 0, 0, 0}, {1, 1});
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < v.numel(); ++i) lhs += (*y)[0].data<float>()[i] * v.data<float>()[i];
  for (int64_t i = 0; i < x.numel(); ++i) rhs += x.data<float>()[i] * cv.data<float>()[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::abs(rhs) + 1e-3);
}

// ---- MatMul / Gemm -------------------------------------------------------------------------

TEST(NnMatMul, TwoDBatchedAndVectors) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  auto y = RunOp({.op_type = "MatMul", .inputs = {a, b}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {2, 2}, {58, 64, 139, 154});
  // Batched A (2 x 2 x 3) against one B: each batch is the product above scaled.
  Tensor a3 = F32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12});
  y = RunOp({.op_type = "MatMul", .inputs = {a3, b}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2, 2, 2}, {58, 64, 139, 154, 116, 128, 278, 308});
  // Broadcast: A (2, 1, 2, 3) x B (3, 3, 2) -> (2, 3, 2, 2).
  Tensor b3 = Tensor::Empty(DType::kFloat32, {3, 3, 2});
  for (int i = 0; i < 18; ++i) b3.data<float>()[i] = b.data<float>()[i % 6] * static_cast<float>(i / 6 + 1);
  y = RunOp({.op_type = "MatMul", .inputs = {a3.Reshaped({2, 1, 2, 3}), b3}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ((*y)[0].shape(), (Shape{2, 3, 2, 2}));
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[4 * 2 + 3], 154 * 3);  // batch (0, 2)
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[4 * 4 + 0], 116 * 2);  // batch (1, 1)
  // 1-D operands: vector x matrix, matrix x vector, dot product.
  y = RunOp({.op_type = "MatMul", .inputs = {F32({3}, {1, 0, 1}), b}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2}, {18, 20});
  y = RunOp({.op_type = "MatMul", .inputs = {a, F32({3}, {1, 1, 1})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2}, {6, 15});
  y = RunOp({.op_type = "MatMul", .inputs = {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {}, {32});
}

TEST(NnMatMul, IntegerDoubleAndErrors) {
  auto y = RunOp({.op_type = "MatMul",
                  .inputs = {Tensor::FromVector<int64_t>({1, 2}, {3, -4}),
                             Tensor::FromVector<int64_t>({2, 1}, {5, 6})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].data<int64_t>()[0], -9);
  y = RunOp(
      {.op_type = "MatMul",
       .inputs = {Tensor::FromVector<double>({1, 2}, {0.5, 2}), Tensor::FromVector<double>({2}, {4, 8})}});
  ASSERT_TRUE(y.ok());
  EXPECT_DOUBLE_EQ((*y)[0].data<double>()[0], 18);
  EXPECT_FALSE(RunOp({.op_type = "MatMul", .inputs = {Iota({2, 3}), Iota({2, 3})}}).ok());
  EXPECT_FALSE(RunOp({.op_type = "MatMul", .inputs = {Iota({2, 2, 3}), Iota({3, 3, 2})}}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "MatMul", .inputs = {Iota({2, 3}), Tensor::FromVector<double>({3}, {1, 2, 3})}})
          .ok());
}

TEST(NnMatMul, LargeMatchesNaive) {
  Tensor a = Random({3, 37, 64}, 11), b = Random({64, 45}, 12);
  auto y = RunOp({.op_type = "MatMul", .inputs = {a, b}});
  ASSERT_TRUE(y.ok());
  Tensor want = Tensor::Empty(DType::kFloat32, {3, 37, 45});
  for (int64_t r = 0; r < 3 * 37; ++r)
    for (int64_t j = 0; j < 45; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 64; ++k) acc += a.data<float>()[r * 64 + k] * b.data<float>()[k * 45 + j];
      want.data<float>()[r * 45 + j] = static_cast<float>(acc);
    }
  ExpectClose((*y)[0], want);
}

TEST(NnGemm, TransposesAlphaBetaAndBias) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  // A B = [[58, 64], [139, 154]].
  auto y = RunOp({.op_type = "Gemm", .inputs = {a, b, F32({2}, {1, 2})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {2, 2}, {59, 66, 140, 156});
  // transA / transB with the operands stored transposed give the same product.
  Tensor at = F32({3, 2}, {1, 4, 2, 5, 3, 6}), bt = F32({2, 3}, {7, 9, 11, 8, 10, 12});
  y = RunOp({.op_type = "Gemm",
             .attributes = {{"transA", IntAttr(1)}, {"transB", IntAttr(1)}},
             .inputs = {at, bt}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2, 2}, {58, 64, 139, 154});
  // alpha 0.5, beta 2, C a column (M x 1).
  y = RunOp({.op_type = "Gemm",
             .attributes = {{"alpha", FloatAttr(0.5f)}, {"beta", FloatAttr(2.f)}},
             .inputs = {a, b, F32({2, 1}, {1, -1})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2, 2}, {31, 34, 67.5f, 75});
  // Scalar C with alpha 1, beta 1 (oneDNN bias path).
  y = RunOp({.op_type = "Gemm", .inputs = {a, b, F32({}, {100})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {2, 2}, {158, 164, 239, 254});
  // Full C, int32.
  y = RunOp(
      {.op_type = "Gemm",
       .inputs = {Tensor::FromVector<int32_t>({1, 2}, {1, 2}), Tensor::FromVector<int32_t>({2, 1}, {3, 4}),
                  Tensor::FromVector<int32_t>({1, 1}, {5})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].data<int32_t>()[0], 16);
}

TEST(NnGemm, Errors) {
  Tensor a = Iota({2, 3}), b = Iota({3, 2});
  EXPECT_FALSE(RunOp({.op_type = "Gemm", .inputs = {a, a}}).ok());                // inner dims
  EXPECT_FALSE(RunOp({.op_type = "Gemm", .inputs = {Iota({2, 3, 1}), b}}).ok());  // rank
  EXPECT_FALSE(RunOp({.op_type = "Gemm", .inputs = {a, b, Iota({3})}}).ok());     // C broadcast
  EXPECT_FALSE(RunOp({.op_type = "Gemm", .inputs = {a, b, Iota({2, 2, 1})}}).ok());
}

// ---- Pools ---------------------------------------------------------------------------------

TEST(NnPool, MaxPoolBasicCeilAndIndices) {
  Tensor x = Iota({1, 1, 4, 4});
  auto y = RunOp({.op_type = "MaxPool",
                  .attributes = {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}},
                  .inputs = {x},
                  .num_outputs = 2});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 2, 2}, {5, 7, 13, 15});
  ASSERT_EQ((*y)[1].dtype(), DType::kInt64);
  EXPECT_EQ((*y)[1].data<int64_t>()[3], 15);
  // Column-major indices: element (h=3, w=3) of a 4x4 plane is 3 + 3 * 4.
  y = RunOp({.op_type = "MaxPool",
             .attributes = {{"kernel_shape", IntsAttr({2, 2})},
                            {"strides", IntsAttr({2, 2})},
                            {"storage_order", IntAttr(1)}},
             .inputs = {x},
             .num_outputs = 2});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[1].data<int64_t>()[1], 1 + 3 * 4);  // max at (1, 3)
  // ceil_mode: 3x3 windows with stride 2 over 4x4 -> 2x2 with a clipped last window.
  y = RunOp({.op_type = "MaxPool",
             .attributes = {{"kernel_shape", IntsAttr({3, 3})},
                            {"strides", IntsAttr({2, 2})},
                            {"ceil_mode", IntAttr(1)}},
             .inputs = {x}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 2, 2}, {10, 11, 14, 15});
  // Padding never wins, even against negative values.
  y = RunOp({.op_type = "MaxPool",
             .attributes = {{"kernel_shape", IntsAttr({2})}, {"pads", IntsAttr({1, 1})}},
             .inputs = {F32({1, 1, 2}, {-3, -5})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 3}, {-3, -3, -5});
}

TEST(NnPool, MaxPoolInt8DilationAnd3d) {
  auto y = RunOp({.op_type = "MaxPool",
                  .attributes = {{"kernel_shape", IntsAttr({2})}, {"dilations", IntsAttr({2})}},
                  .inputs = {Tensor::FromVector<int8_t>({1, 1, 4}, {-1, 7, 3, -8})}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].data<int8_t>()[0], 3);
  EXPECT_EQ((*y)[0].data<int8_t>()[1], 7);
  y = RunOp({.op_type = "MaxPool",
             .attributes = {{"kernel_shape", IntsAttr({2, 2, 2})}},
             .inputs = {Iota({1, 1, 2, 2, 3})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 1, 1, 2}, {10, 11});
}

TEST(NnPool, AveragePoolPaddingModes) {
  Tensor x = Iota({1, 1, 3, 3}, 1);  // 1..9
  // 2x2 windows with pads 1: corner window holds x[0][0] only.
  auto y = RunOp({.op_type = "AveragePool",
                  .attributes = {{"kernel_shape", IntsAttr({2, 2})},
                                 {"pads", IntsAttr({1, 1, 1, 1})},
                                 {"strides", IntsAttr({2, 2})}},
                  .inputs = {x}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 1, 2, 2}, {1, 2.5f, 5.5f, 7});
  y = RunOp({.op_type = "AveragePool",
             .attributes = {{"kernel_shape", IntsAttr({2, 2})},
                            {"pads", IntsAttr({1, 1, 1, 1})},
                            {"strides", IntsAttr({2, 2})},
                            {"count_include_pad", IntAttr(1)}},
             .inputs = {x}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 2, 2}, {0.25f, 1.25f, 2.75f, 7});
  // ceil_mode on 1-D: windows [0,1], [2] -> means 1.5 and 3 (count excludes the overhang).
  y = RunOp(
      {.op_type = "AveragePool",
       .attributes = {{"kernel_shape", IntsAttr({2})}, {"strides", IntsAttr({2})}, {"ceil_mode", IntAttr(1)}},
       .inputs = {F32({1, 1, 3}, {1, 2, 3})}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 1, 2}, {1.5f, 3});
}

TEST(NnPool, LargePoolsMatchReferencePath) {
  // The 2-D float fast path against the general path (3-D input with a depth of 1 and a
  // kernel depth of 1 runs the general loops on the same numbers).
  Tensor x = Random({2, 5, 13, 14}, 21);
  for (const char* op : {"MaxPool", "AveragePool"}) {
    for (int64_t k : {2, 3, 4}) {
      std::map<std::string, ir::Attribute> a2{{"kernel_shape", IntsAttr({k, k})},
                                              {"strides", IntsAttr({2, 2})},
                                              {"pads", IntsAttr({1, 1, 1, 1})},
                                              {"ceil_mode", IntAttr(1)}};
      std::map<std::string, ir::Attribute> a3{{"kernel_shape", IntsAttr({1, k, k})},
                                              {"strides", IntsAttr({1, 2, 2})},
                                              {"pads", IntsAttr({0, 1, 1, 0, 1, 1})},
                                              {"ceil_mode", IntAttr(1)}};
      auto y2 = RunOp({.op_type = op, .attributes = a2, .inputs = {x}});
      auto y3 = RunOp({.op_type = op, .attributes = a3, .inputs = {x.Reshaped({2, 5, 1, 13, 14})}});
      ASSERT_TRUE(y2.ok() && y3.ok());
      ExpectClose((*y2)[0], (*y3)[0].Reshaped((*y2)[0].shape()), 1e-6f, 1e-6f);
    }
  }
}

TEST(NnPool, LpPoolAndGlobals) {
  Tensor x = F32({1, 2, 2, 2}, {3, 4, 0, 0, 1, -1, 2, 5});
  auto y = RunOp({.op_type = "LpPool",
                  .attributes = {{"kernel_shape", IntsAttr({1, 2})}, {"p", IntAttr(2)}},
                  .inputs = {x}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], {1, 2, 2, 1}, {5, 0, std::sqrt(2.f), std::sqrt(29.f)});
  y = RunOp({.op_type = "GlobalAveragePool", .inputs = {x}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 2, 1, 1}, {1.75f, 1.75f});
  y = RunOp({.op_type = "GlobalMaxPool", .inputs = {x}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 2, 1, 1}, {4, 5});
  y = RunOp({.op_type = "GlobalLpPool", .attributes = {{"p", IntAttr(1)}}, .inputs = {x}});
  ASSERT_TRUE(y.ok());
  ExpectNear((*y)[0], {1, 2, 1, 1}, {7, 9});
  EXPECT_FALSE(RunOp({.op_type = "GlobalAveragePool", .inputs = {Iota({3})}}).ok());
}

TEST(NnPool, Errors) {
  Tensor x = Iota({1, 1, 4, 4});
  EXPECT_FALSE(RunOp({.op_type = "MaxPool", .inputs = {x}}).ok());  // no kernel_shape
  EXPECT_FALSE(
      RunOp({.op_type = "MaxPool", .attributes = {{"kernel_shape", IntsAttr({2})}}, .inputs = {x}}).ok());
  EXPECT_FALSE(
      RunOp({.op_type = "AveragePool", .attributes = {{"kernel_shape", IntsAttr({5, 5})}}, .inputs = {x}})
          .ok());
  EXPECT_FALSE(RunOp({.op_type = "MaxPool",
                      .attributes = {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({0, 1})}},
                      .inputs = {x}})
                   .ok());
  EXPECT_FALSE(RunOp({.op_type = "AveragePool",
                      .attributes = {{"kernel_shape", IntsAttr({2})}},
                      .inputs = {Iota({4, 4})}})
                   .ok());
}

TEST(NnPool, MaxUnpool) {
  // Values go back to where MaxPool found them; everything else is zero.
  Tensor x = F32({1, 1, 2, 2}, {5, 7, 13, 15});
  Tensor i = Tensor::FromVector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 15});
  auto y = RunOp({.op_type = "MaxUnpool",
                  .attributes = {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}},
                  .inputs = {x, i}});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ((*y)[0].shape(), (Shape{1, 1, 4, 4}));
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[5], 5);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[15], 15);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[0], 0);
  // output_shape input 5x5: the 4x4 result gets a zero row and column at the end, so index 5
  // (row 1, column 1 of 4x4) lands on row 1, column 1 of 5x5 (flat 6).
  y = RunOp({.op_type = "MaxUnpool",
             .attributes = {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}},
             .inputs = {x, i, Tensor::FromVector<int64_t>({4}, {1, 1, 5, 5})}});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[0].shape(), (Shape{1, 1, 5, 5}));
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[6], 5);
  EXPECT_FLOAT_EQ((*y)[0].data<float>()[18], 15);
  // An index past the output is an error.
  Tensor bad = Tensor::FromVector<int64_t>({1, 1, 2, 2}, {0, 1, 2, 16});
  EXPECT_FALSE(RunOp({.op_type = "MaxUnpool",
                      .attributes = {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}},
                      .inputs = {x, bad}})
                   .ok());
}

}  // namespace
}  // namespace npugap
