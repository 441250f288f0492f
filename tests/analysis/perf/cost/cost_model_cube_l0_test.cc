// CANN's cache tiling's L0 tile (cost_model_cube_l0.cc) on the shares of BERT's weight gradients.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CacheL0Tile Tile(int64_t m, int64_t n, int64_t k) {
  CacheL0Inputs in;  // the 910's buffers: L0A / L0B 64 KiB, L0C 256 KiB, L1 1 MiB, fp16 operands
  in.m = m, in.n = n, in.k = k;
  return CacheTilingL0(in);
}

TEST(PerfCubeL0, AShareThatFitsHalfOfL0CKeepsItDoubleBuffered) {
  // 768 x 768 x 16384 on n 6 x m 4 cores: a 192 x 128 share (12 x 8 fractals) is one L0C tile,
  // 12 x 8 x 4 fractals, and both tilings load 12 + 8 fractals: L0C stays doubled.
  EXPECT_EQ(Tile(12, 8, 1024), (CacheL0Tile{12, 8, 4, true}));
}

TEST(PerfCubeL0, L0CIsSingleBufferedWhenItsWholeTileLoadsLess) {
  // 3072 x 768 on m 6 x n 4: a 512 x 192 share (32 x 12 fractals). Half of L0C gives 8 x 12
  // (A once per n tile, B 4 times: 32 + 4 x 12 = 80 fractals); all of L0C gives 16 x 12 x 4
  // (32 + 2 x 12 = 56), so the double buffer goes.
  EXPECT_EQ(Tile(32, 12, 1024), (CacheL0Tile{16, 12, 4, false}));
  // 768 x 3072 on n 12 x m 2: 384 x 256 (24 x 16) -> 12 x 16 x 4, single-buffered.
  EXPECT_EQ(Tile(24, 16, 1024), (CacheL0Tile{12, 16, 4, false}));
}

TEST(PerfCubeL0, TilesAreDivisorsOfTheShare) {
  // 1321 fractal rows (prime): m_l0 is one fractal; 7 columns: n_l0 7.
  const CacheL0Tile t = Tile(1321, 7, 160);
  EXPECT_EQ(t.m, 1);
  EXPECT_EQ(t.n, 7);
  EXPECT_EQ(160 % t.k, 0);
}

TEST(PerfCubeL0, ACacheTiledShareIsTimedWithTheTilersWholeL0CTile) {
  const auto& t = Ascend910();
  const auto& d = *t.datapath;
  // One core's 512 x 192 x 16384 share under the cache tiling. Its 256 x 192 tile (all of L0C)
  // covers n in one tile: neither operand fits L1, both stream in k chunks, A is read once and B
  // once per m tile (2), the second time from L2. Half of L0C (n0 = 96) would read A twice.
  CubeShape s;
  s.m = 512, s.n = 192, s.k = 16384;
  s.split_k = false;
  s.divisor_tiling = true;
  const CubeTimes c = CubeTime(s, 1, t);
  const double a = 512.0 * 16384 * 2, b = 16384.0 * 192 * 2;
  EXPECT_NEAR(c.load * t.compute.clock.value,
              a / d.gm_to_l1.value + b / d.gm_to_l1.value + b / d.l2_to_l1.value, 1e-3);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
