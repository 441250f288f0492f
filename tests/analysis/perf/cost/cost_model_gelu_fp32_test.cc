// TBE's gelu casts a float16 x to float32 where vexp has float32 (the 910) and computes in float32
// (high_precision, its default): a float16 record costs the float32 arithmetic plus a cast per
// full-size operand, so more than the same record stored in float32, not half of it.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
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

// TBE's gelu_grad (ops/built-in/tbe/impl/gelu_grad.py) casts dy, x and y to float32 under the
// same check: 26 simple instructions, one vexp and one vdiv in float32, plus four casts.
double GeluGradVectorUs(const std::string& dtype) {
  const std::string x = "ND:" + dtype + ":4096x3072";
  return PredictKernel(K("GeLUGrad", 32, {x, x, x}, {x}), Ascend910WithoutHeads()).vector_us;
}

TEST(PerfGeluFp32, AFloat16GeluGradComputesInFloat32WithFourCasts) {
  const auto rule = internal::FindVectorRule("GeLUGrad");
  ASSERT_TRUE(rule.has_value());
  EXPECT_TRUE(rule->ops.fp32);
  EXPECT_DOUBLE_EQ(rule->ops.simple, 26);
  EXPECT_GT(GeluGradVectorUs("float16"), GeluGradVectorUs("float32"));
}

}  // namespace
}  // namespace npugap::analysis::perf
