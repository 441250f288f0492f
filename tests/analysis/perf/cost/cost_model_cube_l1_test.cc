// CANN's cache tiling's L1 state (cost_model_cube_l1.cc) and how the cube times it, on BERT's
// vocabulary matmuls (21,136 = 16 x 1321 columns, 1321 prime).
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CacheL0Inputs Share(int64_t m, int64_t n, int64_t k) {
  CacheL0Inputs in;  // the 910's buffers: L0A / L0B 64 KiB, L0C 256 KiB, L1 1 MiB, fp16 operands
  in.m = m, in.n = n, in.k = k;
  return in;
}

// An m x k x n matmul (elements) as CANN's cache tiling cuts it, k not split, on `cores` blocks.
CubeTimes CacheTiledTime(int64_t m, int64_t n, int64_t k, int cores) {
  CubeShape s;
  s.m = m, s.n = n, s.k = k;
  s.split_k = false;
  s.divisor_tiling = true;
  return CubeTime(s, cores, Ascend910());
}

TEST(PerfCubeL1, TheLogitsKeepAWholeAndLoadBInKFullPanels) {
  // 2560 x 21136 x 768 on 20 m parts: a core's 128 x 21136 x 768 share (8 x 1321 x 48 fractals).
  // A (192 KiB) is full-loaded; B's 16-wide panel is k-full (48 fractals, 3 k_l0 steps of 16,
  // under max_k_bl1 = mte1Loop 10): AL1FullLoad with a k-full B.
  const CacheL0Inputs in = Share(8, 1321, 48);
  const CacheL0Tile t = CacheTilingL0(in);
  EXPECT_EQ(t, (CacheL0Tile{4, 1, 16, true}));
  EXPECT_EQ(CacheTilingL1(in, t), CacheL1State::kAResidentBPanels);
}

TEST(PerfCubeL1, AOneFractalRowCapsTheAChunkAtOneStep) {
  // The vocabulary dW, 21136 x 32 x 2560 per core (1321 x 2 x 160 fractals), tile 1 x 2 x 32:
  // mte1Loop = 50 / (32 + 1) = 1 and kMinMte1Load 32 gives one step, so A's chunk is 32 of 160
  // fractals, not k-full: B whole, A streamed in chunks (no panel state).
  const CacheL0Inputs in = Share(1321, 2, 160);
  const CacheL0Tile t = CacheTilingL0(in);
  EXPECT_EQ(t, (CacheL0Tile{1, 2, 32, true}));
  EXPECT_EQ(CacheTilingL1(in, t), CacheL1State::kOther);
}

TEST(PerfCubeL1, BothOperandsInL1AreNoPanelState) {
  EXPECT_EQ(CacheTilingL1(Share(8, 8, 48), CacheL0Tile{8, 8, 8, true}), CacheL1State::kOther);
}

TEST(PerfCubeL1, ALogitsCoreLoadsEachBPanelBeforeItsMads) {
  const auto& t = Ascend910();
  const CubeTimes c = CacheTiledTime(128, 21136, 768, 1);
  // 1321 panels of 768 x 16 (24 KiB), each followed by its 2 m tiles x 3 k steps of 64-cycle
  // MADs; streamed and double-buffered instead, the core would take about 1.22 M cycles.
  const double panel = 768.0 * 16 * 2 / t.datapath->gm_to_l1.value, mads = 2 * 3 * 4 * 16;
  EXPECT_GE(c.critical * t.compute.clock.value, 1321 * (panel + mads));
}

TEST(PerfCubeL1, ACacheTiledKernelUsesAllOfItsBlocks) {
  const auto& t = Ascend910();
  // 20 blocks: m_dim 20 (n = 1321 fractals is not cut), a 128-row share per core, not the
  // 256-row share of 10 parts that would be a little faster per core.
  const CubeTimes c = CacheTiledTime(2560, 21136, 768, 20);
  const double a = 128.0 * 768 * 2, b = 768.0 * 21136 * 2;
  EXPECT_NEAR(c.load * t.compute.clock.value, (a + b) / t.datapath->gm_to_l1.value, 1e-3);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
