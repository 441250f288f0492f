// The cube kernel's time on the busiest core (cost_model_cube_time.cc), hand-computed on the
// ascend910 profile: resident operands are loaded before the MADs, streamed ones are hidden
// behind them, and a coupled core drains each output tile through UB after its MADs.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf::internal {
namespace {

CubeShape Fp16(int64_t batch, int64_t m, int64_t n, int64_t k) {
  CubeShape s;
  s.batch = batch, s.m = m, s.n = n, s.k = k;
  return s;  // fp16 in and out, no im2col, one pass
}

double Cycles(double seconds, const target::Target& t) { return seconds * t.compute.clock.value; }

TEST(PerfCubeTime, AResidentOperandLoadsFirstAndTheNextTilesMadsCoverTheDrain) {
  const auto& t = Ascend910AtAttRates();
  // 128^3 on one core. The fastest schedule keeps B (32 KiB) resident in L1, loaded first at
  // gm_to_l1 = 32 B/cycle: 1024 cycles before any MAD. A streams in 16-row tiles (m0 = 16,
  // n0 = k0 = 128), double-buffered: per tile its 4 KiB chunk (128 cycles) hides the MTE1 load of
  // B into L0B (32 KiB at 256 B/cycle = 128) and the 64 MAD cycles; 8 tiles = 1024 cycles. Each
  // 16 x 128 fp16 output tile (4 KiB, 128 cycles at 32 B/cycle out of UB) is covered by the next
  // tile's first MAD step (one operand resident, L0C double-buffered: CANN's L0C preload).
  const CubeTimes c = CubeTime(Fp16(1, 128, 128, 128), 1, t);
  EXPECT_DOUBLE_EQ(Cycles(c.compute, t), 512);
  EXPECT_DOUBLE_EQ(Cycles(c.load, t), 2048);
  EXPECT_DOUBLE_EQ(Cycles(c.store, t), 1024);
  EXPECT_TRUE(c.serial);  // the 910's cube results go L0C -> UB -> GM
  EXPECT_NEAR(Cycles(c.critical, t), 1024 + 1024, 1e-6);
}

TEST(PerfCubeTime, WithoutTheL0cPreloadEachTilesDrainFollowsItsMads) {
  const auto& t = Ascend910AtAttRates();
  // The shape above with CubeShape::l0c_preload off (a convolution with a fused vector part,
  // session 16 rn13): the next tile's first MAD step no longer covers the drain, so each of the
  // 8 output tiles adds its 128-cycle drain to the main loop: 1024 + 1024 + 8 x 128.
  CubeShape s = Fp16(1, 128, 128, 128);
  s.l0c_preload = false;
  const CubeTimes c = CubeTime(s, 1, t);
  EXPECT_NEAR(Cycles(c.critical, t), 1024 + 1024 + 8 * 128, 1e-6);
  EXPECT_DOUBLE_EQ(Cycles(c.store, t), 1024);  // the drain itself is unchanged
}

TEST(PerfCubeTime, ACoupledCoreDrainsAfterTheMadsASeparatedOneAlongside) {
  const auto& t = Ascend910AtAttRates();
  target::Target separated = t;
  separated.compute.core_coupling.value = "separated";
  // A shallow product (k = 16) is all output: 2 MiB of fp16 C per core, drained through UB on the
  // 910, by FixPipe next to the MADs on a separated core.
  const CubeTimes coupled = CubeTime(Fp16(1, 1024, 1024, 16), 1, t);
  const CubeTimes split = CubeTime(Fp16(1, 1024, 1024, 16), 1, separated);
  EXPECT_FALSE(split.serial);
  EXPECT_GT(coupled.critical, split.critical);
  EXPECT_GE(coupled.critical, coupled.store - 1e-12);
}

TEST(PerfCubeTime, StreamedOperandsHideTheMads) {
  const auto& t = Ascend910();
  // 256 x 256 x 65536 on one core: 32 MiB per operand, so both stream in k chunks, double-
  // buffered. The loads (A once, B once more from L2 for the second tile row) outlast the
  // 2 x 1024 MAD steps: the path is the loads plus the drain, the MADs add nothing.
  const CubeTimes c = CubeTime(Fp16(1, 256, 256, 65536), 1, t);
  const double bytes = 256.0 * 65536 * 2;
  const double gm = t.datapath->gm_to_l1.value, l2 = t.datapath->l2_to_l1.value;
  EXPECT_NEAR(Cycles(c.load, t), 2 * bytes / gm + bytes / l2, 1e-6 * bytes);
  EXPECT_GT(c.load, c.compute);
  EXPECT_NEAR(c.critical, c.load + c.store, 1e-12);
}

TEST(PerfCubeTime, WorkIsSplitOverTheCores) {
  const auto& t = Ascend910();
  // 32 independent 128^3 products on 16 cores: the busiest core does 2 of them, on 32 cores 1.
  const CubeTimes one = CubeTime(Fp16(1, 128, 128, 128), 1, t);
  EXPECT_NEAR(CubeTime(Fp16(32, 128, 128, 128), 16, t).critical, 2 * one.critical, 1e-12);
  EXPECT_NEAR(CubeTime(Fp16(32, 128, 128, 128), 32, t).critical, one.critical, 1e-12);
}

TEST(PerfCubeTime, AConvolutionsCoresTakeWholeImagesTimesRowsOfOneImage) {
  const auto& t = Ascend910();
  // 32 images of 13 output fractals each (14 x 14 = 196 pixels, padded to 208), n = k = 16, on 30
  // cores. Split freely, the busiest core takes ceil(416 / 30) = 14 fractals. TBE splits batch
  // into batch_dim parts and one image's m into m_dim parts; the best such split has 16 fractals
  // on the busiest core (2 parts of 16 images x 13 parts of 1 fractal; 30 x 1 gives 2 x 13 = 26).
  CubeShape conv = Fp16(1, 32 * 208, 16, 16);
  conv.images = 32;
  CubeShape pooled = conv;
  pooled.images = 0;
  EXPECT_DOUBLE_EQ(CubeTime(conv, 30, t).critical, CubeTime(Fp16(1, 16 * 16, 16, 16), 1, t).critical);
  EXPECT_DOUBLE_EQ(CubeTime(pooled, 30, t).critical, CubeTime(Fp16(1, 14 * 16, 16, 16), 1, t).critical);
  // On 16 cores both give 2 whole images (26 fractals) per core.
  EXPECT_DOUBLE_EQ(CubeTime(conv, 16, t).critical, CubeTime(pooled, 16, t).critical);
  EXPECT_DOUBLE_EQ(CubeTime(conv, 16, t).critical, CubeTime(Fp16(1, 26 * 16, 16, 16), 1, t).critical);
}

TEST(PerfCubeTime, AStridedBackpropInputsBusiestCoreTakesWholeImagesWithAllOfNAndK) {
  const auto& t = Ascend910();
  // 32 images of 13 fractals, n = k = 16, on 30 cores. Bound on the batch only, the busiest core
  // takes ceil(32 / 30) = 2 images = 26 fractals; the images x rows split gives it 16.
  CubeShape rows = Fp16(1, 32 * 208, 16, 16);
  rows.images = 32;
  CubeShape batch_only = rows;
  batch_only.batch_cores_only = true;
  EXPECT_DOUBLE_EQ(CubeTime(batch_only, 30, t).critical, CubeTime(Fp16(1, 26 * 16, 16, 16), 1, t).critical);
  EXPECT_GT(CubeTime(batch_only, 30, t).critical, CubeTime(rows, 30, t).critical);
  // Fewer images than cores: not bound on the batch only (one image per core would leave cores
  // idle that the pixels can use), the images x rows split stands.
  CubeShape few = Fp16(1, 8 * 208, 16, 16);
  few.images = 8;
  CubeShape few_batch_only = few;
  few_batch_only.batch_cores_only = true;
  EXPECT_DOUBLE_EQ(CubeTime(few_batch_only, 30, t).critical, CubeTime(few, 30, t).critical);
}

TEST(PerfCubeTime, ACoupledDrainMovesTheSumsToUbThenStoresTheOutput) {
  // The 2020 Ascend910.ini's l0CToUBRate: each tile's 4-byte sums leave L0C for UB at
  // datapath.l0c_to_ub, then its fp16 output goes to GM at ub_to_gm, one after the other (CANN's
  // GemmCycleModelUB adds its L0C -> UB pass and the MTE3 store per tile). A shallow product
  // (k = 16) on one core: the drain covers every element of C once.
  const auto& t = Ascend910();
  ASSERT_TRUE(t.datapath->l0c_to_ub.has_value());
  const double l0c_ub = t.datapath->l0c_to_ub->value, ub_gm = t.datapath->ub_to_gm.value;
  const double elements = 1024.0 * 1024;
  const CubeTimes c = CubeTime(Fp16(1, 1024, 1024, 16), 1, t);
  EXPECT_NEAR(Cycles(c.store, t), elements * (4 / l0c_ub + 2 / ub_gm), 1e-6 * elements);
  // A profile without the rate drains at the store alone.
  target::Target store_only = t;
  store_only.datapath->l0c_to_ub.reset();
  EXPECT_NEAR(Cycles(CubeTime(Fp16(1, 1024, 1024, 16), 1, store_only).store, t), elements * 2 / ub_gm,
              1e-6 * elements);
  // A separated core drains by FixPipe (l0c_to_gm); the UB rate does not enter.
  target::Target separated = t, separated_store_only = store_only;
  separated.compute.core_coupling.value = separated_store_only.compute.core_coupling.value = "separated";
  EXPECT_DOUBLE_EQ(CubeTime(Fp16(1, 1024, 1024, 16), 1, separated).store,
                   CubeTime(Fp16(1, 1024, 1024, 16), 1, separated_store_only).store);
}

TEST(PerfCubeTime, ANegativeL0cToUbRateIsAnError) {
  const auto bad = LoadEditedAscend910([](nlohmann::json& j) { j["datapath"]["l0c_to_ub"]["value"] = -1; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("datapath.l0c_to_ub"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
