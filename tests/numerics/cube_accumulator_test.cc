// The finite cube accumulator model, on hand-computed cases.
#include "npugap/numerics/cube_accumulator.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace npugap::numerics {
namespace {

const double kTiny = std::ldexp(1.0, -30);

float Accumulate(const std::vector<double>& products, int bits) {
  CubeAccumulator acc(bits);
  for (double p : products) acc.Add(p);
  return acc.Result();
}

// 1 - 1 + 2^-30 in one fractal: aligned to 2^0, 23 fraction bits keep nothing below 2^-23.
TEST(CubeAccumulatorTest, AlignmentDropsTheLowBitsOfSmallProducts) {
  EXPECT_EQ(AlignedFractalSum(std::vector<double>{1.0, -1.0, kTiny}, 23), 0.0);
  EXPECT_EQ(AlignedFractalSum(std::vector<double>{1.0, -1.0, kTiny}, 30), kTiny);
  EXPECT_EQ(Accumulate({1.0, -1.0, kTiny}, 23), 0.f);
  EXPECT_EQ(Accumulate({1.0, -1.0, kTiny}, 30), static_cast<float>(kTiny));
}

// Truncation is toward zero: 0.75 * 2^-23 is dropped whatever its sign, not rounded to 2^-23.
TEST(CubeAccumulatorTest, AlignedTermsAreTruncatedTowardZero) {
  const double q = std::ldexp(0.75, -23);
  EXPECT_EQ(AlignedFractalSum(std::vector<double>{1.0, q}, 23), 1.0);
  EXPECT_EQ(AlignedFractalSum(std::vector<double>{1.0, -q}, 23), 1.0);
  EXPECT_EQ(AlignedFractalSum(std::vector<double>{1.0, std::ldexp(1.5, -23)}, 23),
            1.0 + std::ldexp(1.0, -23));
}

// The 17th product starts a new fractal with its own exponent, so it survives where the same
// product inside the first fractal is dropped.
TEST(CubeAccumulatorTest, EachSixteenWideFractalIsAlignedOnItsOwn) {
  std::vector<double> p(16, 0.0);
  p[0] = 1.0;
  p[1] = -1.0;
  p[2] = kTiny;
  p.push_back(kTiny);
  EXPECT_EQ(Accumulate(p, 23), static_cast<float>(kTiny));
  // EndFractal closes a fractal early (a conv's channel block at one tap).
  CubeAccumulator acc(23);
  acc.Add(1.0);
  acc.Add(-1.0);
  acc.EndFractal();
  acc.Add(kTiny);
  EXPECT_EQ(acc.Result(), static_cast<float>(kTiny));
}

// With N large nothing is dropped: exact integer-valued products sum exactly, as in FP32.
TEST(CubeAccumulatorTest, LargeNEqualsFp32Accumulation) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-64, 64);  // sums stay below 2^24: exact in FP32
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> p(1 + trial * 3);
    float fp32 = 0.f;
    for (double& v : p) {
      v = d(rng) * d(rng);
      fp32 += static_cast<float>(v);
    }
    EXPECT_EQ(Accumulate(p, kMaxAccumulatorBits), fp32) << trial;
  }
  // Arbitrary products: within FP32 rounding of the exact sum.
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<double> p(1000);
  double exact = 0.0;
  for (double& v : p) exact += (v = static_cast<double>(u(rng)) * u(rng));
  EXPECT_NEAR(Accumulate(p, kMaxAccumulatorBits), exact, 1e-5);
}

TEST(CubeAccumulatorTest, NonFiniteProductsPropagate) {
  EXPECT_TRUE(std::isinf(Accumulate({1.0, INFINITY}, 23)));
  EXPECT_TRUE(std::isnan(Accumulate({INFINITY, -INFINITY}, 23)));
  EXPECT_EQ(Accumulate({0.0, 0.0}, 23), 0.f);
}

}  // namespace
}  // namespace npugap::numerics
