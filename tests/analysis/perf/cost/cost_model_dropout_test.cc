// DropoutDoMask's instruction count by the dtype of its data (cost_model_dropout.cc). Expected
// values are worked out from the source's arithmetic and the profile.
#include <gtest/gtest.h>

#include <string>

#include "../../../../src/analysis/perf/cost/cost_model_internal.h"
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

TEST(PerfDropout, TileIsTheStaticKernelsUbMaxElements) {
  const Kernel k = K("DropoutDoMask", 30, {"ND:float16:128x128x768", "ND:uint8:1572864", "ND:float16:1"},
                     {"ND:float16:128x128x768"});
  const target::Target& t = Ascend910();
  // `_get_ub_max_elements`: (262144 / 2 - 128) // 2.125 = 61620, down to 128: 61568, to 256: 61440;
  // float32: (65536 - 128) // 2.125 = 30780 -> 30720.
  EXPECT_DOUBLE_EQ(*internal::DropoutDoMaskTileElements(k, "float16", t), 61440.0);
  EXPECT_DOUBLE_EQ(*internal::DropoutDoMaskTileElements(k, "float32", t), 30720.0);
  EXPECT_FALSE(internal::DropoutDoMaskTileElements(K("Mul", 30, {"ND:float16:1024"}, {"ND:float16:1024"}),
                                                   "float16", t)
                   .has_value());
  // 12,582,912 elements over 30 cores: 419,431 a core, 7 tiles of 61,440 (13 of the 32,768 that
  // two double-buffered full-size operands would leave).
  const Operand& x = k.inputs[0];
  EXPECT_DOUBLE_EQ(
      internal::PlanTiles(k, x, *internal::DropoutDoMaskOps("DropoutDoMask", k), "float16", 30, t).tiles,
      7.0);
}

TEST(PerfDropout, OneBufferInPlaceRunsLoadVectorAndStoreInSeries) {
  // The NZ 48 x 1024 x 16 x 16 float16 records of BERT: 25.2 MB in, its 1.6 MB bit mask, 25.2 MB
  // out. Over HBM alone this is 42.7 us; each core's load, vector work and store in series are more.
  const std::string x = "FRACTAL_NZ:float16:48x1024x16x16";
  const Kernel k = K("DropoutDoMask", 30, {x, "ND:uint8:1572864", "ND:float16:1"}, {x});
  const target::Target& t = Ascend910();
  EXPECT_TRUE(internal::RunsTilesInPlace(k));
  EXPECT_FALSE(internal::RunsTilesInPlace(K("Mul", 30, {x, x}, {x})));
  const KernelCost c = PredictKernel(k, t);
  const int64_t in = 2 * 12582912 + 1572864 + 2, out = 2 * 12582912;
  const internal::MoveTimes m = internal::MoveTime(in, out, 30, t);
  // At least the per-core load and store (without their instruction heads) plus the vector work;
  // the overlapped pipeline the other vector kernels run would stay near the HBM bound.
  EXPECT_GE(c.time_us - c.overhead_us, 1e6 * (m.load + m.store) + c.vector_us);
  EXPECT_GT(c.time_us - c.overhead_us, 1.2 * 1e6 * m.hbm);
}

}  // namespace
}  // namespace npugap::analysis::perf
