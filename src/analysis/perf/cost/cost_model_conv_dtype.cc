// The dtypes a 910 convolution kernel moves, from the operator registrations its kernels have:
// a label the kernel cannot take is not what it moves. Applied to every record of a convolution
// type (docs/fidelity.md, "Changes (session 14, convtrue)"); under the calibration files' true
// dtypes (`--dtype-labels typeid-shifted`) it changes no label, so the model reads them directly.
//   - The cube's operands are float16 in a float graph: MindSpore's TBE registrations
//     (ops/_op_impl/tbe/) list Conv2D x / filter F16 (the other dtype_format is int8),
//     Conv2DBackpropInput out_backprop F16_5HD, filter F16_FracZ, Conv2DBackpropFilter
//     out_backprop, x F16_5HD; TBE's Ascend 910 op info (aic-ascend910-ops-info.json, an OPP copy
//     in gekowa/ascend-opp) the same for Conv2DBackpropInputD and Conv2DTransposeD.
//   - A convolution writes its feature map in float16: Conv2D y F16 (int32 for int8 inputs),
//     Conv2DBackpropInput y F16_5HD, Conv2DTransposeD y "float16,int32"; TBE's dx computes cast
//     the fp32 L0C sums to float16 in the L0C -> UB copy (DeConvPattern.generate_c,
//     DeConvKernelSize1Pattern.generate_c). A vector part fused after it takes that type, and
//     AddN's inputs share one type, so the fused addend is float16 too.
//   - A weight gradient is written in float32, the cube's fp32 sums: Conv2DBackpropFilter y
//     F32_FracZ (its only dtype_format).
//   - BNTrainingReduce's sums are float32 whatever x is (bn_training_reduce.py: x F16_5HD or
//     F32_5HD, sum and square_sum F32_5HD in both).
// Non-float labels (int8 operands, the uint8 ReLU mask) are left as recorded, as are formats and
// shapes. These are the registrations of a cube that takes fp16 / int8 only (the 910, the 310P):
// on a target whose cube takes fp32 / hf32 / tf32 (the 910B's convolutions have float32 kernels)
// the labels stand.
#include <algorithm>
#include <optional>
#include <string_view>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

bool IsFloat(std::string_view dtype) { return dtype == "float16" || dtype == "float32" || dtype == "float"; }

bool IsWeight(const Operand& op) { return op.format == "FracZ" || op.format == "FRACTAL_Z"; }

}  // namespace

bool IsConvolutionOp(std::string_view p) {
  return p == "Conv2D" || p == "Conv2DBackpropInput" || p == "Conv2DTranspose" || p == "Conv2DBackpropFilter";
}

std::optional<Kernel> WithConvolutionDtypes(const Kernel& kernel, const target::Target& target) {
  const auto& cube = target.compute.cube;
  if (cube.count("fp32") || cube.count("hf32") || cube.count("tf32")) return std::nullopt;
  const auto parts = KernelParts(kernel.op_type);
  const auto conv = std::find_if(parts.begin(), parts.end(), IsConvolutionOp);
  if (conv == parts.end()) return std::nullopt;
  const bool weight_gradient = *conv == "Conv2DBackpropFilter";
  const bool bn_sums = std::find(parts.begin(), parts.end(), "BNTrainingReduce") != parts.end();
  Kernel k = kernel;
  for (Operand& op : k.inputs) {
    if (IsFloat(op.dtype) && (IsFeatureMap(op) || IsWeight(op))) op.dtype = "float16";
  }
  for (Operand& op : k.outputs) {
    if (!IsFloat(op.dtype)) continue;
    if (weight_gradient && IsWeight(op)) op.dtype = "float32";
    if (!weight_gradient && IsFeatureMap(op)) op.dtype = "float16";
    if (bn_sums && IsChannelTensor(op)) op.dtype = "float32";
  }
  return k;
}

}  // namespace npugap::analysis::perf::internal
