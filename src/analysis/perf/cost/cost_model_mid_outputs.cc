// Outputs that a kernel's own later stages read back from GM.
//
// CANN's square_sum_v2 (impl/square_sum_v2.py, public copy jizhuoran/caffe-huawei-atlas-convertor)
// returns [sum, square] with sum = reduce_sum(square): `square` is an output that the reduction
// also reads (a "mid output"). A float32 sum on the 910 (product 1.60) takes TBE's atomic reduce
// schedule (te_schedule/reduce_atomic_schedule.py, `_is_supported_atomic_add`; the records'
// block_dim 31 and the AtomicAddrClean before each record agree). That schedule's
// `_calculate_cache_read` gives each mid output a cache_read for its readers, so the square is
// written to GM and read back into UB for the sum: one more full-size input, with its own UB
// buffer and DMA per tile. (The elementwise multi-output schedule does not do this: it copies its
// mid outputs out of UB, ElewiseMultiSchedule `_mid_output_tensors_in_gm`.)
#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

std::optional<Kernel> WithMidOutputReadBack(const Kernel& kernel) {
  if (kernel.op_type != "SquareSumV2" || kernel.inputs.empty()) return std::nullopt;
  const int64_t elements = Elements(kernel.inputs[0]);
  for (const Operand& out : kernel.outputs) {
    if (Elements(out) != elements || elements <= 1) continue;
    Kernel k = kernel;
    k.inputs.push_back(out);
    return k;
  }
  return std::nullopt;
}

}  // namespace npugap::analysis::perf::internal
