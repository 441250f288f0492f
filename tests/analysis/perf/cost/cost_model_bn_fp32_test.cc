// The batch-norm kernels compute in float32 whatever their feature maps are stored in: CANN's
// bn_training_update casts a float16 x up and y back (`is_cast`), bn_training_update_grad and
// bn_training_reduce_grad cast float16 grads and x up (impl/*.py). A float16 record then costs
// float32 vector work plus a cast per full-size operand; a float32 record is costed as before.
#include <gtest/gtest.h>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"

namespace npugap::analysis::perf {
namespace {

double VectorUs(const std::string& type, const std::string& map_dtype, int full_inputs) {
  const std::string x = "NC1HWC0:" + map_dtype + ":32x4x56x56x16", ch = "NC1HWC0:float32:1x4x1x1x16";
  std::vector<std::string> in(full_inputs, x), out;
  for (int i = 0; i < 4; ++i) in.push_back(ch);
  if (type == "BNTrainingUpdateGrad") {
    out = {ch, ch};
  } else if (type == "BNTrainingReduceGrad") {
    out = {x};
  } else {
    out = {x, ch, ch, ch, ch};
  }
  // 32 blocks: the busiest block is an even share of whole 32 B blocks in both element sizes.
  return PredictKernel(K(type, 32, in, out), Ascend910WithoutHeads()).vector_us;
}

TEST(PerfBnFp32, UpdateOfAFloat16MapCostsFloat32WorkAndTwoCasts) {
  // x and y are the full-size operands: (4 ops + 2 casts) at the float32 rate against 4 ops.
  EXPECT_NEAR(VectorUs("BNTrainingUpdate", "float16", 1) / VectorUs("BNTrainingUpdate", "float32", 1), 1.5,
              1e-9);
  EXPECT_NEAR(VectorUs("BNTrainingUpdateV2", "float16", 1) / VectorUs("BNTrainingUpdateV2", "float32", 1),
              1.5, 1e-9);
}

TEST(PerfBnFp32, UpdateGradOfFloat16MapsCostsFloat32WorkAndTwoCasts) {
  // grads and x: (5 ops + 2 casts) at the float32 rate against 5 ops.
  EXPECT_NEAR(VectorUs("BNTrainingUpdateGrad", "float16", 2) / VectorUs("BNTrainingUpdateGrad", "float32", 2),
              1.4, 1e-9);
}

TEST(PerfBnFp32, ReduceGradOfFloat16MapsCostsFloat32WorkAndThreeCasts) {
  // grads, x and the output y: (4 ops + 3 casts) at the float32 rate against 4 ops (the DSL's
  // vmul, vadd, vadd, vmul on full-size tensors, bn_training_reduce_grad_compute).
  EXPECT_NEAR(VectorUs("BNTrainingReduceGrad", "float16", 2) / VectorUs("BNTrainingReduceGrad", "float32", 2),
              1.75, 1e-9);
  // FusedDbnDw's vector part is its own TIK kernel with its own rule (perfconvfw), not this one.
  const auto fused = internal::FindVectorRule("FusedDbnDwBnGrad");
  ASSERT_TRUE(fused.has_value());
  EXPECT_TRUE(fused->ops.fp32);
}

TEST(PerfBnFp32, AFusedUpdateTakesTheFlagToItsOtherParts) {
  // FusionOp_BNTrainingUpdate_ReLUV2: update (4) and ReLUV2 (2) in float32 with x and y cast.
  const std::string ch = "NC1HWC0:float32:1x4x1x1x16";
  const auto us = [&](const std::string& dt) {
    const std::string x = "NC1HWC0:" + dt + ":32x4x56x56x16";
    return PredictKernel(K("FusionOp_BNTrainingUpdate_ReLUV2", 32, {x, ch, ch, ch, ch, ch, ch},
                           {ch, ch, ch, ch, x, "ND:uint8:32x4x56x56x2"}),
                         Ascend910WithoutHeads())
        .vector_us;
  };
  EXPECT_NEAR(us("float16") / us("float32"), 8.0 / 6.0, 1e-9);
}

}  // namespace
}  // namespace npugap::analysis::perf
