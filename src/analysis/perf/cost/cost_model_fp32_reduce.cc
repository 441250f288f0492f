// A row kernel that sums in float32 but computes everything else in its stored 2-byte dtype.
// CANN's softmax_grad_ext DSL (impl/softmax_grad_ext.py, the 2019 te.lang.cce copy in
// jizhuoran/caffe-huawei-atlas-convertor and the later static and dynamic copies in
// dengguojie/vue-element-admin, all three alike) multiplies grad by x1 in float16, casts that
// product to float32 (`cast_to(mul_result, "float32")`), sums it along the softmax axis in float32,
// casts the per-row sum back to float16 and does the subtraction and both products in float16. So
// its one reduction costs a float16 -> float32 vconv of the full tile and a float32 reduce, and its
// other instructions the float16 rates.
#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

std::optional<Fp32ReduceSplit> SplitFp32Reduce(const VectorOps& ops, std::string_view dtype) {
  // Nothing to split when the whole op computes in float32 or the data is already 4 bytes wide.
  if (!ops.fp32_reduce || ops.fp32 || ops.reduce <= 0 || ItemSize(dtype) != 2) return std::nullopt;
  Fp32ReduceSplit split;
  split.stored = ops;
  split.stored.reduce = 0;
  split.stored.fp32_reduce = false;
  split.wide.reduce = ops.reduce;
  split.wide.simple = ops.reduce;  // one cast of the reduced operand per reduction
  return split;
}

}  // namespace npugap::analysis::perf::internal
