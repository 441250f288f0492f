// The dilation of a strided 1x1 backprop input, as TBE's kernel-size-1 schedule emits it
// (docs/fidelity.md, "Changes (session 16, bpi12)"). TBE 2020 DDK copy, jizhuoran/caffe-huawei-
// atlas-convertor @ff9768e, te/lang/cce/te_schedule/conv2d_backprop_input_opti_schedule.py:
//   - the dilated result `dilate_ub` is a select of C (at every stride-th row and column) or the
//     zero map; in a dx+vadd(+drelu) fusion the zero map's buffer is taken by the addend
//     (`filling_zero_ub.reused_by(add_input_ub)`, its `vector_dup` becomes a `phony_insn`), and
//     the add itself is folded into the dilation (`add_res_ub` emits `phony_insn` when dilated);
//   - without an addend the zero map is a `vector_dup` over the tile (one instruction per tile,
//     as the generic epilogue counts);
//   - `_dilate_schedule` splits dx's pixel axis into (rows of dy, stride_h) x (columns of dy,
//     stride_w), unrolls both stride loops, orders them outside the image and channel-block
//     loops, and emits the `vector_add` at dy's column axis: one instruction adds one dy row of
//     one channel block (W_dy x C0 elements) into the zero map or the addend, its blocks
//     stride_w apart. Conv2DTranspose (conv2d_transpose_d) runs the same compute and schedule.
// So the dilation runs as one instruction per dy row per dx channel block per image, each paying
// the vector head; the model's generic epilogue counts one instruction per UB tile instead. The
// unrolled iterations whose select is false leave the zero map / addend as it is and are taken
// to emit nothing (the condition is constant there once the stride loops are unrolled).
#include <cmath>
#include <string>
#include <string_view>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

double DilationHeadTime(const Kernel& kernel, std::string_view cube_op, double cores,
                        const target::Target& target) {
  if (cube_op != "Conv2DBackpropInput" && cube_op != "Conv2DTranspose") return 0;
  if (!target.kernel || target.kernel->vector_instruction_heads.empty() || cores <= 0) return 0;
  if (kernel.inputs.size() < 2 || kernel.outputs.empty()) return 0;
  const Operand& dy = kernel.inputs[0];
  const Operand& w = kernel.inputs[1];
  const Operand& dx = kernel.outputs[0];
  const auto map = [](const Operand& op) { return op.format == "NC1HWC0" && op.shape.size() == 5; };
  if (!map(dy) || !map(dx) || w.shape.empty() || (w.format != "FracZ" && w.format != "FRACTAL_Z")) return 0;
  const bool kernel_1x1 = w.shape[0] == dx.shape[1];  // FracZ rows: C1 of dx x kh x kw
  const bool strided = dy.shape[2] < dx.shape[2] || dy.shape[3] < dx.shape[3];
  if (!kernel_1x1 || !strided) return 0;
  // The busiest core's images: the cube splits a strided backprop input on the batch (CubeTime).
  const double images = std::ceil(static_cast<double>(dx.shape[0]) / cores);
  const double instructions = images * static_cast<double>(dx.shape[1] * dy.shape[2]);
  return instructions * InstructionHead(target.kernel->vector_instruction_heads, "simple") /
         target.compute.clock.value;
}

}  // namespace npugap::analysis::perf::internal
