// Pooling: MaxPool, AveragePool, LpPool, their Global forms, and MaxUnpool.
//
// All run here on NCHW planes (parallel over N x C). The 2-D float32 MaxPool / AveragePool
// without indices reads a padded copy of each plane with compile-time window sizes, so the
// inner loop vectorises; everything else (indices, 1-D / 3-D, other types) uses the general
// loops. oneDNN pooling was measured and not used (thread CPU time, 1 thread, batch 1 / 8, ms;
// ours includes allocating the output):
//   MaxPool 3x3 s2 64 @112:  here 0.50 / 5.1   oneDNN NCHW 0.46 / 4.1   nChw16c+reorders 0.57 / 8.0
//   AvgPool 2x2 s2 256 @56:  here 0.34 / 2.1   oneDNN NCHW 0.53 / 3.5   nChw16c+reorders 0.62 / 8.3
// so the small MaxPool gap does not pay for a second implementation of ceil_mode / padding.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "dnnl_util.h"
#include "nn_internal.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/numerics/format.h"

namespace npugap::exec::nn {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

struct PoolParams {
  PoolKind kind = PoolKind::kMax;
  bool count_include_pad = false;  // AveragePool
  double p = 2;                    // LpPool
};

// Elements of the window starting at `start` (may be negative) along one axis: those inside
// the input, and those inside the padded input (what count_include_pad divides by; the part
// of a ceil-mode window past the end padding does not count).
struct AxisCount {
  int64_t valid;
  int64_t padded;
};
AxisCount CountAxis(const Window& w, int a, int64_t o) {
  const int64_t start = o * w.stride[a] - w.pad_begin[a];
  const int64_t end = start + (w.kernel[a] - 1) * w.dilation[a] + 1;
  int64_t valid = 0;
  for (int64_t t = 0; t < w.kernel[a]; ++t) {
    const int64_t i = start + t * w.dilation[a];
    valid += (i >= 0 && i < w.in[a]) ? 1 : 0;
  }
  const int64_t padded_end = std::min(end, w.in[a] + w.pad_end[a]);
  return {valid, std::max<int64_t>(0, (padded_end - start + w.dilation[a] - 1) / w.dilation[a])};
}

// General pooling over `planes` planes of the window. `indices` (MaxPool only, may be null)
// gets the flat input index of each maximum: row-major, or column-major within the plane
// when column_major (storage_order = 1); both include the plane offset, as ONNX Runtime does.
template <typename T, typename Acc>
void ReferencePool(const Window& w, int64_t planes, const T* x, T* y, int64_t* indices, bool column_major,
                   const PoolParams& pp) {
  const int64_t in_size = w.in_size(), out_size = w.out_size();
  ParallelFor(planes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* xp = x + plane * in_size;
      for (int64_t od = 0; od < w.out[0]; ++od) {
        for (int64_t oh = 0; oh < w.out[1]; ++oh) {
          for (int64_t ow = 0; ow < w.out[2]; ++ow) {
            const int64_t o = (od * w.out[1] + oh) * w.out[2] + ow;
            Acc acc = pp.kind == PoolKind::kMax ? std::numeric_limits<Acc>::lowest() : Acc{0};
            int64_t best = -1;
            for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
              const int64_t id = od * w.stride[0] - w.pad_begin[0] + kd * w.dilation[0];
              if (id < 0 || id >= w.in[0]) continue;
              for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
                const int64_t ih = oh * w.stride[1] - w.pad_begin[1] + kh * w.dilation[1];
                if (ih < 0 || ih >= w.in[1]) continue;
                for (int64_t kw = 0; kw < w.kernel[2]; ++kw) {
                  const int64_t iw = ow * w.stride[2] - w.pad_begin[2] + kw * w.dilation[2];
                  if (iw < 0 || iw >= w.in[2]) continue;
                  const int64_t i = (id * w.in[1] + ih) * w.in[2] + iw;
                  const Acc v = static_cast<Acc>(xp[i]);
                  if (pp.kind == PoolKind::kMax) {
                    if (v > acc || best < 0) {
                      acc = v;
                      best = column_major ? id + w.in[0] * (ih + w.in[1] * iw) : i;
                    }
                  } else if (pp.kind == PoolKind::kAverage) {
                    acc += v;
                  } else {
                    acc += static_cast<Acc>(std::pow(std::abs(static_cast<double>(v)), pp.p));
                  }
                }
              }
            }
            if (pp.kind == PoolKind::kAverage) {
              int64_t count = 1;
              const int64_t pos[kMaxSpatial] = {od, oh, ow};
              for (int a = 0; a < kMaxSpatial; ++a) {
                const AxisCount c = CountAxis(w, a, pos[a]);
                count *= pp.count_include_pad ? c.padded : c.valid;
              }
              acc = count > 0 ? static_cast<Acc>(acc / static_cast<Acc>(count)) : Acc{0};
            } else if (pp.kind == PoolKind::kLp) {
              acc = static_cast<Acc>(std::pow(static_cast<double>(acc), 1.0 / pp.p));
            }
            y[plane * out_size + o] = static_cast<T>(acc);
            if (indices) indices[plane * out_size + o] = (best < 0 ? 0 : best) + plane * in_size;
          }
        }
      }
    }
  });
}

// One output plane of a 2-D max / average pool over a padded input plane. K == 0: runtime
// window sizes.
template <bool kIsMax, int K, int S>
void Pool2dPlane(const Window& w, const float* padded, int64_t cols, const float* inv_h, const float* inv_w,
                 float* y) {
  const int64_t kh_n = K ? K : w.kernel[1], kw_n = K ? K : w.kernel[2];
  const int64_t sh = S ? S : w.stride[1], sw = S ? S : w.stride[2];
  const int64_t dh = K ? 1 : w.dilation[1], dw = K ? 1 : w.dilation[2];
  for (int64_t oh = 0; oh < w.out[1]; ++oh) {
    const float* top = padded + oh * sh * cols;
    float* yr = y + oh * w.out[2];
    for (int64_t ow = 0; ow < w.out[2]; ++ow) {
      float acc = kIsMax ? -std::numeric_limits<float>::infinity() : 0.f;
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        for (int64_t kw = 0; kw < kw_n; ++kw) {
          const float v = top[kh * dh * cols + ow * sw + kw * dw];
          if constexpr (kIsMax) {
            acc = std::max(acc, v);
          } else {
            acc += v;
          }
        }
      }
      yr[ow] = kIsMax ? acc : acc * inv_h[oh] * inv_w[ow];
    }
  }
}

// Fast path: 2-D float32 MaxPool (no indices) and AveragePool. False when a thread's
// padded-plane buffer cannot be allocated.
bool Pool2dFloat(const Window& w, int64_t planes, const float* x, float* y, const PoolParams& pp) {
  const bool is_max = pp.kind == PoolKind::kMax;
  const int64_t rows = (w.out[1] - 1) * w.stride[1] + (w.kernel[1] - 1) * w.dilation[1] + 1;
  const int64_t cols = (w.out[2] - 1) * w.stride[2] + (w.kernel[2] - 1) * w.dilation[2] + 1;
  const float fill = is_max ? -std::numeric_limits<float>::infinity() : 0.f;
  // The average's divisor is separable: per-row factor x per-column factor.
  std::vector<float> inv_h(static_cast<size_t>(w.out[1])), inv_w(static_cast<size_t>(w.out[2]));
  for (int64_t o = 0; o < w.out[1]; ++o) {
    const AxisCount c = CountAxis(w, 1, o);
    const int64_t n = pp.count_include_pad ? c.padded : c.valid;
    inv_h[static_cast<size_t>(o)] = n > 0 ? 1.f / static_cast<float>(n) : 0.f;
  }
  for (int64_t o = 0; o < w.out[2]; ++o) {
    const AxisCount c = CountAxis(w, 2, o);
    const int64_t n = pp.count_include_pad ? c.padded : c.valid;
    inv_w[static_cast<size_t>(o)] = n > 0 ? 1.f / static_cast<float>(n) : 0.f;
  }
  const bool unit_dilation = w.dilation[1] == 1 && w.dilation[2] == 1;
  const bool k2 = unit_dilation && w.kernel[1] == 2 && w.kernel[2] == 2;
  const bool k3 = unit_dilation && w.kernel[1] == 3 && w.kernel[2] == 3;
  const bool s1 = w.stride[1] == 1 && w.stride[2] == 1, s2 = w.stride[1] == 2 && w.stride[2] == 2;
  std::atomic<bool> ok{true};
  ParallelFor(planes, 1, [&](int64_t begin, int64_t end) {
    float* padded =
        static_cast<float*>(dnnl_util::Scratch(2, static_cast<size_t>(rows * cols) * sizeof(float)));
    if (padded == nullptr) {
      ok = false;
      return;
    }
    for (int64_t plane = begin; plane < end; ++plane) {
      const float* xp = x + plane * w.in[1] * w.in[2];
      for (int64_t r = 0; r < rows; ++r) {
        float* dst = padded + r * cols;
        const int64_t ih = r - w.pad_begin[1];
        if (ih < 0 || ih >= w.in[1]) {
          std::fill(dst, dst + cols, fill);
          continue;
        }
        const int64_t lo = std::min(cols, w.pad_begin[2]);
        const int64_t hi = std::clamp<int64_t>(w.in[2] + w.pad_begin[2], lo, cols);
        std::fill(dst, dst + lo, fill);
        std::memcpy(dst + lo, xp + ih * w.in[2] + (lo - w.pad_begin[2]),
                    static_cast<size_t>(hi - lo) * sizeof(float));
        std::fill(dst + hi, dst + cols, fill);
      }
      float* yp = y + plane * w.out_size();
      const float* ih = inv_h.data();
      const float* iw = inv_w.data();
      auto run = [&]<bool kIsMax>() {
        if (k3 && s2) {
          Pool2dPlane<kIsMax, 3, 2>(w, padded, cols, ih, iw, yp);
        } else if (k3 && s1) {
          Pool2dPlane<kIsMax, 3, 1>(w, padded, cols, ih, iw, yp);
        } else if (k2 && s2) {
          Pool2dPlane<kIsMax, 2, 2>(w, padded, cols, ih, iw, yp);
        } else {
          Pool2dPlane<kIsMax, 0, 0>(w, padded, cols, ih, iw, yp);
        }
      };
      if (is_max) {
        run.template operator()<true>();
      } else {
        run.template operator()<false>();
      }
    }
  });
  return ok;
}

// Shared by MaxPool / AveragePool / LpPool.
Status RunPool(KernelContext& ctx, const PoolParams& pp, bool use_dilations, Rounding rounding) {
  if (ctx.num_inputs() < 1 || !ctx.has_input(0)) return ctx.Error("needs input X");
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t> kernel = ctx.node.GetInts("kernel_shape");
  if (kernel.empty()) return ctx.Error("kernel_shape attribute is required");
  NPUGAP_ASSIGN_OR_RETURN(Window w, ResolveWindow(ctx, x.shape(), kernel, use_dilations, rounding));
  Shape y_shape{x.dim(0), x.dim(1)};
  for (int64_t v : w.Real(w.out)) y_shape.push_back(v);
  const int64_t planes = x.dim(0) * x.dim(1);
  const bool want_indices = pp.kind == PoolKind::kMax && ctx.wants_output(1);
  const bool column_major = ctx.node.GetInt("storage_order", 0) == 1;
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  std::optional<Tensor> indices;
  if (want_indices) {
    NPUGAP_ASSIGN_OR_RETURN(indices, Tensor::Create(DType::kInt64, y_shape));
  }
  int64_t* idx = indices ? indices->data<int64_t>() : nullptr;
  if (y.numel() > 0) {
    const DType t = x.dtype();
    if (t == DType::kFloat32 && w.rank == 2 && !want_indices && pp.kind != PoolKind::kLp) {
      if (!Pool2dFloat(w, planes, x.data<float>(), y.data<float>(), pp)) return ctx.Error("out of memory");
    } else if (t == DType::kFloat32) {
      ReferencePool<float, float>(w, planes, x.data<float>(), y.data<float>(), idx, column_major, pp);
    } else if (t == DType::kFloat64) {
      ReferencePool<double, double>(w, planes, x.data<double>(), y.data<double>(), idx, column_major, pp);
    } else if (t == DType::kFloat16 || t == DType::kBFloat16) {
      Tensor yf = Tensor::Empty(DType::kFloat32, y_shape);
      ReferencePool<float, float>(w, planes, ToFloat32(x).data<float>(), yf.data<float>(), idx, column_major,
                                  pp);
      y = FromFloat32(yf, t);
    } else if (pp.kind == PoolKind::kMax && (t == DType::kInt8 || t == DType::kUInt8)) {
      DispatchInteger(t, [&]<typename T>() {
        ReferencePool<T, int32_t>(w, planes, x.data<T>(), y.data<T>(), idx, column_major, pp);
      });
    } else {
      return ctx.UnsupportedDType(t);
    }
  }
  ctx.outputs[0] = std::move(y);
  if (want_indices) ctx.outputs[1] = std::move(*indices);
  return Status::Ok();
}

// Global pools: one value per (n, c) plane; Y is N x C x 1 x ... x 1.
template <typename Reduce>
Status RunGlobalPool(KernelContext& ctx, Reduce reduce) {
  if (ctx.num_inputs() < 1 || !ctx.has_input(0)) return ctx.Error("needs input X");
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) return ctx.Error("X must have rank >= 2, got " + ir::ShapeToString(x.shape()));
  Shape y_shape(static_cast<size_t>(x.rank()), 1);
  y_shape[0] = x.dim(0);
  y_shape[1] = x.dim(1);
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_size = planes == 0 ? 0 : x.numel() / planes;
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  const DType t = x.dtype();
  auto run = [&]<typename T>(const T* xd, T* yd) {
    ParallelFor(planes, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, plane_size)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t p = begin; p < end; ++p)
                    yd[p] = static_cast<T>(reduce(xd + p * plane_size, plane_size));
                });
  };
  if (t == DType::kFloat32) {
    run(x.data<float>(), y.data<float>());
  } else if (t == DType::kFloat64) {
    run(x.data<double>(), y.data<double>());
  } else if (t == DType::kFloat16 || t == DType::kBFloat16) {
    Tensor yf = Tensor::Empty(DType::kFloat32, y_shape);
    run(ToFloat32(x).data<float>(), yf.data<float>());
    y = FromFloat32(yf, t);
  } else {
    return ctx.UnsupportedDType(t);
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// LpPool / GlobalLpPool's p: a float in opset 1, an int from opset 2.
double ReadP(const KernelContext& ctx) {
  const ir::Attribute* a = ctx.node.FindAttribute("p");
  if (a == nullptr) return 2.0;
  return a->kind == ir::Attribute::Kind::kFloat ? static_cast<double>(a->f) : static_cast<double>(a->i);
}

}  // namespace

// MaxPool: padding never wins (it is -inf); ceil_mode (opset 10+) drops a last window that
// starts in the end padding; optional Indices output (opset 8+), storage_order picks
// row- or column-major indices; int8 / uint8 from opset 12.
Status MaxPool(KernelContext& ctx) {
  PoolParams pp;
  pp.kind = PoolKind::kMax;
  const Rounding r = ctx.node.GetInt("ceil_mode", 0) != 0 ? Rounding::kCeil : Rounding::kFloor;
  return RunPool(ctx, pp, /*use_dilations=*/true, r);
}

// AveragePool: count_include_pad (opset 7+) divides by the window clipped to the padded input
// rather than to the input itself.
Status AveragePool(KernelContext& ctx) {
  PoolParams pp;
  pp.kind = PoolKind::kAverage;
  pp.count_include_pad = ctx.node.GetInt("count_include_pad", 0) != 0;
  const Rounding r = ctx.node.GetInt("ceil_mode", 0) != 0 ? Rounding::kCeil : Rounding::kFloor;
  return RunPool(ctx, pp, /*use_dilations=*/false, r);
}

// LpPool: (sum over the window of |x|^p)^(1/p); padding adds nothing.
Status LpPool(KernelContext& ctx) {
  PoolParams pp;
  pp.kind = PoolKind::kLp;
  pp.p = ReadP(ctx);
  if (!(pp.p > 0)) return ctx.Error("p must be positive");
  return RunPool(ctx, pp, /*use_dilations=*/false, Rounding::kFloor);
}

// Sums in double: a large plane summed in float loses digits. Under the precision emulator the
// node may carry kAccumulateFormatAttr: then the sum is kept in that format (emulation_op.h).
Status GlobalAveragePool(KernelContext& ctx) {
  if (const ir::Attribute* a = ctx.node.FindAttribute(kAccumulateFormatAttr);
      a && ctx.input(0).dtype() == DType::kFloat32) {
    const auto [format, opt] = UnpackFormat(a->i);
    return RunGlobalPool(ctx, [format, opt]<typename T>(const T* p, int64_t n) {
      float s = 0;
      for (int64_t i = 0; i < n; ++i) s = numerics::RoundScalar(format, s + static_cast<float>(p[i]), opt);
      return n > 0 ? static_cast<double>(s) / static_cast<double>(n) : 0.0;
    });
  }
  if (const ir::Attribute* a = ctx.node.FindAttribute(kMeanRoundsSumAttr);
      a && ctx.input(0).dtype() == DType::kFloat32) {
    // PyTorch's CPU mean in a low-precision dtype: the sum rounded to it, then divided in fp32.
    const auto [format, opt] = UnpackFormat(a->i);
    return RunGlobalPool(ctx, [format, opt]<typename T>(const T* p, int64_t n) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += static_cast<double>(p[i]);
      const float sum = numerics::RoundScalar(format, static_cast<float>(s), opt);
      return n > 0 ? static_cast<double>(sum / static_cast<float>(n)) : 0.0;
    });
  }
  return RunGlobalPool(ctx, []<typename T>(const T* p, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += static_cast<double>(p[i]);
    return n > 0 ? s / static_cast<double>(n) : 0.0;
  });
}

Status GlobalMaxPool(KernelContext& ctx) {
  return RunGlobalPool(ctx, []<typename T>(const T* p, int64_t n) {
    T m = n > 0 ? p[0] : T{0};
    for (int64_t i = 1; i < n; ++i) m = std::max(m, p[i]);
    return m;
  });
}

Status GlobalLpPool(KernelContext& ctx) {
  const double pv = ReadP(ctx);
  if (!(pv > 0)) return ctx.Error("p must be positive");
  return RunGlobalPool(ctx, [pv]<typename T>(const T* p, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::pow(std::abs(static_cast<double>(p[i])), pv);
    return std::pow(s, 1.0 / pv);
  });
}

// MaxUnpool: Y starts as zeros and Y.flat[I[i]] = X.flat[i]; the indices are flat over the
// whole tensor (MaxPool's Indices) of the default output shape, whose spatial size is
// (in - 1) * stride + kernel - pad_begin - pad_end. An output_shape input resizes that result,
// zero-filling (or cutting) at the end of each axis, as the ONNX reference implementation does.
Status MaxUnpool(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Error("needs inputs X and I");
  const Tensor& x = ctx.input(0);
  const Tensor& ind = ctx.input(1);
  if (ind.dtype() != DType::kInt64) return ctx.Error("I must be int64");
  if (ind.shape() != x.shape()) return ctx.Error("I must have the shape of X");
  if (x.rank() < 3) return ctx.Error("X must have rank >= 3");
  const int n = static_cast<int>(x.rank()) - 2;
  const auto kernel = ctx.node.GetInts("kernel_shape");
  const auto strides = ctx.node.GetInts("strides", std::vector<int64_t>(n, 1));
  const auto pads = ctx.node.GetInts("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != size_t(n) || strides.size() != size_t(n) || pads.size() != size_t(2 * n)) {
    return ctx.Error("kernel_shape, strides and pads must match the spatial rank");
  }
  Shape default_shape{x.dim(0), x.dim(1)};
  for (int i = 0; i < n; ++i) {
    const int64_t d = (x.dim(2 + i) - 1) * strides[i] + kernel[i] - pads[i] - pads[n + i];
    if (d < 0) return ctx.Error("pads exceed the output size");
    default_shape.push_back(d);
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Zeros(x.dtype(), default_shape));
  const int64_t* id = ind.data<int64_t>();
  const int64_t limit = y.numel();
  for (int64_t i = 0; i < ind.numel(); ++i) {
    if (id[i] < 0 || id[i] >= limit) {
      return ctx.Error("index " + std::to_string(id[i]) + " is outside the output of " +
                       std::to_string(limit) + " elements");
    }
  }
  const bool known = DispatchBySize(x.dtype(), [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) yd[id[i]] = xd[i];
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  if (ctx.has_input(2)) {
    const Tensor& os = ctx.input(2);
    if (os.dtype() != DType::kInt64 || os.numel() != x.rank()) {
      return ctx.Error("output_shape must be an int64 tensor of " + std::to_string(x.rank()) + " values");
    }
    const Shape out_shape(os.data<int64_t>(), os.data<int64_t>() + os.numel());
    if (out_shape != default_shape) {
      NPUGAP_ASSIGN_OR_RETURN(Tensor resized, Tensor::Zeros(x.dtype(), out_shape));
      // Copy the overlapping box row by row (last axis contiguous).
      const size_t elem = ir::DTypeSize(x.dtype());
      const int64_t row = std::min(out_shape.back(), default_shape.back());
      std::vector<int64_t> idx(out_shape.size() - 1, 0);
      std::vector<int64_t> extent(out_shape.size() - 1);
      int64_t rows = 1;
      for (size_t d = 0; d + 1 < out_shape.size(); ++d) {
        extent[d] = std::min(out_shape[d], default_shape[d]);
        rows *= extent[d];
      }
      for (int64_t r = 0; r < rows && row > 0; ++r) {
        int64_t src = 0, dst = 0;
        for (size_t d = 0; d < idx.size(); ++d) {
          src = src * default_shape[d] + idx[d];
          dst = dst * out_shape[d] + idx[d];
        }
        std::memcpy(static_cast<char*>(resized.raw_data()) + dst * out_shape.back() * elem,
                    static_cast<const char*>(y.raw_data()) + src * default_shape.back() * elem,
                    static_cast<size_t>(row) * elem);
        for (size_t d = idx.size(); d-- > 0;) {
          if (++idx[d] < extent[d]) break;
          idx[d] = 0;
        }
      }
      y = std::move(resized);
    }
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

}  // namespace npugap::exec::nn
