// Which vector kernels run with single-buffered output tiles, and what that costs.
//
// TBE's static elementwise schedules (te_schedule/elewise_schedule_new.py `ElewiseSchedule` and
// its multi-output subclass `ElewiseMultiSchedule`, 2019 TBE, public copy
// jizhuoran/caffe-huawei-atlas-convertor) mark as double buffers only the UB copies of the inputs:
// `_do_cache_read` appends each cache_read buffer to `_double_buffer_tensors`, and
// vector_schedule.py's `_do_double_buffer` calls `double_buffer()` on those (and, in the later
// static copy, on the result of a ternary instruction only). The cache_write buffers that hold the
// results in UB until MTE3 copies them out (every output of a multi-output kernel included: its
// outputs are UB tensors that a `dma_copy` stage writes to GM, `_mid_output_tensors_in_gm`) are
// single. So the vector work of tile i + 1, which writes those buffers, waits until MTE3 has read
// tile i out of them: per tile, vector work and store follow one another, and only the next
// tile's load overlaps them. (The later dynamic-shape schedules double-buffer the middle and
// output tensors as well; the records are taken to have run the static ones, assumed.)
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

bool RunsSingleBufferedOutputs(const Kernel& kernel, const VectorOps& ops, bool per_channel) {
  // Reductions and row broadcasts run the reduce / norm schedules, per-channel batch-norm kernels
  // their bn_* schedules (not read for this); the types below are not DSL elementwise kernels, so
  // the elementwise schedule does not run them: DropoutDoMask (IR-builder / TIK kernels,
  // drop_out_do_mask.py, cost_model_dropout.cc), OneHot (one_hot_d: a tvm.extern IR builder),
  // UnsortedSegmentSum (an OPAQUE kernel in MindSpore's op info), MaxPoolWithArgmax and its
  // gradient (TIK), MaxPool / AvgPool (te.lang.cce.pooling2d and the pooling schedule).
  if (ops.reduce > 0 || ops.broadcast > 0 || ops.tree_sums > 0 || per_channel) return false;
  for (std::string_view own : {"DropoutDoMask", "OneHot", "UnsortedSegmentSum", "MaxPoolWithArgmax",
                               "MaxPoolGradWithArgmax", "MaxPool", "AvgPool"})
    if (kernel.op_type == own) return false;
  return true;
}

double SingleBufferedOutputTime(double load, double vector, double store, double hbm, double tiles) {
  const double compute_and_store = vector + store;
  // The loop as two stages (the load, then vector work and store), with the fill of
  // PipelineFillTime: one tile's shorter stage is not hidden.
  return std::max({load, compute_and_store, hbm}) + PipelineFillTime(load, compute_and_store, 0, tiles);
}

}  // namespace npugap::analysis::perf::internal
