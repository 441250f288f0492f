// TBE's static matmul schedule (cost_model_cube_static.cc): its core split, which operand it
// keeps in L1, the rule that tells its records by their block_dim, and the re-read traffic.
#include <gtest/gtest.h>

#include <algorithm>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf::internal {
namespace {

std::string Nd(int64_t a, int64_t b, const std::string& dt = "float16") {
  return "ND:" + dt + ":" + std::to_string(a) + "x" + std::to_string(b);
}
Kernel MatMul(int64_t m, int64_t k, int64_t n, int block_dim, const std::string& dt = "float16") {
  return K("MatMul", block_dim, {Nd(m, k, dt), Nd(k, n, dt)}, {Nd(m, n, dt)});
}

// How many times one core loads its share of A and of B.
void ExpectReads(const StaticReads& reads, double a_times, double b_times) {
  EXPECT_DOUBLE_EQ(reads.a_times, a_times);
  EXPECT_DOUBLE_EQ(reads.b_times, b_times);
}

TEST(PerfCubeStatic, CoreSplitIsAPowerOfTwoTimesItsComplementWithTheLeastCopy) {
  // BERT's 16384-row forwards: m 32 x n 1 (copy 1 x |A| + 32 x |B| is the least).
  EXPECT_EQ(StaticCoreSplit(16384, 768, 768, 32).m, 32);
  EXPECT_EQ(StaticCoreSplit(16384, 768, 768, 32).n, 1);
  EXPECT_EQ(StaticCoreSplit(16384, 768, 3072, 32).m, 32);
  // The 16384 x 3072 output over k 768: 16 x 2 (2 |A| + 16 |B| is the least).
  EXPECT_EQ(StaticCoreSplit(16384, 3072, 768, 32).m, 16);
  EXPECT_EQ(StaticCoreSplit(16384, 3072, 768, 32).n, 2);
  // A square weight gradient 768 x 768 over k 16384: 4 x 8 (8 |A| + 4 |B|; 8 x 4 ties, not less).
  EXPECT_EQ(StaticCoreSplit(768, 768, 16384, 32).m, 4);
  EXPECT_EQ(StaticCoreSplit(768, 768, 16384, 32).n, 8);
  // At most 32 fractals of C: one core per fractal.
  EXPECT_EQ(StaticCoreSplit(64, 96, 512, 32).m, 4);
  EXPECT_EQ(StaticCoreSplit(64, 96, 512, 32).n, 6);
  // A row vector: n over the cores when it has more fractals than cores.
  EXPECT_EQ(StaticCoreSplit(1, 1024, 64, 32).n, 32);
  EXPECT_EQ(StaticCoreSplit(1, 256, 64, 32).n, 1);
}

TEST(PerfCubeStatic, KeepsTheOperandWhosePanelFitsHalfOfL1AndReReadsTheOther) {
  const double l1 = 1 << 20;  // half of it: 262,144 fp16 elements
  // 512 x 768 x 768 share, 64 x 512 tile: A's 64 x 768 panel fits, B's 512 x 768 does not, so B
  // is read once per m tile (8 times).
  ExpectReads(StaticOperandReads(512, 768, 768, 64, 512, l1, 2), 1, 8);
  // 256 x 128 tile: both panels fit; keeping A re-reads B twice (|A| + 2 |B|), keeping B re-reads
  // A six times (6 |A| + |B|): A is kept.
  ExpectReads(StaticOperandReads(512, 768, 768, 256, 128, l1, 2), 1, 2);
  // Neither panel fits (k 4096): A once per n tile, B once per m tile.
  ExpectReads(StaticOperandReads(512, 512, 4096, 128, 256, l1, 2), 2, 4);
}

// `get_tensor_reuse` streams one operand only when both fit as panels and neither as a whole
// share: a share that fits whole (2) keeps its operand beside the other's panel (1), and both are
// loaded once.
TEST(PerfCubeStatic, AWholeShareThatFitsIsKeptBesideTheOthersPanel) {
  const double l1 = 1 << 20;  // half of it: 262,144 fp16 elements
  // 128 x 1024 x 512 share, 64 x 512 tile: A whole (2 x 64 x 512) fits, B's 512 x 512 panel fits,
  // B whole (1024 x 512) does not: both are kept.
  ExpectReads(StaticOperandReads(128, 1024, 512, 64, 512, l1, 2), 1, 1);
  // The same with k 1024: B's panel no longer fits, A (whole, 131,072) is kept, B re-read per m tile.
  ExpectReads(StaticOperandReads(128, 1024, 1024, 64, 512, l1, 2), 1, 2);
}

TEST(PerfCubeStatic, ARecordOnTheStaticSplitIsTimedWithItsReReads) {
  const auto& t = Ascend910();
  ASSERT_TRUE(t.kernel && t.kernel->static_matmul_m_l0);
  // On 32 blocks (the static split) the shape carries m 32 x n 1; on 24 (not it) it does not.
  // 32 is also a divisor split of 1024 x 48 fractals (the cache tiling's test): the static
  // schedule takes precedence then.
  EXPECT_TRUE(HasDivisorSplit(1, 1024, 48, 48, false, 32));
  const auto on32 = DeriveCubeShape("MatMul", MatMul(16384, 768, 768, 32), t);
  const auto on24 = DeriveCubeShape("MatMul", MatMul(16384, 768, 768, 24), t);
  ASSERT_TRUE(on32.ok() && on24.ok());
  EXPECT_EQ(on32->static_m_cores, 32);
  EXPECT_EQ(on32->static_n_cores, 1);
  EXPECT_EQ(on24->static_m_cores, 0);
  // A batched matmul and a lowered kernel (block_dim 0) are not the static schedule's.
  EXPECT_EQ(DeriveCubeShape("MatMul", MatMul(16384, 768, 768, 0), t)->static_m_cores, 0);
  // Each core has 512 x 768 of C. With the profile's m_l0 rows, B (768 x 768) is read once per
  // m tile unless its panel fits; all of it comes over GM at gm_to_l1.
  const int64_t m0 = t.kernel->static_matmul_m_l0->value;
  const int64_t n0 = std::min<int64_t>(768, t.buffers.l0c->value / 2 / 4 / m0 / 16 * 16);
  const StaticReads reads = StaticOperandReads(512, 768, 768, m0, n0, t.buffers.l1->value, 2);
  const double bytes = 512.0 * 768 * 2 * reads.a_times + 768.0 * 768 * 2 * reads.b_times;
  const CubeTimes ct = CubeTime(*on32, 32, t);
  EXPECT_NEAR(ct.load, bytes / t.datapath->gm_to_l1.value / t.compute.clock.value, 1e-12);
  // Without the profile's tile the schedule is not modelled: the record takes the other tilers.
  target::Target no_tile = t;
  no_tile.kernel->static_matmul_m_l0.reset();
  const auto plain = DeriveCubeShape("MatMul", MatMul(16384, 768, 768, 32), no_tile);
  EXPECT_EQ(plain->static_m_cores, 0);
  EXPECT_NE(CubeTime(*plain, 32, no_tile).load, ct.load);
}

// The schedule cuts C with tvm split(factor = tile): n = 768 with the profile's 512-wide tile is
// a 512 and a 256 tile, and the last one drains and multiplies only its 256 columns. So one core's
// 512 x 768 share drains each element of C once (not 16 tiles of 64 x 512), and its MADs are
// m x n x k, not the tail padded to a whole tile.
TEST(PerfCubeStatic, TheLastTileDrainsAndMultipliesOnlyItsOwnColumns) {
  const auto& t = Ascend910();
  const auto on32 = DeriveCubeShape("MatMul", MatMul(16384, 768, 768, 32), t);
  ASSERT_TRUE(on32.ok());
  const int64_t m0 = t.kernel->static_matmul_m_l0->value;
  const int64_t n0 = std::min<int64_t>(768, t.buffers.l0c->value / 2 / 4 / m0 / 16 * 16);
  ASSERT_GT(768 % n0, 0) << "the profile's tile divides n: no last tile to test";
  const double clock = t.compute.clock.value;
  const CubeTimes ct = CubeTime(*on32, 32, t);
  // Each sum leaves L0C (4 bytes at l0c_to_ub), then its fp16 output goes to GM.
  EXPECT_NEAR(ct.store,
              512.0 * 768 * (2 / t.datapath->ub_to_gm.value + 4 / t.datapath->l0c_to_ub->value) / clock,
              1e-12);
  const double macs = t.compute.cube.at("fp16").macs_per_cycle.value;
  EXPECT_NEAR(ct.compute, 512.0 * 768 * 768 / macs / clock, 1e-12);
  // Bound by B's re-reads, which the loads overlap with the MADs; the drain follows on the
  // coupled core.
  EXPECT_NEAR(ct.critical, std::max(ct.load, ct.compute) + ct.store, 1e-12);
}

// A block_dim below the chip's cores that no divisor split gives but `get_perfect_core_num` over
// that many cores does (its core count is the build's `Device_core_num`): BERT's 30-block
// 16384 x 3072 x 768 `_MatMul_GeLU` / `_GeLUGrad` records, 1 x 30 (exp 1: only i = 1 is tried).
TEST(PerfCubeStatic, ABlockDimBelowTheChipThatOnlyTheStaticSplitGivesIsThatSplit) {
  const auto& t = Ascend910();
  EXPECT_EQ(StaticCoreSplit(16384, 3072, 768, 30).m, 1);
  EXPECT_EQ(StaticCoreSplit(16384, 3072, 768, 30).n, 30);
  EXPECT_FALSE(HasDivisorSplit(1, 1024, 192, 48, false, 30));
  const Kernel gelu = K("FusionOp_MatMul_GeLU", 30, {Nd(16384, 768), Nd(768, 3072), "ND:float16:3072"},
                        {Nd(16384, 3072), Nd(16384, 3072)});
  const auto on30 = DeriveCubeShape("MatMul", gelu, t);
  ASSERT_TRUE(on30.ok()) << on30.status().message();
  EXPECT_EQ(on30->static_m_cores, 1);
  EXPECT_EQ(on30->static_n_cores, 30);
  // 30 blocks over 160 x 48 fractals is the cache tiling's 5 x 6: not read as the static schedule.
  EXPECT_TRUE(HasDivisorSplit(1, 160, 48, 48, false, 30));
  EXPECT_EQ(DeriveCubeShape("MatMul", MatMul(2560, 768, 768, 30), t)->static_m_cores, 0);
  // 24 blocks over 1024 x 192 fractals is a divisor split (8 x 3) too.
  EXPECT_EQ(DeriveCubeShape("MatMul", MatMul(16384, 768, 3072, 24), t)->static_m_cores, 0);
}

// `open_double_buffer` double-buffers an operand's L1 copy only when it is not kept. On the 1 x 30
// split each core keeps A's 64 x 768 panel per tile row and all of its 112 x 768 share of B, so
// no load is streamed: the kept loads and the MADs follow one another, then the drain.
TEST(PerfCubeStatic, AKeptOperandsLoadsAreInSeriesWithTheMads) {
  const auto& t = Ascend910();
  const auto on30 = DeriveCubeShape("MatMul", MatMul(16384, 768, 3072, 30), t);
  ASSERT_TRUE(on30.ok()) << on30.status().message();
  ASSERT_EQ(on30->static_n_cores, 30);
  const int64_t m0 = t.kernel->static_matmul_m_l0->value;
  ExpectReads(StaticOperandReads(16384, 112, 768, m0, 112, t.buffers.l1->value, 2), 1, 1);
  const CubeTimes ct = CubeTime(*on30, 30, t);
  // The tile (64 x 112 per k row) is MAC-bound, so its MADs are the share's MACs.
  EXPECT_NEAR(ct.critical, ct.load + ct.compute + ct.store, 1e-9 * ct.critical);
}

TEST(PerfCubeStatic, AZeroTileInTheProfileIsAnErrorNamingTheField) {
  const auto bad =
      LoadEditedAscend910([](nlohmann::json& j) { j["kernel"]["static_matmul_m_l0"]["value"] = 0; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel.static_matmul_m_l0"), std::string::npos)
      << bad.status().message();
  // and the retired stand-in is an unknown key now (a warning, not a field the model reads)
  const auto old = LoadEditedAscend910([](nlohmann::json& j) {
    j["kernel"]["fp32_matmul_passes"] = {{"value", 4}, {"source", "assumed: old"}, {"confidence", "assumed"}};
  });
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_TRUE(std::any_of(old->warnings.begin(), old->warnings.end(), [](const std::string& w) {
    return w.find("fp32_matmul_passes") != std::string::npos;
  }));
}

// The stand-in `kernel.fp32_matmul_passes` is gone: float32-labelled A and C (float16 under the
// true TypeId labels) cost the same cube MADs as float16 ones.
TEST(PerfCubeStatic, Float32LabelsDoNotMultiplyTheMads) {
  const auto& t = Ascend910();
  const auto f16 = DeriveCubeShape("MatMul", MatMul(4096, 4096, 4096, 16), t);
  const auto f32 = DeriveCubeShape("MatMul", MatMul(4096, 4096, 4096, 16, "float32"), t);
  ASSERT_TRUE(f16.ok() && f32.ok());
  EXPECT_DOUBLE_EQ(CubeTime(*f16, 16, t).compute, CubeTime(*f32, 16, t).compute);
}

}  // namespace
}  // namespace npugap::analysis::perf::internal
