// TBE's gelu casts a float16 x to float32 where vexp has float32 (the 910) and computes in float32
// (high_precision, its default): a float16 record costs the float32 arithmetic plus a cast per
// full-size operand, so more than the same record stored in float32, not half of it.
#include <gtest/gtest.h>

#include "../../../src/analysis/perf/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

double GeluVectorUs(const std::string& dtype) {
  const std::string x = "ND:" + dtype + ":4096x3072";
  return PredictKernel(K("GeLU", 32, {x}, {x}), Ascend910WithoutHeads()).vector_us;
}

TEST(PerfGeluFp32, AFloat16GeluComputesInFloat32WithTwoCasts) {
  const auto rule = internal::FindVectorRule("GeLU");
  ASSERT_TRUE(rule.has_value());
  EXPECT_TRUE(rule->ops.fp32);
  EXPECT_GT(GeluVectorUs("float16"), GeluVectorUs("float32"));
}

}  // namespace
}  // namespace npugap::analysis::perf
