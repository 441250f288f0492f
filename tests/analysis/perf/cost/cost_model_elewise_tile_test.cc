// LambApplyOptimizerAssign's UB tiles as TBE's elementwise multi-output schedule sizes and cuts
// them (cost_model_elewise_tile.cc). Expected values are worked out from the source's arithmetic.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

Kernel Lamb(const std::string& x) {
  const std::string s = "ND:float32:1x1";
  return K("LambApplyOptimizerAssign", 30, {x, x, x, x, s, s, s, s, s, s, s, s}, {x, x, x});
}

// The tiles of a LAMB kernel on tensors `x`, `item` bytes an element, `per_core` on the busiest core.
std::optional<internal::TilePlan> LambTiles(const std::string& x, double item, double per_core) {
  const Kernel lamb = Lamb(x);
  return internal::ElewiseMultiTiles(lamb, lamb.inputs[0], item, per_core, Ascend910());
}

TEST(PerfElewiseTile, LambTileIsWholeRowsWithinTheLivenessCount) {
  const target::Target& t = Ascend910();
  // 256 KiB of UB: 131,072 float16 units, halved for the double buffer, over a live width of 12
  // (six float32 tensors) x 128, times 128: 5,376 elements, exactly 7 rows of 768.
  const auto narrow = LambTiles("ND:float32:3072x768", 4, 103.0 * 768);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_EQ(narrow->tile, 5376.0);
  EXPECT_EQ(narrow->tiles, 15.0);  // 103 rows in tiles of 7
  // A row of 3,072: two would be 6,144, so one row a tile, 26 tiles for the busiest block's 26
  // rows (the element count alone, 79,872 / 5,376, would give 15).
  const auto wide = LambTiles("ND:float32:768x3072", 4, 26.0 * 3072);
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->tile, 3072.0);
  EXPECT_EQ(wide->tiles, 26.0);
  // PlanTiles takes it, and other kernels keep the generic cap.
  const Kernel rows_3072 = Lamb("ND:float32:768x3072");
  const internal::TilePlan plan = internal::PlanTiles(rows_3072, rows_3072.inputs[0], {25, 5, 3, 0},
                                                      "float32", 768.0 * 3072 / (26.0 * 3072), t);
  EXPECT_EQ(plan.tiles, 26.0);
  EXPECT_FALSE(internal::ElewiseMultiTiles(K("Mul", 30, {"ND:float32:768x3072"}, {"ND:float32:768x3072"}),
                                           rows_3072.inputs[0], 4, 26.0 * 3072, t)
                   .has_value());
}

TEST(PerfElewiseTile, LambBlockThatFitsIsOneTile) {
  const auto plan = LambTiles("ND:float32:3072", 4, 256);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->tiles, 1.0);
  EXPECT_EQ(plan->tile, 256.0);
}

TEST(PerfElewiseTile, LambFloat16TileTakesTheNearestDivisorOfTheAxis) {
  // Float16 tensors are one unit wide: width 6, a count of 65,536 // 768 x 128 = 10,880 elements,
  // 14 rows of 768 and a bit; not equal, so get_nearest_factor(3072, 14): the divisor 12 (14 is
  // under twice it), 9,216 elements a tile.
  const auto plan = LambTiles("ND:float16:3072x768", 2, 103.0 * 768);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->tile, 9216.0);
  EXPECT_EQ(plan->tiles, 9.0);  // 103 rows in tiles of 12
}

TEST(PerfElewiseTile, LambLoadWaitsWhenTheSecondInputSetDoesNotFit) {
  const target::Target& t = Ascend910();
  // 4 doubled inputs + 6 live results = 14 tiles. 7 rows of 768 float32: 14 x 21,504 B = 301 KB,
  // over the 256 KiB UB: the next load waits for the tile's vector work.
  const auto narrow = LambTiles("ND:float32:3072x768", 4, 103.0 * 768);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_TRUE(narrow->inputs_wait_for_work);
  // One row of 3,072 (172 KB) and 12 float16 rows of 768 (14 x 18,432 B = 258,048 B, with the
  // scalars' 16 blocks 258,560 B) fit: the load overlaps.
  const auto wide = LambTiles("ND:float32:768x3072", 4, 26.0 * 3072);
  ASSERT_TRUE(wide.has_value());
  EXPECT_FALSE(wide->inputs_wait_for_work);
  const auto fp16 = LambTiles("ND:float16:3072x768", 2, 103.0 * 768);
  ASSERT_TRUE(fp16.has_value());
  EXPECT_FALSE(fp16->inputs_wait_for_work);
  // The same count for FusedMulApplyMomentum's float32 graph (width 10: 6,528 elements; 3 doubled
  // inputs and at most 3 results live): 9 tiles, 235 KB, fit.
  const std::string x = "FRACTAL_Z:float32:6528", s = "ND:float32:1";
  const Kernel fmam = K("FusedMulApplyMomentum", 30, {x, x, s, x, s, s}, {x, x});
  EXPECT_TRUE(internal::DoubleBufferedInputsFit(fmam, fmam.inputs[0], 3, 6528, 4, t.buffers.ub->value));
  // And a LAMB 3,072 x 768 kernel is costed with its load after its vector work: the time beyond
  // the launch and the vector work is at least the load's bytes.
  const KernelCost c = PredictKernel(Lamb("ND:float32:3072x768"), t);
  const double load_bytes_us =
      1e6 * 103.0 * 768 * 4 * 4 / (t.datapath->gm_to_ub.value * t.compute.clock.value);
  EXPECT_GT(c.time_us - c.overhead_us - c.vector_us, load_bytes_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
