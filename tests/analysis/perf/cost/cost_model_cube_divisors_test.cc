// CANN's cache tiling cuts a matmul by divisors of its fractal counts (cost_model_cube_divisors.cc):
// the block split and the L0 tiles of a matmul whose block_dim is such a split.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CubeShape Matmul(int64_t m, int64_t n, int64_t k, bool divisors) {
  CubeShape s;
  s.m = m, s.n = n, s.k = k;
  s.split_k = false;
  s.divisor_tiling = divisors;
  return s;
}

TEST(PerfCubeDivisors, DivisorsOfTheFractalCounts) {
  EXPECT_EQ(LargestDivisorAtMost(1321, 30), 1);  // 21,136 = 1321 x 16, 1321 prime
  EXPECT_EQ(LargestDivisorAtMost(48, 30), 24);
  EXPECT_EQ(LargestDivisorAtMost(160, 30), 20);
  EXPECT_EQ(LargestDivisorAtMost(12, 100), 12);
  // 24 blocks over 1321 x 48 fractals: only 1 x 24; 30 over 1024 x 192 (2^10, 2^6 x 3): none.
  EXPECT_TRUE(HasDivisorSplit(1, 1321, 48, 160, false, 24));
  EXPECT_FALSE(HasDivisorSplit(1, 1321, 48, 160, false, 30));
  EXPECT_FALSE(HasDivisorSplit(1, 1024, 192, 48, false, 30));
  EXPECT_TRUE(HasDivisorSplit(1, 1024, 192, 48, false, 24));
  // k counts only when it may be split: 1 x 1 x 5 of 7 x 3 x 5.
  EXPECT_FALSE(HasDivisorSplit(1, 7, 3, 5, false, 5));
  EXPECT_TRUE(HasDivisorSplit(1, 7, 3, 5, true, 5));
  EXPECT_TRUE(HasDivisorSplit(4, 7, 3, 5, false, 12));  // batch 4 x n 3
}

TEST(PerfCubeDivisors, APrimeFractalCountIsNotCutSoEachCoreTakesAllOfIt) {
  const auto& t = Ascend910();
  // The vocabulary weight gradient, 21136 x 768 x 2560 on 24 blocks: m (1321 fractals, prime)
  // cannot be cut, so the 24 blocks split n alone and each core computes 21136 x 32 x 2560:
  // the same time as that share on one core.
  const CubeTimes split = CubeTime(Matmul(21136, 768, 2560, true), 24, t);
  const CubeTimes share = CubeTime(Matmul(21136, 32, 2560, true), 1, t);
  EXPECT_DOUBLE_EQ(split.critical, share.critical);
  // A free split (a tiler that leaves tails) cuts m too and is several times faster.
  const CubeTimes free = CubeTime(Matmul(21136, 768, 2560, false), 24, t);
  EXPECT_GT(split.critical, 3 * free.critical);
}

TEST(PerfCubeDivisors, TheL0TileDividesTheCoresShare) {
  const auto& t = Ascend910();
  // One core, 1321 x 16 rows: the L0 tile is one fractal row (16), so B is loaded into L0B for
  // every 16 rows of A instead of every 128 or more.
  const CubeTimes divisors = CubeTime(Matmul(21136, 256, 512, true), 1, t);
  const CubeTimes free = CubeTime(Matmul(21136, 256, 512, false), 1, t);
  EXPECT_GT(divisors.critical, 1.2 * free.critical);
  // 1024 x 256 rows divide into any power-of-two tile: the same schedule either way.
  EXPECT_DOUBLE_EQ(CubeTime(Matmul(1024, 256, 512, true), 1, t).critical,
                   CubeTime(Matmul(1024, 256, 512, false), 1, t).critical);
}

TEST(PerfCubeDivisors, ABlockDimThatIsNoDivisorSplitKeepsTheFreeSplit) {
  const auto& t = Ascend910();
  // 30 blocks over 16384 x 3072 (1024 x 192 fractals) cannot come from divisors: the kernel was
  // tiled with tails, and the flag changes nothing.
  EXPECT_DOUBLE_EQ(CubeTime(Matmul(16384, 3072, 768, true), 30, t).critical,
                   CubeTime(Matmul(16384, 3072, 768, false), 30, t).critical);
}

TEST(PerfCubeDivisors, OnlyALaunchedMatmulIsTiledByDivisors) {
  const auto& t = Ascend910();
  // The vocabulary weight gradient as recorded (24 blocks): a matmul, tiled by divisors. Its
  // block_dim is the evidence of the tiler, so a kernel whose block_dim the model chooses (0, a
  // lowered graph) and a convolution keep the free split.
  const std::vector<std::string> in = {"FRACTAL_NZ:float16:1321x160x16x16",
                                       "FRACTAL_NZ:float16:48x160x16x16"};
  const std::vector<std::string> out = {"FRACTAL_NZ:float16:48x1321x16x16"};
  const auto launched = DeriveCubeShape("MatMul", K("MatMul", 24, in, out), t);
  ASSERT_TRUE(launched.ok());
  EXPECT_TRUE(launched->divisor_tiling);
  const auto lowered = DeriveCubeShape("MatMul", K("MatMul", 0, in, out), t);
  ASSERT_TRUE(lowered.ok());
  EXPECT_FALSE(lowered->divisor_tiling);
  const auto conv =
      DeriveCubeShape("Conv2D",
                      K("Conv2D", 30, {"NC1HWC0:float16:32x4x56x56x16", "FracZ:float16:4x16x16x16"},
                        {"NC1HWC0:float16:32x16x56x56x16"}),
                      t);
  ASSERT_TRUE(conv.ok());
  EXPECT_FALSE(conv->divisor_tiling);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
