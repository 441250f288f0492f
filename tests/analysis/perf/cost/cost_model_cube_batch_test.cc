// A batched matmul whose batches each fit in half of L1 (cost_model_cube_time.cc,
// `BatchPipelined`, from TBE's mmad_schedule.py): the next batch's loads run beside this batch's
// MADs, and each batch's MADs and drain follow each other (L0C single-buffered).
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CubeShape Batched(int64_t batch, int64_t m, int64_t n, int64_t k) {
  CubeShape s;
  s.batch = batch, s.m = m, s.n = n, s.k = k;
  s.batch_matmul = true;
  return s;  // fp16 in and out
}

double Cycles(double seconds, const target::Target& t) { return seconds * t.compute.clock.value; }

TEST(PerfCubeBatch, TheNextBatchLoadsBesideThisBatchsMadsAndDrain) {
  const auto& t = Ascend910AtAttRates();
  // 52 batches of 128 x 128 x 64 on one core. Per batch A and B are 16 KiB each: 1024 cycles at
  // gm_to_l1 = 32 B/cycle. One 128 x 128 L0 tile: 128 * 128 * 64 / 4096 = 256 MAD cycles, then its
  // 32 KiB fp16 output drains through UB at 32 B/cycle, 1024 cycles. After the first batch's
  // loads each batch takes max(1024, 256 + 1024) = 1280 cycles.
  const CubeTimes c = CubeTime(Batched(52, 128, 128, 64), 1, t);
  EXPECT_NEAR(Cycles(c.critical, t), 1024 + 51 * 1280 + 1280, 1e-6);
  EXPECT_NEAR(Cycles(c.load, t), 52 * 1024, 1e-6);
  // 128 x 64 x 128 (A 32 KiB, B 16 KiB, C 16 KiB): the loads, 1536 cycles, outlast the 256 MAD
  // and 512 drain cycles, so the batches follow at the load rate.
  const CubeTimes wide_k = CubeTime(Batched(52, 128, 64, 128), 1, t);
  EXPECT_NEAR(Cycles(wide_k.critical, t), 52 * 1536 + 256 + 512, 1e-6);
}

TEST(PerfCubeBatch, BatchesTooLargeForHalfOfL1AreNotPipelined) {
  const auto& t = Ascend910();
  // A is 1 MiB per batch, more than half of L1: the schedule does not double-buffer across
  // batches, so two batches take twice one.
  const CubeTimes one = CubeTime(Batched(1, 512, 512, 1024), 1, t);
  const CubeTimes two = CubeTime(Batched(2, 512, 512, 1024), 1, t);
  EXPECT_NEAR(two.critical, 2 * one.critical, 1e-12);
}

TEST(PerfCubeBatch, ADepthwiseConvolutionsChannelGroupsAreNoMatmulBatches) {
  const auto& t = Ascend910();
  CubeShape groups = Batched(52, 128, 128, 64);
  groups.batch_matmul = false;  // as DepthwiseShape leaves it
  const CubeTimes pipelined = CubeTime(Batched(52, 128, 128, 64), 1, t);
  EXPECT_GT(CubeTime(groups, 1, t).critical, pipelined.critical);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
