// The fill and drain of a vector kernel's double-buffered tile loop (PipelineFillTime,
// cost_model_memory.cc; docs/perf.md "Pipes"): the MTE2 load, the vector work and the MTE3 store
// of each UB tile run in order on their own queues, so a loop of T tiles takes (T - 1) x its
// slowest stage plus every stage of one tile. Expected values are worked out from the profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfPipelineFill, OneTileOfEachStageOtherThanTheSlowestIsExposed) {
  // Totals over the core's tiles: load 3, vector 1, store 2 (any unit).
  EXPECT_DOUBLE_EQ(internal::PipelineFillTime(3, 1, 2, 1), 3.0);  // one tile: nothing overlaps
  EXPECT_DOUBLE_EQ(internal::PipelineFillTime(3, 1, 2, 2), 1.5);  // per tile: 0.5 vector + 1 store
  EXPECT_DOUBLE_EQ(internal::PipelineFillTime(3, 1, 2, 30), 0.1);
  EXPECT_DOUBLE_EQ(internal::PipelineFillTime(3, 1, 2, 0), 0.0);  // no tiles (no UB in the profile)
}

TEST(PerfPipelineFill, DataMoveKernelPaysOneTilesStoreBeyondItsLoad) {
  const target::Target& t = Ascend910();
  const double clock = t.compute.clock.value, ub = static_cast<double>(t.buffers.ub->value);
  // TensorMove of float16 on one core: input and output full size, each double-buffered, so a
  // tile holds ub / (2 x 2 x 2 B) elements. MTE2 (load) is its slowest pipe on one core; the
  // store of the last tile runs after it.
  const double tile = std::floor(ub / (2 * 2 * 2.0));
  const double store_one_tile_us = 1e6 * (tile * 2 / (t.datapath->ub_to_gm.value * clock) +
                                          t.kernel->dma_instruction_heads.at("ub_to_gm").value / clock);
  for (const int tiles : {1, 8}) {
    const std::string x = "ND:float16:" + std::to_string(static_cast<int64_t>(tile) * tiles);
    const KernelCost c = PredictKernel(K("TensorMove", 1, {x}, {x}), t);
    SCOPED_TRACE(tiles);
    EXPECT_NEAR(c.time_us - c.overhead_us - c.memory_us, store_one_tile_us, 1e-9);
  }
}

TEST(PerfPipelineFill, ManyTilesHideAlmostAll) {
  const target::Target& t = Ascend910();
  const double clock = t.compute.clock.value, ub = static_cast<double>(t.buffers.ub->value);
  // Add of two float16 inputs into one output on 8 cores: three full-size buffers, double-buffered,
  // so 385 tiles per core; MTE2 (two loads per tile) is the slowest pipe. What is not hidden is
  // one tile's vector work and store.
  const std::string x = "ND:float16:64x1024x1024";
  const KernelCost c = PredictKernel(K("Add", 8, {x, x}, {x}), t);
  const double tiles = std::ceil(64.0 * 1024 * 1024 / 8 / std::floor(ub / (2 * 3 * 2.0)));
  ASSERT_EQ(tiles, 385);
  const double store_us = 1e6 * (64.0 * 1024 * 1024 * 2 / 8 / (t.datapath->ub_to_gm.value * clock) +
                                 tiles * t.kernel->dma_instruction_heads.at("ub_to_gm").value / clock);
  ASSERT_GT(c.memory_us, std::max(store_us, c.vector_us));  // the load is the slowest pipe
  const double exposed = c.time_us - c.overhead_us - c.memory_us;
  EXPECT_NEAR(exposed, (store_us + c.vector_us) / tiles, 1e-9);
  EXPECT_LT(exposed, 0.002 * c.memory_us);
}

TEST(PerfPipelineFill, AnHbmBoundDataMoveHasNoFill) {
  // Core totals: load 3, store 2 over 4 tiles. The per-core path is 3 + one tile's store (0.5); a
  // shared HBM limit above it is the time, with no fill on top (every stage is DMA).
  EXPECT_DOUBLE_EQ(internal::MoveLoopTime(3, 2, 0, 4), 3.5);
  EXPECT_DOUBLE_EQ(internal::MoveLoopTime(3, 2, 5, 4), 5.0);
  EXPECT_DOUBLE_EQ(internal::MoveLoopTime(3, 2, 3.2, 4), 3.5);
  EXPECT_DOUBLE_EQ(internal::MoveLoopTime(3, 2, 0, 1), 5.0);  // one tile: nothing overlaps
  const target::Target& t = Ascend910();
  // ConfusionTransposeD's BERT shape on 32 cores (true float16, 25 MB each way): each core's load
  // (40 B/cycle) takes about half the HBM bound, so the kernel is the HBM bound, with no fill on top.
  const Kernel k = K("ConfusionTransposeD", 128, {"FRACTAL_NZ:float16:48x1024x16x16"},
                     {"FRACTAL_NZ:float16:128x12x4x8x16x16"});
  const KernelCost c = PredictKernel(k, t);
  const double hbm_us = 1e6 * 2.0 * 48 * 1024 * 16 * 16 * 2 / t.memory.bandwidth.value;
  EXPECT_NEAR(c.memory_us, hbm_us, 1e-9);
  EXPECT_NEAR(c.time_us - c.overhead_us, hbm_us, 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
