// The cube view of depthwise convolutions (MindSpore's DepthwiseConv2dNative and its gradients,
// and AvgPoolGrad, which CANN runs as a depthwise backprop-input with a kernel of ones): CANN's
// TBE depthwise_conv2d_compute (te_compute/depthwise_conv2d_compute.py) keeps each C0 group of 16
// channels apart and multiplies, per (image, C1 group), a 16-pixel fractal of the unfolded input
// (k = kh * kw * C0) by a 16 x 16 filter block of which only the diagonal is non-zero
// (filter C1HWNCoC0 [C1, kh, kw, N, Co = 16, C0 = 16]). The cube thus runs C0 = 16 times the
// useful multiply-adds: batch = C1 groups, m = pixels, k = kh * kw * 16, n = 16 (docs/perf.md,
// "Depthwise convolutions").
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

constexpr int64_t kC0 = 16;  // channels per C0 group (fp16), the fractal's n

constexpr std::array<std::string_view, 4> kDepthwiseOps = {
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
    "AvgPoolGrad"};

int64_t RoundUp16(int64_t v) { return (v + 15) / 16 * 16; }

// N images of H * W pixels, each image padded to whole 16-pixel fractals (howo_mad in the TBE
// compute); NC1HWC0 [N, C1, H, W, C0].
int64_t PaddedPixels(const Operand& op) { return op.shape[0] * RoundUp16(op.shape[2] * op.shape[3]); }

bool IsNc1hwc0(const Operand& op) { return op.format == "NC1HWC0" && op.shape.size() == 5; }

// The filter: C1HWNCoC0 (6-D as MindSpore registers it, 5-D [C1, H, W, Co, C0] in the compute).
const Operand* FindFilter(const std::vector<Operand>& ops) {
  for (const Operand& op : ops) {
    if (op.format == "C1HWNCoC0" && op.shape.size() >= 5) return &op;
  }
  return nullptr;
}

// The n-th NC1HWC0 operand of `ops` (0-based), or nullptr.
const Operand* FeatureMap(const std::vector<Operand>& ops, int nth) {
  for (const Operand& op : ops) {
    if (IsNc1hwc0(op) && nth-- == 0) return &op;
  }
  return nullptr;
}

double Expand(double matrix_elements, const Operand& source) {
  const double n = static_cast<double>(Elements(source));
  return n > 0 ? std::max(1.0, matrix_elements / n) : 1.0;
}

Status Bad(std::string_view op, std::string_view what) {
  return Status::InvalidArgument(fmt::format("{} needs {}", op, what));
}

}  // namespace

bool IsDepthwiseCubeOp(std::string_view op_type) {
  return std::find(kDepthwiseOps.begin(), kDepthwiseOps.end(), op_type) != kDepthwiseOps.end();
}

bool HasCubeOperands(std::string_view op, const Kernel& k) {
  if (!IsDepthwiseCubeOp(op)) return true;
  return FindFilter(op == "DepthwiseConv2dNativeBackpropFilter" ? k.outputs : k.inputs) != nullptr;
}

Expected<CubeShape> DepthwiseShape(std::string_view op, const Kernel& k) {
  const bool filter_grad = op == "DepthwiseConv2dNativeBackpropFilter";
  const Operand* w = FindFilter(filter_grad ? k.outputs : k.inputs);
  if (!w) return Bad(op, filter_grad ? "a C1HWNCoC0 filter-gradient output" : "a C1HWNCoC0 filter input");
  const int64_t taps = w->shape[1] * w->shape[2];  // kh * kw
  CubeShape s;
  if (filter_grad) {
    // dW per C1 group: (16 output channels x pixels of dy) . (pixels x kh kw 16): the TBE
    // _backprop_filter_matmul, k summed over the images and dy's padded pixels.
    const Operand* x = FeatureMap(k.inputs, 0);
    const Operand* dy = FeatureMap(k.inputs, 1);
    if (!x || !dy) return Bad(op, "NC1HWC0 inputs x and dy");
    s.batch = dy->shape[1];
    s.m = kC0;
    s.k = PaddedPixels(*dy);
    s.n = taps * kC0;
    s.a_expand = Expand(static_cast<double>(s.batch * s.m * s.k), *dy);
    s.b_expand = Expand(static_cast<double>(s.batch * s.k * s.n), *x);  // x unfolded on chip
    return s;
  }
  // Forward: y from x; backprop input and AvgPoolGrad: dx from dy, dilated and unfolded on chip,
  // over dx's pixels (the weight [C1, kh kw, 1, C0, C0] of depthwise_conv2d_backprop_input_d).
  const Operand* in = FeatureMap(k.inputs, 0);
  const Operand* out = FeatureMap(k.outputs, 0);
  if (!in || !out) return Bad(op, "an NC1HWC0 input and output");
  s.batch = out->shape[1];
  s.m = PaddedPixels(*out);
  s.k = taps * kC0;
  s.n = kC0;
  s.a_expand = Expand(static_cast<double>(s.batch * s.m * s.k), *in);
  return s;
}

}  // namespace npugap::analysis::perf::internal
