// DropoutDoMask's instruction count by the dtype of its data (cost_model_dropout.cc). Expected
// values are worked out from the source's arithmetic and the profile.
#include <gtest/gtest.h>

#include <string>

#include "../../../src/analysis/perf/cost_model_internal.h"
#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

TEST(PerfDropout, Float32PathAddsAConvAndAMulToTheSelect) {
  const std::string mask = "ND:uint8:1572864", x16 = "ND:float16:128x128x768", x32 = "ND:float32:128x128x768";
  const Kernel half = K("DropoutDoMask", 30, {x16, mask, "ND:float16:1"}, {x16});
  const Kernel single = K("DropoutDoMask", 30, {x32, mask, "ND:float32:1"}, {x32});
  // float16: vmuls, vsel; float32: vmuls, vconv, vmul at the float32 rate and the float16 vsel.
  EXPECT_DOUBLE_EQ(internal::DropoutDoMaskOps("DropoutDoMask", half)->simple, 2.0);
  EXPECT_DOUBLE_EQ(internal::DropoutDoMaskOps("DropoutDoMask", single)->simple, 3.5);
  EXPECT_FALSE(internal::DropoutDoMaskOps("Mul", single).has_value());
  // The float32 kernel's vector work is 1.75x the instructions at about half the lanes: over 3x
  // the float16 one (E(2) in both would give about 2x).
  const target::Target& t = Ascend910();
  EXPECT_GT(PredictKernel(single, t).vector_us, 3.0 * PredictKernel(half, t).vector_us);
}

}  // namespace
}  // namespace npugap::analysis::perf
