// SquareSumV1's UB tile as the atomic reduce schedule sizes it (cost_model_atomic_reduce.cc).
// Expected values are worked out from the source's arithmetic and the profile.
#include <gtest/gtest.h>

#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfAtomicReduce, SquareSumV1TileHoldsTwoFloat32Tensors) {
  const target::Target& t = Ascend910();
  const std::string x = "ND:float32:768x768";
  const Kernel square_sum = K("SquareSumV1", 31, {x}, {"ND:float32:1x1"});
  // 256 KiB of UB: 131,072 float16 units, halved for the double buffer, over a live width of 4
  // (two float32 tensors) x 128, times 128.
  ASSERT_EQ(internal::AtomicReduceTileElements(square_sum, t).value_or(0), 16384.0);
  EXPECT_FALSE(
      internal::AtomicReduceTileElements(K("ReduceSum", 31, {x}, {"ND:float32:1x1"}), t).has_value());
  // 768 x 768 over 31 blocks: 19,027 elements a core, two tiles (one doubled float32 buffer of
  // 32,768 would hold them in one).
  const internal::TilePlan plan =
      internal::PlanTiles(square_sum, square_sum.inputs[0], {1, 0, 0, 1, 0, true}, "float32", 31, t);
  EXPECT_EQ(plan.tiles, 2.0);
}

}  // namespace
}  // namespace npugap::analysis::perf
