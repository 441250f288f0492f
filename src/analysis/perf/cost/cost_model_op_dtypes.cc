// The dtypes a kernel is registered with, for a kernel whose op info lists a single dtype_format:
// a record's label the kernel cannot take is then not what it moves (docs/fidelity.md, "Changes
// (session 14, perfconvfw)"). A rule of the kernel, applied to every record of its type. One so far:
//   FusedDbnDw: MindSpore's op info (ops/_op_impl/tbe/fused_dbn_dw.py) has one dtype_format: x,
//   grads, x_norm F16_5HD; diff_scale, diff_offset, scale, batch_mean, batch_variance F32_5HD;
//   dbn_y F16_5HD; dw_y F32_FracZ. Its TIK kernel (impl/fused_dbn_dw.py) checks x, grads and dbn_x
//   against float16 alone and gives dbn_y the dtype of grads. The ResNet-50 records label the
//   maps float32 and the per-channel tensors float16, the other way round.
// Only the dtypes change; formats and shapes stay as recorded.
#include <string_view>
#include <vector>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

struct Registered {
  std::string_view op_type;
  std::vector<std::string_view> inputs, outputs;
};

const std::vector<Registered>& Table() {
  static const std::vector<Registered> table = {
      {"FusedDbnDw",
       {"float16", "float16", "float16", "float32", "float32", "float32", "float32", "float32"},
       {"float16", "float32"}},
  };
  return table;
}

}  // namespace

std::optional<Kernel> WithRegisteredDtypes(const Kernel& kernel) {
  for (const Registered& r : Table()) {
    // Another operand list is not the registered kernel's: left as recorded.
    if (r.op_type != kernel.op_type || kernel.inputs.size() != r.inputs.size() ||
        kernel.outputs.size() != r.outputs.size())
      continue;
    Kernel k = kernel;
    for (size_t i = 0; i < r.inputs.size(); ++i) k.inputs[i].dtype = r.inputs[i];
    for (size_t i = 0; i < r.outputs.size(); ++i) k.outputs[i].dtype = r.outputs[i];
    return k;
  }
  return std::nullopt;
}

}  // namespace npugap::analysis::perf::internal
