// Nn op family: the op table, plus the window geometry and helpers shared by nn_conv.cc,
// nn_pool.cc, nn_matmul.cc and quant.cc.
#include <algorithm>
#include <string>

#include "nn_internal.h"
#include "npugap/exec/op_table.h"
#include "npugap/numerics/half.h"

namespace npugap::exec {
namespace nn {

bool Window::has_padding() const {
  for (int a = 0; a < kMaxSpatial; ++a) {
    if (pad_begin[a] != 0 || pad_end[a] != 0) return true;
  }
  return false;
}

Expected<Window> ResolveWindow(const KernelContext& ctx, const Shape& x, const std::vector<int64_t>& kernel,
                               bool use_dilations, Rounding rounding) {
  const ir::Node& node = ctx.node;
  if (x.size() < 3)
    return ctx.Error("input must have rank >= 3 (N x C x spatial), got " + ir::ShapeToString(x));
  const int n = static_cast<int>(x.size()) - 2;
  if (n > kMaxSpatial) return Status::Unsupported(ctx.Error("more than 3 spatial axes").message());
  if (kernel.size() != size_t(n)) {
    return ctx.Error("kernel has " + std::to_string(kernel.size()) + " axes, input has " + std::to_string(n) +
                     " spatial axes");
  }
  const auto strides = node.GetInts("strides", std::vector<int64_t>(n, 1));
  const auto dilations =
      use_dilations ? node.GetInts("dilations", std::vector<int64_t>(n, 1)) : std::vector<int64_t>(n, 1);
  const auto pads = node.GetInts("pads", std::vector<int64_t>(2 * n, 0));
  std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (strides.size() != size_t(n)) return ctx.Error("strides must have one entry per spatial axis");
  if (dilations.size() != size_t(n)) return ctx.Error("dilations must have one entry per spatial axis");
  if (pads.size() != size_t(2 * n)) return ctx.Error("pads must have two entries per spatial axis");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return ctx.Error("unknown auto_pad '" + auto_pad + "'");
  }
  Window w;
  w.rank = n;
  for (int i = 0; i < n; ++i) {
    const int a = kMaxSpatial - n + i;
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1) {
      return ctx.Error("kernel sizes, strides and dilations must be positive");
    }
    const int64_t in = x[2 + i], s = strides[i];
    const int64_t k_eff = (kernel[i] - 1) * dilations[i] + 1;
    w.in[a] = in;
    w.kernel[a] = kernel[i];
    w.stride[a] = s;
    w.dilation[a] = dilations[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + k_eff - in);
      const int64_t small = total / 2;
      w.pad_begin[a] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pad_end[a] = total - w.pad_begin[a];
      w.out[a] = out;
      continue;
    }
    if (auto_pad == "NOTSET") {
      w.pad_begin[a] = pads[i];
      w.pad_end[a] = pads[n + i];
      if (pads[i] < 0 || pads[n + i] < 0) return ctx.Error("pads must be non-negative");
    }
    const int64_t span = in + w.pad_begin[a] + w.pad_end[a] - k_eff;
    if (span < 0) {
      return ctx.Error("kernel extent " + std::to_string(k_eff) + " is larger than the padded input " +
                       std::to_string(in + w.pad_begin[a] + w.pad_end[a]));
    }
    int64_t out = span / s + 1;
    if (rounding == Rounding::kCeil && auto_pad == "NOTSET") {
      out = (span + s - 1) / s + 1;
      if ((out - 1) * s >= in + w.pad_begin[a]) --out;  // the last window starts in the end padding
    }
    w.out[a] = out;
  }
  return w;
}

Expected<ConvGeometry> ResolveConv(const KernelContext& ctx, const Shape& x, const Shape& w) {
  if (x.size() < 3) return ctx.Error("X must have rank >= 3 (N x C x spatial), got " + ir::ShapeToString(x));
  if (w.size() != x.size()) {
    return ctx.Error("W " + ir::ShapeToString(w) + " must have the rank of X " + ir::ShapeToString(x));
  }
  ConvGeometry g;
  g.group = ctx.node.GetInt("group", 1);
  g.batch = x[0];
  g.in_channels = x[1];
  g.out_channels = w[0];
  if (g.group < 1) return ctx.Error("group must be positive");
  if (w[1] * g.group != g.in_channels || g.out_channels % g.group != 0) {
    return ctx.Error("W " + ir::ShapeToString(w) + " does not match X " + ir::ShapeToString(x) +
                     " with group " + std::to_string(g.group));
  }
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  const auto kernel_attr = ctx.node.GetInts("kernel_shape");
  if (!kernel_attr.empty() && kernel_attr != kernel) {
    return ctx.Error("kernel_shape attribute does not match W " + ir::ShapeToString(w));
  }
  NPUGAP_ASSIGN_OR_RETURN(g.window, ResolveWindow(ctx, x, kernel, /*use_dilations=*/true, Rounding::kFloor));
  return g;
}

Shape ConvOutputShape(const ConvGeometry& g) {
  Shape s{g.batch, g.out_channels};
  for (int64_t v : g.window.Real(g.window.out)) s.push_back(v);
  return s;
}

Expected<Activation> ParseActivation(const KernelContext& ctx) {
  Activation act;
  const std::string name = ctx.node.GetString("activation", "");
  const std::vector<float> params = ctx.node.GetFloats("activation_params");
  if (name.empty()) return act;
  if (name == "Relu") {
    act.kind = Activation::Kind::kRelu;
  } else if (name == "LeakyRelu") {
    act.kind = Activation::Kind::kLeakyRelu;
    act.alpha = params.empty() ? 0.01f : params[0];
  } else if (name == "Clip") {
    act.kind = Activation::Kind::kClip;
    if (params.size() != 2) return ctx.Error("Clip activation needs activation_params [min, max]");
    act.alpha = params[0];
    act.beta = params[1];
  } else if (name == "Sigmoid") {
    act.kind = Activation::Kind::kSigmoid;
  } else if (name == "Tanh") {
    act.kind = Activation::Kind::kTanh;
  } else if (name == "HardSigmoid") {
    act.kind = Activation::Kind::kHardSigmoid;
    act.alpha = params.size() > 0 ? params[0] : 0.2f;
    act.beta = params.size() > 1 ? params[1] : 0.5f;
  } else {
    return Status::Unsupported(ctx.Error("fused activation '" + name + "' not implemented").message());
  }
  return act;
}

Tensor ToFloat32(const Tensor& t) {
  if (t.dtype() == DType::kFloat32) return t;
  Tensor out = Tensor::Empty(DType::kFloat32, t.shape());
  const uint16_t* src = t.data<uint16_t>();
  float* dst = out.data<float>();
  const bool half = t.dtype() == DType::kFloat16;
  ParallelFor(t.numel(), 1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = half ? numerics::HalfToFloat(src[i]) : numerics::BFloat16ToFloat(src[i]);
    }
  });
  return out;
}

Tensor FromFloat32(const Tensor& t, DType dtype) {
  if (dtype == DType::kFloat32) return t;
  Tensor out = Tensor::Empty(dtype, t.shape());
  const float* src = t.data<float>();
  uint16_t* dst = out.data<uint16_t>();
  const bool half = dtype == DType::kFloat16;
  ParallelFor(t.numel(), 1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = half ? numerics::FloatToHalf(src[i]) : numerics::FloatToBFloat16(src[i]);
    }
  });
  return out;
}

}  // namespace nn

// Opset ranges: one kernel per op handles every opset of that op; kernels branch on ctx.opset
// where the versions differ (LpPool's p type, MaxPool's Indices / ceil_mode / dilations arrive
// as attributes that older models simply do not set).
std::span<const OpRow> NnOps() {
  static const OpRow kRows[] = {
      {"", "Conv", 1, 17, nn::Conv, &support::kConv},
      {"", "ConvTranspose", 1, 17, nn::ConvTranspose, &support::kCube},
      {"com.microsoft", "FusedConv", 1, 17, nn::FusedConv, &support::kUnsupported},
      {"", "MatMul", 1, 17, nn::MatMul, &support::kCube},
      {"", "Gemm", 1, 17, nn::Gemm, &support::kCube},
      {"", "MaxPool", 1, 17, nn::MaxPool, &support::kVectorFloat},
      {"", "AveragePool", 1, 17, nn::AveragePool, &support::kVectorFloat},
      {"", "LpPool", 1, 17, nn::LpPool, &support::kUnsupported},
      {"", "GlobalAveragePool", 1, 17, nn::GlobalAveragePool, &support::kVectorFloat},
      {"", "GlobalMaxPool", 1, 17, nn::GlobalMaxPool, &support::kVectorFloat},
      {"", "GlobalLpPool", 1, 17, nn::GlobalLpPool, &support::kUnsupported},
      {"", "MaxUnpool", 9, 17, nn::MaxUnpool, &support::kAiCpuOnly},
  };
  return kRows;
}

}  // namespace npugap::exec
