// LayerNormXBackpropV2's per-row values (rstd from the variance, pd_var, pd_mean and their
// scalings) are one instruction each per UB tile, and a float16 kernel casts its variance, mean
// and gamma once per tile (cost_model_row_values.cc): their heads, not their elements.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

double HeadOf(const target::Target& t, const char* cls) {
  return t.kernel->vector_instruction_heads.at(cls).value;
}

TEST(PerfRowValues, LayerNormXBackpropRuleCountsItsPerRowInstructions) {
  const auto rule = internal::FindVectorRule("LayerNormXBackpropV2");
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->ops.per_row_simple, 10);
  EXPECT_EQ(rule->ops.per_row_transcendental, 2);
}

TEST(PerfRowValues, EachPerRowInstructionPaysOneHeadPerTile) {
  const target::Target& t = Ascend910();
  for (const std::string dt : {"float16", "float32"}) {
    const std::string x = "ND:" + dt + ":4096x768", r = "ND:" + dt + ":4096x1", g = "ND:" + dt + ":768";
    const Kernel k = K("LayerNormXBackpropV2", 32, {x, x, r, r, g}, {x, x});
    const Operand& big = k.inputs[0];
    internal::VectorOps ops = internal::FindVectorRule("LayerNormXBackpropV2")->ops;
    const double with = internal::VectorKernelTime(k, big, ops, dt, 32, t);
    ops.per_row_simple = ops.per_row_transcendental = 0;
    const double without = internal::VectorKernelTime(k, big, ops, dt, 32, t);
    // The tiles the float32 arithmetic streams (a float16 kernel computes in float32).
    const double tiles = internal::PlanTiles(k, big, ops, "float32", 32, t).tiles;
    ASSERT_GT(tiles, 1);
    // float16: the variance, the mean and gamma are cast to float32 once per tile as well.
    const double simple = 10 + (dt == "float16" ? 3 : 0);
    const double cycles = tiles * (simple * HeadOf(t, "simple") + 2 * HeadOf(t, "transcendental"));
    EXPECT_NEAR(with - without, cycles / t.compute.clock.value, 1e-12) << dt;
  }
}

}  // namespace
}  // namespace npugap::analysis::perf
