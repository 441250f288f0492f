#include "npugap/numerics/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace npugap::numerics {

TEST(HalfTest, EveryFiniteAndInfinitePatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = HalfToFloat(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f)))) << bits;
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << "pattern " << bits;
  }
}

TEST(HalfTest, KnownValuesAndRoundToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);                   // max half
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);                   // halfway to 2^16 rounds to inf
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);       // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);       // tie to even (0)
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);       // 1.5 ulp -> 2 (even)
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even keeps 1.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
}

TEST(HalfTest, BFloat16RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::nanf("")))));
  EXPECT_EQ(BFloat16ToFloat(0x4049), 3.140625f);
}

}  // namespace npugap::numerics
