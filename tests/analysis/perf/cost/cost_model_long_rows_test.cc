// A row-wise kernel whose row is longer than the UB tile cap (cost_model_long_rows.cc): the tile is
// a piece of the row (ND) or whole block columns of many rows (FRACTAL_NZ), so its reduce and
// broadcast instructions stay long instead of one per row slice.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

internal::TilePlan Plan(const Kernel& k, const std::string& op_type) {
  const internal::VectorOps ops = internal::FindVectorRule(op_type)->ops;
  return internal::PlanTiles(k, k.inputs[0], ops, "float32", 32, Ascend910());
}

TEST(PerfLongRows, NdRowLongerThanTheCapIsCutIntoPieces) {
  // Three full-size float32 operands (features, labels, backprop): cap floor(262,144 / (2 x 3 x 4))
  // = 10,922 elements; a 21,128 row is two pieces of 10,564, each one tile with one slice.
  const std::string x = "ND:float32:2560x21128";
  const auto plan = Plan(K("SoftmaxCrossEntropyWithLogits", 32, {x, x}, {"ND:float32:2560", x}),
                         "SoftmaxCrossEntropyWithLogits");
  EXPECT_NEAR(plan.tile, 21128.0 / 2, 1e-9);
  EXPECT_EQ(plan.slices, 1);
  EXPECT_EQ(plan.tiles, std::ceil(2560.0 * 21128 / 32 / (21128.0 / 2)));
}

TEST(PerfLongRows, NzRowLongerThanTheCapKeepsManyRowsPerBlockColumn) {
  // The same rows in FRACTAL_NZ (n1 = 1,321 blocks of 16, m1 = 160): 80 rows per core, so a tile
  // is 80 rows x 8 block columns (10,240 <= 10,922 elements) with 8 slices, not one row of 1,321.
  const std::string x = "FRACTAL_NZ:float32:1321x160x16x16";
  const auto plan = Plan(K("SoftmaxCrossEntropyWithLogits", 32, {x, x}, {"ND:float32:2560", x}),
                         "SoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(plan.tile, 80.0 * 8 * 16);
  EXPECT_EQ(plan.slices, 8);
  // Its vector time is of the order of the ND kernel's, not the 15 ms of per-block heads.
  const Kernel nz = K("SoftmaxCrossEntropyWithLogits", 32, {x, x}, {"ND:float32:2560", x});
  const std::string nd_x = "ND:float32:2560x21136";
  const Kernel nd = K("SoftmaxCrossEntropyWithLogits", 32, {nd_x, nd_x}, {"ND:float32:2560", nd_x});
  const internal::VectorOps ops = internal::FindVectorRule("SoftmaxCrossEntropyWithLogits")->ops;
  const double t_nz = internal::VectorKernelTime(nz, nz.inputs[0], ops, "float32", 32, Ascend910());
  const double t_nd = internal::VectorKernelTime(nd, nd.inputs[0], ops, "float32", 32, Ascend910());
  EXPECT_LT(t_nz, 1.2 * t_nd);
}

TEST(PerfLongRows, RowsThatFitKeepWholeRows) {
  const std::string x = "ND:float32:2560x768";
  const auto plan = Plan(K("SoftmaxCrossEntropyWithLogits", 32, {x, x}, {"ND:float32:2560", x}),
                         "SoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(plan.tile, 14 * 768.0);  // floor(10,922 / 768) whole rows
  EXPECT_EQ(plan.slices, 14);
}

}  // namespace
}  // namespace npugap::analysis::perf
