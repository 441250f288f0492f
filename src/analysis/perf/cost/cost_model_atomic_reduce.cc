// The UB tile of SquareSumV1, as TBE's atomic reduce schedule sizes it. A float32 sum on the
// Ascend 910 (product 1.60) runs te_schedule/reduce_atomic_schedule.py (`_is_supported_atomic_add`;
// the records' `AtomicAddrClean` before each SquareSumV1 agrees). Its `_get_max_ub_count` (2019
// TBE, public copy jizhuoran/caffe-huawei-atlas-convertor) takes UB_SIZE / 2 in float16 units, halves
// it for the double buffer, and divides by the largest total width of the tensors live at once
// (`_get_total_width`, a liveness walk over the compute graph, float16 = 1, float32 = 2) times 128,
// rounded down to 128 elements. square_sum_v1's graph is x -> x * x (-> a cast to float32 for a
// float16 x) -> sum: walking it from the sum, two float32-wide tensors are live at once (the sum's
// operand and its producer's operand), a total width of 4, so the tile holds UB / 16 elements
// (16,384 on a 256 KiB UB), half of what one doubled float32 buffer would hold.
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

std::optional<double> AtomicReduceTileElements(const Kernel& kernel, const target::Target& target) {
  if (kernel.op_type != "SquareSumV1" || !target.buffers.ub) return std::nullopt;
  constexpr double kLiveWidth = 4;  // two float32 tensors in float16 units (above)
  const double half_words = target.buffers.ub->value / 2.0;
  return std::max(128.0, std::floor(half_words / 2.0 / (kLiveWidth * 128.0)) * 128.0);
}

}  // namespace npugap::analysis::perf::internal
