// INT8 quantize-dequantize: per tensor and per channel, zero points, clamping and calibration.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "npugap/numerics/format.h"

namespace npugap::numerics {
namespace {

TEST(Int8Test, PerTensorSymmetricRoundsAndClamps) {
  std::vector<float> x = {0.0f, 0.25f, 0.74f, 0.75f, -1.25f, 127.0f, 200.0f, -300.0f, NAN};
  const std::vector<int64_t> shape = {9};
  Int8Params p;
  p.scale = {0.5f};
  const RoundStats s = QuantizeDequantizeInt8(x, shape, p);
  // 0.25/0.5 = 0.5 -> 0 (ties to even); 0.75/0.5 = 1.5 -> 2; -1.25/0.5 = -2.5 -> -2.
  const std::vector<float> expected = {0.0f, 0.0f, 0.5f, 1.0f, -1.0f, 63.5f, 63.5f, -64.0f, 0.0f};
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], expected[i]) << i;
  EXPECT_EQ(s.overflow, 3);   // 127, 200 and -300 are beyond [-128, 127] * 0.5
  EXPECT_EQ(s.saturated, 4);  // and the NaN
  EXPECT_EQ(s.flushed, 1);    // 0.25
}

TEST(Int8Test, HalfAwayAndTowardZero) {
  std::vector<float> x = {0.25f, -1.25f, 0.9f};
  Int8Params p;
  p.scale = {0.5f};
  QuantizeDequantizeInt8(x, std::vector<int64_t>{3}, p, Rounding::kHalfAway);
  EXPECT_EQ(x, (std::vector<float>{0.5f, -1.5f, 1.0f}));
  std::vector<float> y = {0.25f, -1.25f, 0.9f};
  QuantizeDequantizeInt8(y, std::vector<int64_t>{3}, p, Rounding::kTowardZero);
  EXPECT_EQ(y, (std::vector<float>{0.0f, -1.0f, 0.5f}));
}

TEST(Int8Test, PerChannelScaleAndZeroPointAlongAxis) {
  // Shape 2x3, axis 1: column c uses scale[c] and zero_point[c].
  std::vector<float> x = {1.0f, 1.0f, 1.0f, -3.0f, -3.0f, -3.0f};
  const std::vector<int64_t> shape = {2, 3};
  Int8Params p;
  p.scale = {1.0f, 0.5f, 0.03f};
  p.zero_point = {0, 10, 120};
  p.axis = 1;
  const RoundStats s = QuantizeDequantizeInt8(x, shape, p);
  EXPECT_EQ(x[0], 1.0f);
  EXPECT_EQ(x[1], 1.0f);
  EXPECT_FLOAT_EQ(x[2], 7 * 0.03f);  // round(33.3) + 120 = 153 -> 127: (127 - 120) * 0.03
  EXPECT_EQ(x[3], -3.0f);
  EXPECT_EQ(x[4], -3.0f);
  EXPECT_FLOAT_EQ(x[5], -100 * 0.03f);  // -100 + 120 = 20: in range
  EXPECT_EQ(s.overflow, 1);
}

TEST(Int8Test, CalibrationPerTensorAndPerChannel) {
  const std::vector<float> x = {0.5f, -2.0f, 4.0f, 1.0f, NAN, -0.1f};
  const std::vector<int64_t> shape = {3, 2};
  const Int8Params t = CalibrateInt8(x, shape, -1, true);
  ASSERT_EQ(t.scale.size(), 1u);
  EXPECT_FLOAT_EQ(t.scale[0], 4.0f / 127);
  EXPECT_TRUE(t.zero_point.empty());
  const Int8Params c = CalibrateInt8(x, shape, 1, true);  // columns {0.5, 4, NaN}, {-2, 1, -0.1}
  ASSERT_EQ(c.scale.size(), 2u);
  EXPECT_FLOAT_EQ(c.scale[0], 4.0f / 127);
  EXPECT_FLOAT_EQ(c.scale[1], 2.0f / 127);
  const Int8Params a = CalibrateInt8(x, shape, 0, false);  // rows {0.5,-2}, {4,1}, {NaN,-0.1}
  ASSERT_EQ(a.scale.size(), 3u);
  EXPECT_FLOAT_EQ(a.scale[0], 2.5f / 255);
  EXPECT_EQ(a.zero_point[0], static_cast<int32_t>(std::nearbyint(-128.0f + 2.0f / (2.5f / 255))));
  EXPECT_FLOAT_EQ(a.scale[1], 4.0f / 255);  // range includes 0
  EXPECT_EQ(a.zero_point[1], -128);
  // Round trip: every calibrated value lands within half a step of itself.
  std::vector<float> y = {0.5f, -2.0f, 4.0f, 1.0f, 0.0f, -0.1f};
  QuantizeDequantizeInt8(y, shape, a);
  const std::vector<float> orig = {0.5f, -2.0f, 4.0f, 1.0f, 0.0f, -0.1f};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_LE(std::fabs(y[i] - orig[i]), a.scale[i / 2] / 2 + 1e-6f) << i;
}

}  // namespace
}  // namespace npugap::numerics
