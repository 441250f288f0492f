// Bit patterns: every pattern of the 8- and 16-bit formats decodes and re-encodes to itself, and
// the format parameters, HiF8's layout and Encode / Decode agree with RoundScalar.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <set>

#include "npugap/numerics/format.h"

namespace npugap::numerics {
namespace {

uint32_t PatternCount(Format f) { return 1u << Info(f).bits; }

TEST(FormatCodesTest, EveryPatternRoundTrips) {
  for (Format f : {Format::kFP16, Format::kBF16, Format::kFP8E4M3, Format::kFP8E5M2, Format::kHiF8}) {
    int nans = 0;
    for (uint32_t b = 0; b < PatternCount(f); ++b) {
      const float v = Decode(f, b);
      if (std::isnan(v)) {
        ++nans;
        EXPECT_TRUE(std::isnan(Decode(f, Encode(f, v)))) << Info(f).name << " pattern " << b;
        continue;
      }
      EXPECT_EQ(Encode(f, v), b) << Info(f).name << " pattern " << b << " value " << v;
      // Saturation and flushing leave representable normal values alone too.
      const RoundingOptions sat{Rounding::kNearestEven, Overflow::kSaturation, Subnormals::kKeep, 0};
      if (std::isfinite(v)) EXPECT_EQ(Encode(f, v, sat), b) << Info(f).name << " pattern " << b;
    }
    // NaN patterns: fp16/bf16 2 * (2^m - 1) payloads... e4m3 two, e5m2 six, hif8 one.
    const int expected = f == Format::kFP16      ? 2046
                         : f == Format::kBF16    ? 254
                         : f == Format::kFP8E4M3 ? 2
                         : f == Format::kFP8E5M2 ? 6
                                                 : 1;
    EXPECT_EQ(nans, expected) << Info(f).name;
  }
}

TEST(FormatCodesTest, LargestAndSmallestValuesMatchInfo) {
  for (Format f : kAllFormats) {
    const FormatInfo& info = Info(f);
    EXPECT_EQ(RoundScalar(f, static_cast<float>(info.max_finite)), static_cast<float>(info.max_finite))
        << info.name;
    EXPECT_EQ(RoundScalar(f, static_cast<float>(info.min_subnormal)), static_cast<float>(info.min_subnormal))
        << info.name;
    // Half the smallest subnormal is a tie with zero: ties to even gives zero.
    EXPECT_EQ(RoundScalar(f, static_cast<float>(info.min_subnormal / 2)), 0.0f) << info.name;
    if (f == Format::kFP32) continue;  // 2^-150 is not a float
    // Just above the largest value's half-ulp the value overflows.
    const float above = std::nextafter(static_cast<float>(info.max_finite) * 1.25f, INFINITY);
    const float r = RoundScalar(f, above);
    EXPECT_TRUE(info.has_inf ? std::isinf(r) : std::isnan(r)) << info.name << " " << r;
  }
}

TEST(FormatCodesTest, EightBitValueSets) {
  // Positive finite values of each 8-bit format, all distinct, in the stated range.
  for (Format f : {Format::kFP8E4M3, Format::kFP8E5M2, Format::kHiF8}) {
    std::set<float> values;
    for (uint32_t b = 1; b < 128; ++b) {
      const float v = Decode(f, b);
      if (std::isfinite(v)) values.insert(v);
    }
    const size_t expected = f == Format::kFP8E4M3 ? 126 : f == Format::kFP8E5M2 ? 123 : 126;
    EXPECT_EQ(values.size(), expected) << Info(f).name;
    EXPECT_EQ(*values.begin(), static_cast<float>(Info(f).min_subnormal)) << Info(f).name;
    EXPECT_EQ(*values.rbegin(), static_cast<float>(Info(f).max_finite)) << Info(f).name;
  }
}

TEST(FormatCodesTest, HiF8LayoutByHand) {
  // Worked from the field rules in hif8.cc: Dot prefix, sign-magnitude exponent, mantissa.
  EXPECT_EQ(Encode(Format::kHiF8, 1.0f), 0x08u);    // D=0, mantissa 000
  EXPECT_EQ(Encode(Format::kHiF8, 1.5f), 0x0cu);    // D=0, mantissa 100
  EXPECT_EQ(Encode(Format::kHiF8, 2.0f), 0x10u);    // D=1 (001), E=+1 (0)
  EXPECT_EQ(Encode(Format::kHiF8, 0.5f), 0x18u);    // D=1, E=-1 (1)
  EXPECT_EQ(Encode(Format::kHiF8, 8.0f), 0x28u);    // D=2 (01), E=+3 (0,1)
  EXPECT_EQ(Encode(Format::kHiF8, 16.0f), 0x40u);   // D=3 (10), E=+4 (0,00), 2 mantissa bits
  EXPECT_EQ(Encode(Format::kHiF8, 256.0f), 0x60u);  // D=4 (11), E=+8 (0,000), 1 mantissa bit
  EXPECT_EQ(Encode(Format::kHiF8, 32768.0f), 0x6eu);
  EXPECT_EQ(Encode(Format::kHiF8, -std::ldexp(1.0f, -15)), 0xfeu);  // D=4, E=-15 (1,111)
  EXPECT_EQ(Encode(Format::kHiF8, std::ldexp(1.0f, -16)), 0x07u);   // denormal M=7
  EXPECT_EQ(Encode(Format::kHiF8, std::ldexp(1.0f, -22)), 0x01u);   // denormal M=1
  EXPECT_EQ(Encode(Format::kHiF8, INFINITY), 0x6fu);
  EXPECT_EQ(Encode(Format::kHiF8, -INFINITY), 0xefu);
  EXPECT_EQ(Encode(Format::kHiF8, NAN), 0x80u);
  EXPECT_EQ(Encode(Format::kHiF8, -0.0f), 0x00u);  // one zero
  EXPECT_EQ(Decode(Format::kHiF8, 0x0fu), 1.875f);
  EXPECT_EQ(Decode(Format::kHiF8, 0x4fu), 224.0f);  // 0 10 011 11: D=3, E=+7 (0,11), mantissa 11
}

TEST(FormatCodesTest, DecodeOfEncodeIsRoundScalar) {
  std::mt19937 rng(7);
  const RoundingOptions modes[] = {{},
                                   {Rounding::kTowardZero, Overflow::kSaturation, Subnormals::kFlush, 0},
                                   {Rounding::kHalfAway, Overflow::kIeee, Subnormals::kKeep, 0},
                                   {Rounding::kStochastic, Overflow::kIeee, Subnormals::kKeep, 99}};
  for (Format f : kAllFormats)
    for (const RoundingOptions& opt : modes)
      for (int i = 0; i < 20000; ++i) {
        const float x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
        const float a = Decode(f, Encode(f, x, opt, i)), b = RoundScalar(f, x, opt, i);
        EXPECT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b)) << Info(f).name << " x=" << x;
      }
}

TEST(FormatCodesTest, ParseFormatNamesAndAliases) {
  for (Format f : kAllFormats) EXPECT_EQ(ParseFormat(Info(f).name), f);
  EXPECT_EQ(ParseFormat("float16"), Format::kFP16);
  EXPECT_EQ(ParseFormat("bfloat16"), Format::kBF16);
  EXPECT_FALSE(ParseFormat("fp8").has_value());
  EXPECT_FALSE(ParseFormat("").has_value());
}

}  // namespace
}  // namespace npugap::numerics
