// The instructions a row kernel spends on its one-value-per-row tensors. CANN's
// layer_norm_x_backprop_v2 DSL (impl/layer_norm_x_backprop_v2.py, static, public copy in
// dengguojie/vue-element-admin; the NZ and ND computes alike) derives, from the [rows, 1] variance
// and the two row sums, rstd = exp(-0.5 ln(var + eps)) and rstd^3 (vadds, vlog, vmuls, vexp, two
// vmul), pd_var (vmul, vmuls), pd_mean (vmul, vmuls) and their 2 / m and 1 / m scalings (two
// vmuls), before broadcasting them over the row. The schedules compute every buffer at the UB
// tile loop (ReduceMultiSchedule's compute_at on the tile's outer axis), so each of these is one
// instruction per tile over the tile's rows, whatever their number: its head, not its elements.
// With has_improve_precision the DSL also casts the variance, the mean and gamma to float32,
// once per tile each.
#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

RowValueOps RowValueInstructions(const Kernel& kernel, const VectorOps& ops, bool cast_up, int64_t elements) {
  RowValueOps row{ops.per_row_simple, ops.per_row_transcendental};
  if (row.simple + row.transcendental <= 0 || !cast_up) return row;
  for (const Operand& in : kernel.inputs) {
    const int64_t n = Elements(in);
    if (n > 0 && n < elements && ItemSize(in.dtype) == 2) row.simple += 1;
  }
  return row;
}

}  // namespace npugap::analysis::perf::internal
