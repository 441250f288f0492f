// Row-wise kernels whose row does not fit in the Unified Buffer (docs/perf.md, "Long rows").
// CANN's softmax schedule (te_schedule/softmax_schedule.py, 2019 TBE) sizes its UB tile as
// UB / (live bytes per element + 4 for the float32 row reduce) and then picks one of three forms:
//   - half the UB holds a row: whole rows per tile, double-buffered (the model's usual tiles);
//   - only the whole UB holds a row: the same, without double buffering, so each tile's DMA and
//     its vector work follow one another instead of overlapping;
//   - not even that ("last_with_workspace"): the row is streamed through the UB once per row
//     reduction. The first reduction reads the kernel's input again; each further one reduces an
//     intermediate (its "spec node", the last multi-input op before it: x - max in softmax) that
//     is written to a GM workspace and read back in the next pass. Each pass cuts the row into
//     UB-sized pieces and is double-buffered again (`_do_tiling_last_with_workspace` sets
//     `_is_double_buffer`), so its DMA and vector work overlap: not serial.
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
RowPasses PlanRowPasses(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                        std::string_view dtype, const target::Target& target) {
  RowPasses plan;
  // Only a kernel that reduces along its rows and broadcasts the result back needs the whole row
  // before it can write anything; a plain reduction streams.
  if (!target.buffers.ub || ops.reduce <= 0 || ops.broadcast <= 0 || big.shape.empty()) return plan;
  const int64_t elements = Elements(big);
  if (elements == 0) return plan;
  const double row = RowLength(big);
  // Live bytes per element: each full-size operand as stored and, when the op computes in
  // float32, its float32 copy (the source's liveness walk over cast -> compute -> cast), plus the
  // 4 bytes the schedule adds for a last-axis reduce.
  const double stored = static_cast<double>(ItemSize(dtype));
  const double per_operand = stored + (ops.fp32 && stored < 4 ? 4.0 : 0.0);
  const double live = FullSizeOperands(kernel, elements) * per_operand + 4.0;
  const double ub = static_cast<double>(target.buffers.ub->value);
  if (row <= std::floor(ub / 2 / live)) return plan;
  if (row <= std::floor(ub / live)) {
    plan.serial = true;
    return plan;
  }
  const double n = static_cast<double>(elements) * stored;
  const double further = std::max(0.0, std::ceil(ops.reduce) - 1);
  plan.extra_in_bytes = n * (1 + further);
  plan.extra_out_bytes = n * further;
  return plan;
}

}  // namespace npugap::analysis::perf::internal
