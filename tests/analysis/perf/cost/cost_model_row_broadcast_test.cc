// A per-row value broadcast back over its row (softmax's max and sum, layer norm's mean and rstd)
// is a full-shape `tbe.broadcast` node, which TBE's schedules emit as its own `vector_broadcast`
// instruction: one simple op per element (VectorTime), beside its per-row-slice head.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

using internal::VectorOps;
using internal::VectorTime;

TEST(PerfRowBroadcast, EachBroadcastCostsOneSimpleOpPerElement) {
  const target::Target& t = Ascend910();
  const int64_t n = 1 << 20;
  VectorOps row;  // softmax's counts: sub, exp, div, two row reductions, two broadcasts
  row.simple = 1, row.transcendental = 1, row.divide = 1, row.reduce = 2, row.broadcast = 2;
  VectorOps same_as_simple = row;
  same_as_simple.broadcast = 0;
  same_as_simple.simple = 3;
  VectorOps no_broadcast = row;
  no_broadcast.broadcast = 0;
  for (const char* dtype : {"float16", "float32"}) {
    EXPECT_DOUBLE_EQ(VectorTime(n, row, dtype, t), VectorTime(n, same_as_simple, dtype, t)) << dtype;
    EXPECT_GT(VectorTime(n, row, dtype, t), VectorTime(n, no_broadcast, dtype, t)) << dtype;
  }
}

TEST(PerfRowBroadcast, SoftmaxRuleCarriesItsTwoBroadcasts) {
  // The max and the sum come back over the row; layer norm's x-gradient spreads four values.
  ASSERT_TRUE(internal::FindVectorRule("Softmax").has_value());
  EXPECT_EQ(internal::FindVectorRule("Softmax")->ops.broadcast, 2);
  ASSERT_TRUE(internal::FindVectorRule("LayerNormXBackpropV2").has_value());
  EXPECT_EQ(internal::FindVectorRule("LayerNormXBackpropV2")->ops.broadcast, 4);
}

}  // namespace
}  // namespace npugap::analysis::perf
