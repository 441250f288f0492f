// Instruction heads per UB tile (cost_model_tiles.cc, docs/perf.md "Tiles"). Every expected value
// is worked out here from the profile's own numbers (UB size, vector width, clock, heads); the
// head part of a kernel is its vector time with the heads minus its vector time without them.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace npugap::analysis::perf {
namespace {

struct Profile {
  const target::Target& t = Ascend910();
  target::Target bare = [] {
    target::Target b = Ascend910();
    b.kernel->vector_instruction_heads.clear();
    return b;
  }();
  double ub = static_cast<double>(t.buffers.ub->value);
  double repeat_bytes = static_cast<double>(t.compute.vector_width.value) / 8;
  double clock = t.compute.clock.value;
  double H(const char* cls) const { return t.kernel->vector_instruction_heads.at(cls).value; }
  // Microseconds of heads in a kernel: vector time with the heads minus without.
  double Heads(const Kernel& k) const {
    return PredictKernel(k, t).vector_us - PredictKernel(k, bare).vector_us;
  }
  double Us(double cycles) const { return 1e6 * cycles / clock; }
};

TEST(PerfTiles, ElementwiseTilesFillTheUbSharedByItsFullSizeOperands) {
  const Profile p;
  const std::string x = "ND:float16:64x1024x1024";
  // Two full-size operands, each double-buffered: a tile is UB / (2 x 2 x 2 B) elements; each
  // instruction covers at most 255 repeats of the vector width, so a tile takes `splits` of them.
  const double cap = std::floor(p.ub / (2 * 2 * 2.0));
  const double tiles = std::ceil(64.0 * 1024 * 1024 / 32 / cap);
  const double splits = std::ceil(cap / (255 * p.repeat_bytes / 2));
  EXPECT_NEAR(p.Heads(K("Relu", 32, {x}, {x})), p.Us(tiles * splits * p.H("simple")), 1e-9);
  // A third full-size operand shrinks every tile: more tiles, more heads per element.
  const double cap3 = std::floor(p.ub / (2 * 3 * 2.0));
  const double tiles3 = std::ceil(64.0 * 1024 * 1024 / 32 / cap3);
  const double splits3 = std::ceil(cap3 / (255 * p.repeat_bytes / 2));
  EXPECT_NEAR(p.Heads(K("Add", 32, {x, x}, {x})), p.Us(tiles3 * splits3 * p.H("simple")), 1e-9);
}

TEST(PerfTiles, RowKernelOnNzPaysOneInstructionPerBlockColumnOnNdOnePerRow) {
  const Profile p;
  // 96 matrices of 128 x 128 (NZ: 8 block columns of 16 x 8 row blocks of 16), 32 cores: 49,152
  // elements a core; a tile holds whole rows but not more than one matrix: 128 rows of 128.
  const std::string nz = "FRACTAL_NZ:float16:96x8x8x16x16";
  const double per_core = 96.0 * 128 * 128 / 32;
  const double nz_tile = 128.0 * 128;
  const double nz_tiles = std::ceil(per_core / nz_tile);
  // Softmax: sub, exp, div once per tile; its 2 row reductions and 2 broadcasts once per block column.
  const double elementwise = p.H("simple") + p.H("transcendental") + p.H("divide");
  const double per_slice = 2 * p.H("reduce") + 2 * p.H("simple");
  EXPECT_NEAR(p.Heads(K("Softmax", 32, {nz}, {nz})), p.Us(nz_tiles * (elementwise + 8 * per_slice)), 1e-9);
  // The same rows on ND: a tile holds UB / 8 B / 128 rows and pays the row instructions per row.
  const std::string nd = "ND:float16:12288x128";
  const double rows = std::floor(p.ub / (2 * 2 * 2.0) / 128);
  const double nd_tiles = std::ceil(per_core / (rows * 128));
  const double splits = std::ceil(rows * 128 / (255 * p.repeat_bytes / 2));
  const double nd_heads = nd_tiles * (splits * elementwise + rows * per_slice);
  EXPECT_NEAR(p.Heads(K("Softmax", 32, {nd}, {nd})), p.Us(nd_heads), 1e-9);
  EXPECT_GT(nd_heads, 10 * nz_tiles * (elementwise + 8 * per_slice));
}

TEST(PerfTiles, RowTilesHoldNoMoreRowsThanTheCoreHas) {
  const Profile p;
  // 128 rows of 2 on 16 cores: 8 rows a core, one tile; log-softmax's 2 reductions and 2
  // broadcasts are 8 instructions each (one per row), not one per row that would fit the UB.
  // Its per-element work: 2 simple ops and 2 casts (it computes in float32) and one exp.
  const std::string x = "ND:float16:128x2";
  const double elementwise = 4 * p.H("simple") + p.H("transcendental");
  const double rows = 8 * (2 * p.H("reduce") + 2 * p.H("simple"));
  const KernelCost c = PredictKernel(K("LogSoftmax", 16, {x}, {x}), p.t);
  EXPECT_NEAR(p.Heads(K("LogSoftmax", 16, {x}, {x})), p.Us(elementwise + rows), 1e-9);
  EXPECT_LT(c.time_us, 10.0);
}

TEST(PerfTiles, ChannelKernelTilesStayInsideOneFeatureMapPlane) {
  const Profile p;
  // Batch-norm gradient on NC1HWC0 float32: per-channel operands [1, C1, 1, 1, C0] keep each tile
  // inside one (n, c1) plane of H x W x C0. The same 3.2 M elements as 7 x 7 maps have 4 x the
  // planes of 14 x 14 maps, so 4 x the tiles, each paying BNTrainingUpdateGrad's 3 elementwise
  // instructions and its 2 sums, each a halving tree of ceil(log2(tile / 64)) adds (halved until
  // one 256 B repeat of float32 is left).
  const auto grad = [](const std::string& dims, const std::string& c) {
    const std::string x = "NC1HWC0:float32:" + dims, ch = "NC1HWC0:float32:" + c;
    return K("BNTrainingUpdateGrad", 32, {x, x, ch, ch}, {ch, ch});
  };
  const auto per_tile = [&](double rows) {
    return (3 + 2 * std::ceil(std::log2(rows * 16 / 64))) * p.H("simple");
  };
  const double tiles7 = 32.0 * 128 / 32, tiles14 = 32.0 * 64 / 32;  // one tile per plane
  EXPECT_NEAR(p.Heads(grad("32x128x7x7x16", "1x128x1x1x16")), p.Us(tiles7 * per_tile(7 * 7)), 1e-9);
  EXPECT_NEAR(p.Heads(grad("32x64x14x14x16", "1x64x1x1x16")), p.Us(tiles14 * per_tile(14 * 14)), 1e-9);
  // A plane larger than a tile (56 x 56 x 16 float32 = 196 KiB) is cut into ceil(plane / tile).
  const double cap = std::floor(p.ub / (2 * 2 * 4.0));
  const double per_plane = std::ceil(56.0 * 56 * 16 / cap);
  EXPECT_NEAR(p.Heads(grad("32x16x56x56x16", "1x16x1x1x16")),
              p.Us(32.0 * 16 / 32 * per_plane * per_tile(56.0 * 56 / per_plane)), 1e-9);
  // An operand that is itself per-channel (momentum on BN parameters) has no planes to keep to.
  const std::string ch = "NC1HWC0:float16:1x128x1x1x16";
  EXPECT_NEAR(p.Heads(K("Mul", 30, {ch, ch}, {ch})), p.Us(p.H("simple")), 1e-9);
}

TEST(PerfTiles, LayerNormXBackpropComputesInFloat32CastingEachTwoByteOperand) {
  const Profile p;
  // dy, x, mean, variance, gamma -> pd_x, res_for_gamma; four full-size operands.
  const auto lnx = [](const std::string& dt) {
    const std::string x = "ND:" + dt + ":4096x768", r = "ND:" + dt + ":4096x1", g = "ND:" + dt + ":768";
    return K("LayerNormXBackpropV2", 32, {x, x, r, r, g}, {x, x});
  };
  const auto& vi = p.t.kernel->vector_instructions;
  const double per_core = 4096.0 * 768 / 32;
  // 9 simple ops, 2 row sums and the 4 per-row values broadcast back (a simple op each)
  const double f32 = (9 + 4) * vi.at("simple").at("float32").value + 2 * vi.at("reduce").at("float32").value;
  EXPECT_NEAR(PredictKernel(lnx("float32"), p.bare).vector_us, p.Us(per_core * f32), 1e-9);
  // Stored in float16: the same float32 arithmetic plus one cast per full-size operand.
  const double casts = 4 * vi.at("simple").at("float32").value;
  EXPECT_NEAR(PredictKernel(lnx("float16"), p.bare).vector_us, p.Us(per_core * (f32 + casts)), 1e-9);
}

TEST(PerfTiles, SquareSumToAScalarIsAFloat32CrossLaneReduceInElementwiseTiles) {
  const Profile p;
  // x^2 summed over every axis of a float16 768 x 3072 tensor on 31 cores: square, cast to
  // float32 and a cross-lane sum per element, in float32 (CANN's square_sum_v1 DSL).
  const std::string x = "ND:float16:768x3072";
  const Kernel k = K("SquareSumV1", 31, {x}, {"ND:float16:1x1"});
  const auto& vi = p.t.kernel->vector_instructions;
  // The busiest of the 31 blocks: ceil(768 x 3072 / 31) elements in whole 32 B blocks of 16.
  const double per_core = std::ceil(std::ceil(768.0 * 3072 / 31) / 16) * 16;
  const double per_element = 2 * vi.at("simple").at("float32").value + vi.at("reduce").at("float32").value;
  EXPECT_NEAR(PredictKernel(k, p.bare).vector_us, p.Us(per_core * per_element), 1e-9);
  // The sum covers the whole tensor, not rows: plain float32 tiles, each paying the three
  // instructions' heads once per split (not the 3072-wide rows' heads). The atomic reduce
  // schedule's tile holds UB / 16 elements (two live float32 tensors, doubled;
  // cost_model_atomic_reduce.cc).
  const double cap = std::floor(p.ub / 2 / 2 / (4 * 128.0)) * 128;
  const double tiles = std::ceil(per_core / cap);
  const double splits = std::ceil(cap / (255 * p.repeat_bytes / 4));
  EXPECT_NEAR(p.Heads(k), p.Us(tiles * splits * (2 * p.H("simple") + p.H("reduce"))), 1e-9);
}

TEST(PerfTiles, ReduceSumAlongTheInnermostAxisIsCrossLaneAlongAnOuterOneLaneWise) {
  const Profile p;
  // reduce_sum_d on float16 sums in float32 (one cast); 2560 x 21128 on 30 cores.
  const std::string x = "ND:float16:2560x21128";
  const auto& vi = p.t.kernel->vector_instructions;
  // The busiest of the 30 blocks: ceil(2560 x 21128 / 30) elements in whole 32 B blocks of 16.
  const double per_core = std::ceil(std::ceil(2560.0 * 21128 / 30) / 16) * 16;
  const double cast = vi.at("simple").at("float32").value;
  // Summing each row (output 2560): a cross-lane reduce per element.
  const Kernel rows = K("ReduceSum", 30, {x}, {"ND:float16:2560"});
  EXPECT_NEAR(PredictKernel(rows, p.bare).vector_us,
              p.Us(per_core * (cast + vi.at("reduce").at("float32").value)), 1e-9);
  // Summing each column (output 21128, the innermost dim kept): lane-wise adds.
  const Kernel columns = K("ReduceSum", 30, {x}, {"ND:float16:21128"});
  EXPECT_NEAR(PredictKernel(columns, p.bare).vector_us, p.Us(per_core * (cast + cast)), 1e-9);
  // A kept dim of 1 in the innermost place is a reduction along it too.
  const Kernel kept = K("ReduceSum", 30, {x}, {"ND:float16:2560x1"});
  EXPECT_NEAR(PredictKernel(kept, p.bare).vector_us, PredictKernel(rows, p.bare).vector_us, 1e-9);
}

TEST(PerfTiles, LayerNormBetaGammaBackpropV2ComputesInFloat32) {
  const Profile p;
  // dy, res_for_gamma -> pd_gamma, pd_beta: dy x res and two column sums in float32, one cast per
  // 2-byte full-size operand (CANN's layer_norm_beta_gamma_backprop_v2).
  const std::string x = "ND:float16:4096x768", g = "ND:float32:768";
  const Kernel k = K("LayerNormBetaGammaBackpropV2", 32, {x, x}, {g, g});
  const double per_core = 4096.0 * 768 / 32;
  const double f32 = p.t.kernel->vector_instructions.at("simple").at("float32").value;
  EXPECT_NEAR(PredictKernel(k, p.bare).vector_us, p.Us(per_core * (3 + 2) * f32), 1e-9);
}

TEST(PerfTiles, NegativeHeadInTheProfileIsAnErrorNamingTheField) {
  const auto bad = LoadEditedAscend910(
      [](nlohmann::json& j) { j["kernel"]["vector_instruction_heads"]["reduce"]["value"] = -1; });
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel.vector_instruction_heads.reduce"), std::string::npos)
      << bad.status().message();
}

TEST(PerfTiles, BnUpdateGradSumsAreHalvingTreesThatCostHeadsNotElements) {
  const Profile p;
  // CANN's bn_update_grad schedule sums dy xhat and dy over N, H, W with
  // vector_dichotomy_add_for_bn_reduce: per (n, c1) plane tile, the upper half of the C0 rows is
  // added onto the lower half until one row is left. Per element that is still one add per sum,
  // so the vector time without heads is BNTrainingUpdateGrad's 5 float32 simple ops per element;
  // the heads grow with log2 of the tile: the schedule emits the tree while the reduced loop is
  // longer than one repeat (`_need_dichotomy_add`: 64 float32), so a 7 x 7 plane (784 elements)
  // takes ceil(log2(784 / 64)) = 4 adds per sum.
  const std::string x = "NC1HWC0:float32:32x32x7x7x16", ch = "NC1HWC0:float32:1x32x1x1x16";
  const Kernel k = K("BNTrainingUpdateGrad", 32, {x, x, ch, ch}, {ch, ch});
  const auto& vi = p.t.kernel->vector_instructions;
  const double per_core = 32.0 * 32 * 7 * 7 * 16 / 32;
  EXPECT_NEAR(PredictKernel(k, p.bare).vector_us, p.Us(per_core * 5 * vi.at("simple").at("float32").value),
              1e-9);
  const double planes = 32.0 * 32 / 32;
  EXPECT_NEAR(p.Heads(k), p.Us(planes * (3 + 2 * 4) * p.H("simple")), 1e-9);
  // A plane of one repeat (1 x 4 x 16) or less (1 x 1 x 16) still issues one add per sum.
  const std::string x4 = "NC1HWC0:float32:32x32x1x4x16", x1 = "NC1HWC0:float32:32x32x1x1x16";
  EXPECT_NEAR(p.Heads(K("BNTrainingUpdateGrad", 32, {x4, x4, ch, ch}, {ch, ch})),
              p.Us(planes * (3 + 2 * 1) * p.H("simple")), 1e-9);
  EXPECT_NEAR(p.Heads(K("BNTrainingUpdateGrad", 32, {x1, x1, ch, ch}, {ch, ch})),
              p.Us(planes * (3 + 2 * 1) * p.H("simple")), 1e-9);
  // The same sums in a kernel without per-channel operands are not planes: no trees, elementwise
  // tiles of UB / (2 x 2 x 4 B), each instruction covering at most 255 repeats.
  const std::string nd = "ND:float32:32x512x7x7";
  const double cap = std::floor(p.ub / (2 * 2 * 4.0));
  const double tiles = std::ceil(32.0 * 512 * 49 / 32 / cap),
               splits = std::ceil(cap / (255 * p.repeat_bytes / 4));
  EXPECT_NEAR(p.Heads(K("BNTrainingUpdateGrad", 32, {nd, nd}, {"ND:float32:512"})),
              p.Us(tiles * splits * 5 * p.H("simple")), 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
