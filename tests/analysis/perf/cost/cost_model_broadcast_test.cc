// Inputs broadcast along the outer axes of an elementwise kernel (cost_model_broadcast.cc): TBE's
// broadcast schedule reads their slice in every UB tile, and cuts the tile as whole trailing axes
// times the largest factor of the split axis that fits. Expected values are worked out from the
// profile's own numbers (UB, MTE2 rate, clock), without instruction heads.
#include <gtest/gtest.h>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

const target::Target& Bare() { return Ascend910WithoutHeads(); }

// MTE2 seconds of `bytes` on one core.
double LoadUs(double bytes) {
  const target::Target& t = Bare();
  return 1e6 * bytes / (t.datapath->gm_to_ub.value * t.compute.clock.value);
}

TEST(PerfBroadcast, OuterBroadcastInputIsReadInEveryUbTile) {
  // [64, 4096] + [4096] on one core: 3 tile-sized buffers of 2 bytes in half the UB hold
  // 131072 / 6 = 21845 elements, so a tile is 4096 x (the largest factor of 64 <= 5 = 4) = 16384
  // elements and the core runs 16 tiles, each reading the 4096-element bias row.
  const KernelCost c =
      PredictKernel(K("Add", 1, {"ND:float16:64x4096", "ND:float16:4096"}, {"ND:float16:64x4096"}), Bare());
  const double x = 64.0 * 4096 * 2, bias_row = 4096.0 * 2;
  EXPECT_NEAR(c.memory_us, LoadUs(x + 16 * bias_row), 1e-9);
}

TEST(PerfBroadcast, EachCoreReadsTheSliceInEachOfItsTiles) {
  // The same kernel on 2 blocks: each core has 32 rows, in 8 tiles of 4 rows (16384 elements),
  // and reads the bias row in each of them, not half of it once.
  const KernelCost c =
      PredictKernel(K("Add", 2, {"ND:float16:64x4096", "ND:float16:4096"}, {"ND:float16:64x4096"}), Bare());
  const double x = 64.0 * 4096 * 2, bias_row = 4096.0 * 2;
  EXPECT_NEAR(c.memory_us, LoadUs(x / 2 + 8 * bias_row), 1e-9);
}

TEST(PerfBroadcast, TileTakesTheLargestFactorOfTheSplitAxisThatFits) {
  // 13 rows (a prime) of 4096: no factor of 13 between 2 and 5, so each tile is one row and
  // each of the 13 tiles reads the bias row again.
  const KernelCost c =
      PredictKernel(K("Add", 1, {"ND:float16:13x4096", "ND:float16:4096"}, {"ND:float16:13x4096"}), Bare());
  const double x = 13.0 * 4096 * 2, bias_row = 4096.0 * 2;
  EXPECT_NEAR(c.memory_us, LoadUs(x + 13 * bias_row), 1e-9);
}

TEST(PerfBroadcast, SameShapeAndScalarInputsAreReadOnce) {
  // No outer-axis broadcast: the two inputs (or the input and a one-element scalar) are read once.
  const KernelCost same = PredictKernel(
      K("Add", 1, {"ND:float16:64x4096", "ND:float16:64x4096"}, {"ND:float16:64x4096"}), Bare());
  EXPECT_NEAR(same.memory_us, LoadUs(2 * 64.0 * 4096 * 2), 1e-9);
  const KernelCost scalar =
      PredictKernel(K("Mul", 1, {"ND:float16:64x4096", "ND:float16:1"}, {"ND:float16:64x4096"}), Bare());
  EXPECT_NEAR(scalar.memory_us, LoadUs(64.0 * 4096 * 2 + 32), 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
