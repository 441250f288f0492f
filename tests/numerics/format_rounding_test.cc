// Rounding rules, overflow modes, subnormal flushing and the counts RoundScalar reports.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "npugap/numerics/format.h"

namespace npugap::numerics {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

RoundingOptions With(Rounding r, Overflow o = Overflow::kIeee, Subnormals s = Subnormals::kKeep) {
  return {r, o, s, 0};
}

TEST(FormatRoundingTest, TiesFollowTheRoundingRule) {
  const float tie_even = 1.0f + 0x1p-11f;     // fp16: between 1 and 1+2^-10, lower is even
  const float tie_odd = 1.0f + 3 * 0x1p-11f;  // between 1+2^-10 and 1+2^-9, upper is even
  EXPECT_EQ(RoundScalar(Format::kFP16, tie_even), 1.0f);
  EXPECT_EQ(RoundScalar(Format::kFP16, tie_odd), 1.0f + 0x1p-9f);
  EXPECT_EQ(RoundScalar(Format::kFP16, tie_even, With(Rounding::kHalfAway)), 1.0f + 0x1p-10f);
  EXPECT_EQ(RoundScalar(Format::kFP16, -tie_even, With(Rounding::kHalfAway)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(RoundScalar(Format::kFP16, 1.0f + 0x1p-10f - 0x1p-20f, With(Rounding::kTowardZero)), 1.0f);
  EXPECT_EQ(RoundScalar(Format::kFP16, -(1.0f + 0x1p-10f - 0x1p-20f), With(Rounding::kTowardZero)), -1.0f);
  // HF32 keeps 10 fraction bits of FP32's 23.
  EXPECT_EQ(RoundScalar(Format::kHF32, 1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(RoundScalar(Format::kHF32, 1.0f + 0x1p-11f + 0x1p-20f), 1.0f + 0x1p-10f);
  EXPECT_EQ(RoundScalar(Format::kHF32, 0x1p100f * (1.0f + 0x1p-11f), With(Rounding::kHalfAway)),
            0x1p100f * (1.0f + 0x1p-10f));
  // E4M3 and HiF8 at 1: 3 mantissa bits.
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, 1.0625f), 1.0f);
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, 1.1875f), 1.25f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.0625f), 1.0f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.0625f, With(Rounding::kHalfAway)), 1.125f);
}

TEST(FormatRoundingTest, HiF8TaperedGridAndDenormalTies) {
  // 2^8..2^15 have one mantissa bit: 256, 384, 512.
  EXPECT_EQ(RoundScalar(Format::kHiF8, 300.0f), 256.0f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 330.0f), 384.0f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 320.0f), 256.0f);  // tie: mantissa 0 is even
  EXPECT_EQ(RoundScalar(Format::kHiF8, 320.0f, With(Rounding::kHalfAway)), 384.0f);
  // Denormal binades hold 2^-16 .. 2^-22 only. The tie 1.5 * 2^-20 lies between codes 3 (2^-20)
  // and 4 (2^-19): the even code wins.
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.5f * 0x1p-20f), 0x1p-19f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.5f * 0x1p-21f), 0x1p-21f);  // codes 2 and 3: 2 is even
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.4f * 0x1p-20f), 0x1p-20f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 0x1p-23f), 0.0f);  // tie with zero: zero
  EXPECT_EQ(RoundScalar(Format::kHiF8, 0x1p-23f, With(Rounding::kHalfAway)), 0x1p-22f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 1.5f * 0x1p-16f), 0x1p-15f);  // 2^-16 (code 7) to 2^-15 (even)
  // The top binade: 32768 then the infinity pattern; the tie 40960 overflows only when rounding away.
  EXPECT_EQ(RoundScalar(Format::kHiF8, 40960.0f), 32768.0f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 40960.0f, With(Rounding::kHalfAway)), kInf);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 40961.0f), kInf);
  EXPECT_EQ(RoundScalar(Format::kHiF8, -0x1p-30f), 0.0f);
  EXPECT_FALSE(std::signbit(RoundScalar(Format::kHiF8, -0x1p-30f)));  // HiF8 has no -0
}

TEST(FormatRoundingTest, OverflowIeeeAndSaturation) {
  RoundStats s;
  EXPECT_EQ(RoundScalar(Format::kFP16, 70000.0f, {}, 0, &s), kInf);
  EXPECT_EQ(s.overflow, 1);
  EXPECT_EQ(s.inf_nan, 1);
  EXPECT_EQ(s.saturated, 0);
  s = {};
  const RoundingOptions sat = With(Rounding::kNearestEven, Overflow::kSaturation);
  EXPECT_EQ(RoundScalar(Format::kFP16, -70000.0f, sat, 0, &s), -65504.0f);
  EXPECT_EQ(RoundScalar(Format::kFP16, kInf, sat, 0, &s), 65504.0f);
  EXPECT_EQ(RoundScalar(Format::kFP16, std::nanf(""), sat, 0, &s), 0.0f);
  EXPECT_EQ(s.overflow, 1);  // only the finite input counts as an overflow
  EXPECT_EQ(s.saturated, 3);
  EXPECT_EQ(s.inf_nan, 0);
  // Toward zero never rounds up to infinity (IEEE 754 §7.4).
  EXPECT_EQ(RoundScalar(Format::kFP16, 70000.0f, With(Rounding::kTowardZero)), 65504.0f);
  // E4M3 has no infinity: overflow and inf become NaN unless saturating.
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kFP8E4M3, 500.0f)));
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kFP8E4M3, -kInf)));
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, 464.0f), 448.0f);  // tie: 448 has an even mantissa
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, -500.0f, sat), -448.0f);
  EXPECT_EQ(RoundScalar(Format::kFP8E5M2, 61440.0f), kInf);  // tie: 57344 is odd
  EXPECT_EQ(RoundScalar(Format::kFP8E5M2, 61439.0f), 57344.0f);
  EXPECT_EQ(RoundScalar(Format::kBF16, std::numeric_limits<float>::max()), kInf);
  EXPECT_EQ(RoundScalar(Format::kFP32, kInf, sat), std::numeric_limits<float>::max());
  EXPECT_EQ(RoundScalar(Format::kFP32, 1.2345f, sat), 1.2345f);
}

TEST(FormatRoundingTest, SubnormalsKeptOrFlushed) {
  const RoundingOptions flush = With(Rounding::kNearestEven, Overflow::kIeee, Subnormals::kFlush);
  RoundStats s;
  EXPECT_EQ(RoundScalar(Format::kFP16, 0x1p-20f, {}, 0, &s), 0x1p-20f);
  EXPECT_EQ(s.flushed, 0);
  EXPECT_EQ(RoundScalar(Format::kFP16, 0x1p-20f, flush, 0, &s), 0.0f);
  EXPECT_EQ(RoundScalar(Format::kFP16, -0x1p-26f, {}, 0, &s), -0.0f);  // underflow
  EXPECT_TRUE(std::signbit(RoundScalar(Format::kFP16, -0x1p-26f)));
  EXPECT_EQ(RoundScalar(Format::kFP16, 0.0f, {}, 0, &s), 0.0f);  // zero is not "flushed"
  EXPECT_EQ(s.flushed, 2);
  EXPECT_EQ(RoundScalar(Format::kFP32, 0x1p-140f, flush), 0.0f);
  EXPECT_EQ(RoundScalar(Format::kFP32, 0x1p-140f), 0x1p-140f);
  EXPECT_EQ(RoundScalar(Format::kHiF8, 0x1p-18f, flush), 0.0f);  // HiF8 denormal
  EXPECT_EQ(RoundScalar(Format::kHiF8, 0x1p-15f, flush), 0x1p-15f);
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, 0x1p-8f, flush), 0.0f);
  EXPECT_EQ(RoundScalar(Format::kFP8E4M3, 0x1p-8f), 0x1p-8f);
  // A value just under the smallest normal that rounds up to it survives flushing.
  EXPECT_EQ(RoundScalar(Format::kFP16, 0x1p-14f - 0x1p-30f, flush), 0x1p-14f);
}

TEST(FormatRoundingTest, NaNStaysNaNWithItsPayloadWhereItFits) {
  const float nan = std::bit_cast<float>(0xffc12345u);
  EXPECT_EQ(std::bit_cast<uint32_t>(RoundScalar(Format::kFP16, nan)), 0xffc12345u & ~0x1fffu);
  EXPECT_EQ(std::bit_cast<uint32_t>(RoundScalar(Format::kBF16, nan)), 0xffc10000u);
  // A signalling payload below the kept bits stays a NaN.
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kFP16, std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kBF16, std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kFP8E5M2, std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(std::isnan(RoundScalar(Format::kHiF8, nan)));
}

TEST(FormatRoundingTest, StochasticRoundingIsUnbiasedAndReproducible) {
  // 1 + 2^-12 is a quarter of the way from 1 to the next fp16 value.
  const float x = 1.0f + 0x1p-12f;
  RoundingOptions opt = With(Rounding::kStochastic);
  opt.seed = 12345;
  int up = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const float r = RoundScalar(Format::kFP16, x, opt, i);
    ASSERT_TRUE(r == 1.0f || r == 1.0f + 0x1p-10f) << r;
    up += r > 1.0f;
    EXPECT_EQ(r, RoundScalar(Format::kFP16, x, opt, i));  // same (seed, index): same result
  }
  EXPECT_NEAR(static_cast<double>(up) / n, 0.25, 0.005);  // 5 sigma is about 0.0048
  // Another seed gives another sequence.
  RoundingOptions other = opt;
  other.seed = 54321;
  int differ = 0;
  for (int i = 0; i < 1000; ++i)
    differ += RoundScalar(Format::kFP16, x, opt, i) != RoundScalar(Format::kFP16, x, other, i);
  EXPECT_GT(differ, 200);
  // Representable values never move.
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(RoundScalar(Format::kFP16, 1.5f, opt, i), 1.5f);
}

}  // namespace
}  // namespace npugap::numerics
