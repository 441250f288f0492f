// Vector kernels of TBE's static elementwise schedules double-buffer only their input tiles
// (cost_model_output_buffers.cc): each tile's vector work waits for the store of the tile before
// it, so vector work and store add up and only the load overlaps them. Expected values are worked
// out from the profile.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfOutputBuffers, VectorWorkAndStoreFollowOneAnotherBesideTheLoad) {
  // Totals over the core's tiles (any unit): load 1, vector 2, store 1.
  // 4 tiles: the slower stage (vector + store = 3) plus one tile's load (1 / 4).
  EXPECT_DOUBLE_EQ(internal::SingleBufferedOutputTime(1, 2, 1, 0, 4), 3.25);
  // One tile: nothing overlaps.
  EXPECT_DOUBLE_EQ(internal::SingleBufferedOutputTime(1, 2, 1, 0, 1), 4.0);
  // A load-bound loop keeps the load as its stage; the shared HBM limit still bounds it.
  EXPECT_DOUBLE_EQ(internal::SingleBufferedOutputTime(3, 1, 1, 0, 2), 4.0);
  EXPECT_DOUBLE_EQ(internal::SingleBufferedOutputTime(3, 1, 1, 5, 2), 6.0);
}

TEST(PerfOutputBuffers, OnlyElementwiseScheduleKernelsAreSingleBuffered) {
  const std::string x = "ND:float32:768x768", s = "ND:float32:1";
  const Kernel lamb = K("LambApplyOptimizerAssign", 30, {x, x, x, x, s, s}, {x, x, x});
  EXPECT_TRUE(internal::RunsSingleBufferedOutputs(lamb, {25, 5, 3, 0}, false));
  // A reduction or row broadcast (reduce / norm schedules), a per-channel kernel (bn schedules)
  // and DropoutDoMask's hand-written kernel are not.
  EXPECT_FALSE(internal::RunsSingleBufferedOutputs(lamb, {1, 0, 0, 1}, false));
  EXPECT_FALSE(internal::RunsSingleBufferedOutputs(lamb, {4, 0, 0, 0, 2}, false));
  EXPECT_FALSE(internal::RunsSingleBufferedOutputs(lamb, {4, 0, 0, 0}, true));
  const Kernel dropout = K("DropoutDoMask", 30, {x, "ND:uint8:73728", s}, {x});
  EXPECT_FALSE(internal::RunsSingleBufferedOutputs(dropout, {2, 0, 0, 0}, false));
}

TEST(PerfOutputBuffers, LambMomentUpdateAddsItsStoreToItsVectorWork) {
  const target::Target& t = Ascend910();
  // LAMB's moment update on 768 x 3,072 float32 over 30 blocks: vector-bound, three float32
  // outputs. The 30-part cut of axis 0 gives the busiest block 26 rows of 3,072, one row a tile,
  // at which the doubled inputs fit beside the results (cost_model_elewise_tile.cc), so only the
  // store follows the vector work.
  const std::string x = "ND:float32:768x3072", s = "ND:float32:1";
  const KernelCost c =
      PredictKernel(K("LambApplyOptimizerAssign", 30, {x, x, x, x, s, s, s, s, s, s}, {x, x, x}), t);
  ASSERT_EQ(c.bound, Bound::kVector);
  const double store_bytes_us =
      1e6 * 26.0 * 3072 * 3 * 4 / (t.datapath->ub_to_gm.value * t.compute.clock.value);
  // The store bytes alone (without their DMA heads) are beyond the vector work; the double-
  // buffered loop would hide them but for one tile.
  EXPECT_GT(c.time_us - c.overhead_us - c.vector_us, store_bytes_us);
  EXPECT_LT(c.time_us - c.overhead_us - c.vector_us, 1.2 * store_bytes_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
