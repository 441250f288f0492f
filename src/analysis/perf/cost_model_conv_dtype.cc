// Which cube kernels write their output in fp16 whatever the graph labels it. TBE's operator
// information for the Ascend 910 (op_impl/built-in/ai_core/tbe/config/ascend910/
// aic-ascend910-ops-info.json, as shipped in an Ascend 910 OPP package; a copy is in
// gekowa/ascend-opp) lists for Conv2DBackpropInputD filter and out_backprop "float16,int8" and y
// "float16,int32", for the dynamic Conv2DBackpropInput float16 only, and the same for
// Conv2DTransposeD: the backprop-input convolution has no float32 output on this chip. TBE's two
// dx computes say so too: DeConvPattern.generate_c and DeConvKernelSize1Pattern.generate_c cast
// the fp32 L0C sums to float16 in UB (unless the inputs are int8), by the L0C -> UB copy itself.
// The vector parts fused after it (ReluGradV2, AddN) take its output's type, and AddN's inputs
// share one type, so an NC1HWC0 map of such a kernel is 2 bytes per element however it is
// labelled. Conv2D (dynamicFormat, types chosen by op_select_format) and Conv2DBackpropFilterD
// (y float32) are not in this rule.
#include <string_view>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

bool CubeWritesFp16Only(std::string_view cube_op) {
  return cube_op == "Conv2DBackpropInput" || cube_op == "Conv2DTranspose";
}

}  // namespace npugap::analysis::perf::internal
