// Row-wise kernels whose row does not fit in the UB (cost_model_row_passes.cc, docs/perf.md "Long
// rows"). The expected bytes and thresholds are worked out here from the profile's UB size and HBM
// bandwidth and from CANN's softmax-schedule rule: a tile holds UB / (live bytes per element + 4).
#include <gtest/gtest.h>

#include <algorithm>

#include "ascend910_profile.h"
#include "npugap/analysis/perf/kernel.h"

namespace npugap::analysis::perf {
namespace {

double Overlapped(const KernelCost& c) {
  return c.overhead_us + std::max({c.cube_us, c.vector_us, c.memory_us});
}
double Serial(const KernelCost& c) { return c.overhead_us + c.memory_us + c.vector_us; }
// Double-buffered: the pipes overlap but for the fill and drain of one tile (PipelineFillTime),
// a small part of a kernel of many tiles.
void ExpectOverlapped(const KernelCost& c) {
  EXPECT_GT(c.time_us, Overlapped(c));
  EXPECT_LT(c.time_us, Overlapped(c) + 0.02 * (Overlapped(c) - c.overhead_us));
}

TEST(PerfRowPasses, VocabularyRowsStreamOncePerReductionThroughAWorkspace) {
  const auto& t = Ascend910();
  // Log-softmax in float32 over rows of 21,128 float16: live bytes per element 2 x (2 + 4) + 4 = 16,
  // so the UB holds 16,384 elements, less than a row: the workspace form. The max pass reads x,
  // the sum pass reads x again and writes x - max (float16) to the workspace, the last pass reads
  // it back: 2 + 2 + 2 + 2 + 2 = 10 bytes per element instead of 4.
  const std::string x = "ND:float16:2560x21128";
  const KernelCost c = PredictKernel(K("LogSoftmax", 30, {x}, {x}), t);
  const double n = 2560.0 * 21128;
  ASSERT_LT(16384.0, 21128.0);
  EXPECT_NEAR(c.memory_us, 1e6 * 10 * n / t.memory.bandwidth.value, 1e-6 * c.memory_us);
  // The workspace form double-buffers each pass's UB pieces again (`_do_tiling_last_with_workspace`
  // sets `_is_double_buffer`): DMA and vector work overlap.
  ExpectOverlapped(c);
  EXPECT_LT(c.time_us, Serial(c) - 100);
}

TEST(PerfRowPasses, LogSoftmaxGradInFloat32OverVocabularyRowsOverlapsItsPasses) {
  const auto& t = Ascend910();
  // float32 dy, x and result (12 bytes) + 4 for the last-axis reduce: 16 bytes per element, the UB
  // holds 16,384 < 21,128: the workspace form (dy has two readers, the sum and the subtraction,
  // so the schedule takes it). One reduction: the sum pass reads dy once more, nothing is written
  // to the workspace: 4 + 4 + 4 + 4 = 16 bytes per element, double-buffered.
  const std::string x = "ND:float32:2560x21128";
  const KernelCost c = PredictKernel(K("LogSoftmaxGrad", 30, {x, x}, {x}), t);
  const double n = 2560.0 * 21128;
  // (plus the DMA heads of its tiles, under 1%)
  EXPECT_GE(c.memory_us, 1e6 * 16 * n / t.memory.bandwidth.value);
  EXPECT_LT(c.memory_us, 1.01e6 * 16 * n / t.memory.bandwidth.value);
  ExpectOverlapped(c);
}

TEST(PerfRowPasses, RowsThatFitOnlyTheWholeUbLoseDoubleBufferingButNotThePasses) {
  const auto& t = Ascend910();
  // 12,000 > 262,144 / 2 / 16 = 8,192 (half the UB) but <= 16,384 (the whole UB): serial, and the
  // kernel moves its own 4 bytes per element only.
  const std::string x = "ND:float16:2048x12000";
  const KernelCost c = PredictKernel(K("LogSoftmax", 32, {x}, {x}), t);
  EXPECT_NEAR(c.time_us, Serial(c), 1e-9);
  EXPECT_NEAR(c.memory_us, 1e6 * 4 * 2048.0 * 12000 / t.memory.bandwidth.value, 1e-6 * c.memory_us);
}

TEST(PerfRowPasses, RowsThatFitHalfTheUbAndPlainReductionsAreUnchanged) {
  const auto& t = Ascend910();
  // 768-wide rows fit half the UB: the pipes overlap as in every other kernel.
  const std::string rows = "ND:float16:16384x768";
  const KernelCost fits = PredictKernel(K("LogSoftmax", 32, {rows}, {rows}), t);
  ExpectOverlapped(fits);
  // A row sum broadcasts nothing back, so it streams however long its rows are.
  const std::string wide = "ND:float16:2560x21128";
  const KernelCost sum = PredictKernel(K("ReduceSum", 30, {wide}, {"ND:float16:2560x1"}), t);
  ExpectOverlapped(sum);
  // Read once: less than reading its 2-byte input twice would take at the HBM.
  EXPECT_LT(sum.memory_us, 1e6 * 2 * 2 * 2560.0 * 21128 / t.memory.bandwidth.value);
}

}  // namespace
}  // namespace npugap::analysis::perf
