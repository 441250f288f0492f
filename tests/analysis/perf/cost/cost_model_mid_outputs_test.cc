// SquareSumV2's reduction reads its square back from GM (cost_model_mid_outputs.cc): TBE's atomic
// reduce schedule gives the mid output a cache_read, so the kernel reads two full-size tensors.
#include <gtest/gtest.h>

#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfMidOutputs, SquareSumV2ReadsItsSquareBack) {
  const std::string x = "ND:float32:3072x768", sum = "ND:float32:1x1";
  const auto reread = internal::WithMidOutputReadBack(K("SquareSumV2", 31, {x}, {sum, x}));
  ASSERT_TRUE(reread.has_value());
  ASSERT_EQ(reread->inputs.size(), 2u);
  EXPECT_EQ(reread->inputs[1].shape, reread->inputs[0].shape);
  // SquareSumV1 has no mid output; a SquareSumV2 record without the full-size output neither.
  EXPECT_FALSE(internal::WithMidOutputReadBack(K("SquareSumV1", 31, {x}, {sum})).has_value());
  EXPECT_FALSE(internal::WithMidOutputReadBack(K("SquareSumV2", 31, {x}, {sum})).has_value());
}

TEST(PerfMidOutputs, SquareSumV2LoadsTwiceWhatSquareSumV1Loads) {
  const target::Target& t = Ascend910();
  const std::string x = "ND:float32:3072x768", sum = "ND:float32:1x1";
  // The same sum of the same tensor on 31 blocks: V1 reads x; V2 reads x and x^2 and writes x^2,
  // three full-size float32 tensors through the shared HBM (12 B per element, not 8).
  const KernelCost v1 = PredictKernel(K("SquareSumV1", 31, {x}, {sum}), t);
  const KernelCost v2 = PredictKernel(K("SquareSumV2", 31, {x}, {sum, x}), t);
  const double hbm_us = 1e6 * 3 * 3072.0 * 768 * 4 / t.memory.bandwidth.value;
  EXPECT_GE(v2.memory_us, hbm_us - 1e-9);
  EXPECT_GT(v2.memory_us, 1.8 * v1.memory_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
