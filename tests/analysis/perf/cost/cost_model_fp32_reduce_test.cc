// SoftmaxGradExt sums in float32 and computes the rest in float16 (softmax_grad_ext DSL): its
// row sum costs a float16 -> float32 cast and a float32 reduce per element, its other
// instructions the float16 rates (cost_model_fp32_reduce.cc).
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

using internal::VectorOps;

double Rate(const target::Target& t, const char* cls, const char* dtype) {
  return t.kernel->vector_instructions.at(cls).at(dtype).value;
}

TEST(PerfFp32Reduce, SoftmaxGradExtSumsInFloat32) {
  const auto rule = internal::FindVectorRule("SoftmaxGradExt");
  ASSERT_TRUE(rule.has_value());
  EXPECT_TRUE(rule->ops.fp32_reduce);
  EXPECT_FALSE(rule->ops.fp32);  // the products and the subtraction stay in float16
  EXPECT_EQ(rule->ops.reduce, 1);
}

TEST(PerfFp32Reduce, TheReduceAndItsCastArePricedAtFloat32Rates) {
  const target::Target& t = Ascend910WithoutHeads();
  // The NZ attention-probability gradient of a BERT layer, float16 in truth.
  const Kernel k =
      K("SoftmaxGradExt", 30,
        {"FRACTAL_NZ:float16:128x12x8x8x16x16", "FRACTAL_NZ:float16:128x12x8x8x16x16", "ND:float16:"},
        {"FRACTAL_NZ:float16:128x12x8x8x16x16"});
  const Operand& big = k.inputs[0];
  const double n = static_cast<double>(internal::Elements(big)), cores = 30, clock = t.compute.clock.value;
  VectorOps ops = internal::FindVectorRule("SoftmaxGradExt")->ops;
  const double with = internal::VectorKernelTime(k, big, ops, "float16", cores, t);
  ops.fp32_reduce = false;
  const double without = internal::VectorKernelTime(k, big, ops, "float16", cores, t);
  const double expected =
      n / cores *
      (Rate(t, "reduce", "float32") - Rate(t, "reduce", "float16") + Rate(t, "simple", "float32")) / clock;
  EXPECT_NEAR(with - without, expected, 1e-9 * with);
  // Data already 4 bytes wide needs no cast and keeps its rates.
  VectorOps wide = internal::FindVectorRule("SoftmaxGradExt")->ops;
  EXPECT_FALSE(internal::SplitFp32Reduce(wide, "float32").has_value());
  EXPECT_TRUE(internal::SplitFp32Reduce(wide, "float16").has_value());
}

}  // namespace
}  // namespace npugap::analysis::perf
