// The shape an axis reduction (ReduceMean / ReduceMax and their D forms) is built on. TBE's
// reduce_mean_d and reduce_max_d, outside the 5HD reduce, refine the shape and merge each run of
// adjacent reduced axes and each run of adjacent kept axes before building the kernel
// (`shape_refine` then `simplify_axis_shape`: [2, 3, 4, 5, 6] over axes [0, 1, 4] becomes
// [6, 20, 6] over axes [0, 2]). So NCHW's mean over H and W is one 49-element row per channel,
// not seven 7-element rows, and the model's rows, tiles and heads must see the merged shape.
// The 2020 DDK's reduce_sum_d builds its placeholder on the shape as given: ReduceSum is left so.
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

// Which of the input's axes are reduced, read from the output: its dims other than 1, in order,
// are the kept axes, matched left to right among the input's dims other than 1 (an output that
// keeps its reduced axes as 1s reads the same as one that drops them). nullopt when they do not
// match.
std::optional<std::vector<bool>> ReducedAxes(const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& out) {
  std::vector<int64_t> kept;
  for (int64_t d : out)
    if (d != 1) kept.push_back(d);
  std::vector<bool> reduced(in.size(), false);
  size_t next = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1) continue;  // shape_refine drops it
    if (next < kept.size() && in[i] == kept[next]) {
      ++next;
    } else {
      reduced[i] = true;
    }
  }
  if (next != kept.size()) return std::nullopt;
  return reduced;
}

}  // namespace

std::optional<Kernel> WithMergedReduceAxes(const Kernel& kernel) {
  if (!IsAxisReduction(kernel.op_type) || kernel.op_type.rfind("ReduceSum", 0) == 0 ||
      kernel.inputs.empty() || kernel.outputs.empty())
    return std::nullopt;
  const Operand& x = kernel.inputs[0];
  const Operand& y = kernel.outputs[0];
  // The 5HD reduce (check_and_init_5hdc_reduce_support) keeps its own shape; a FRACTAL_NZ tensor's
  // axes are not the logical ones.
  if (x.format != "ND" && x.format != "NCHW" && x.format != "NHWC") return std::nullopt;
  if (y.shape.empty() || Elements(y) >= Elements(x)) return std::nullopt;
  const auto reduced = ReducedAxes(x.shape, y.shape);
  if (!reduced) return std::nullopt;
  std::vector<int64_t> merged_in, merged_out;
  int last = -1;  // 0 kept, 1 reduced: the kind of the run merged_in ends with
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (x.shape[i] == 1) continue;
    const int kind = (*reduced)[i] ? 1 : 0;
    if (kind == last) {
      merged_in.back() *= x.shape[i];
      if (kind == 0) merged_out.back() *= x.shape[i];
    } else {
      merged_in.push_back(x.shape[i]);
      if (kind == 0) merged_out.push_back(x.shape[i]);
      last = kind;
    }
  }
  if (merged_in == x.shape && merged_out == y.shape) return std::nullopt;
  if (merged_out.empty()) return std::nullopt;  // a reduction to one element: ReducesToScalar's tiles
  Kernel merged = kernel;
  merged.inputs[0].shape = merged_in;
  merged.outputs[0].shape = merged_out;
  return merged;
}

}  // namespace npugap::analysis::perf::internal
