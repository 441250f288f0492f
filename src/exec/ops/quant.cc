// Quant op family: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul, QLinearConv.
//
// Rounding follows ONNX and ONNX Runtime: to nearest, ties to even (std::nearbyint in the
// default rounding mode), computed in float32; then saturation to the 8-bit range. Integer
// products accumulate in int32, as the spec requires. These are plain C++ loops: they serve
// conformance and the precision emulator, not speed.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "nn_internal.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

// x / scale rounded half to even, plus zero point, saturated to T.
template <typename T>
T Saturate(float v) {
  const float lo = static_cast<float>(std::numeric_limits<T>::min());
  const float hi = static_cast<float>(std::numeric_limits<T>::max());
  if (std::isnan(v)) return T{0};
  return static_cast<T>(std::clamp(v, lo, hi));
}

bool IsQuantType(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

// Reads element i of an 8/32-bit integer tensor as int32.
int32_t IntAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kUInt8:
      return t.data<uint8_t>()[i];
    case DType::kInt8:
      return t.data<int8_t>()[i];
    case DType::kInt32:
      return t.data<int32_t>()[i];
    default:
      return 0;
  }
}

// Per-tensor or per-axis quantization parameters along `axis` of a tensor of `shape`:
// element index -> parameter index is (i / inner) % count.
struct AxisParams {
  int64_t count = 1;  // 1: per tensor
  int64_t inner = 1;
};

Expected<AxisParams> ResolveAxisParams(const KernelContext& ctx, const Shape& shape, const Tensor& scale,
                                       const Tensor* zero_point) {
  if (zero_point && zero_point->shape() != scale.shape()) {
    return ctx.Error("scale " + ir::ShapeToString(scale.shape()) + " and zero point " +
                     ir::ShapeToString(zero_point->shape()) + " must have the same shape");
  }
  AxisParams p;
  if (scale.rank() == 0 || (scale.rank() == 1 && scale.numel() == 1)) return p;  // as ONNX Runtime
  if (scale.rank() != 1) return ctx.Error("scale must be a scalar or a 1-D tensor");
  if (ctx.opset < 13 && scale.numel() != 1) return ctx.Error("per-axis scales need opset 13");
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = ctx.node.GetInt("axis", 1);
  if (axis < -rank || axis >= rank) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  if (shape[static_cast<size_t>(axis)] != scale.numel()) {
    return ctx.Error("scale has " + std::to_string(scale.numel()) + " values, axis " + std::to_string(axis) +
                     " has " + std::to_string(shape[static_cast<size_t>(axis)]));
  }
  p.count = scale.numel();
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) p.inner *= shape[d];
  return p;
}

// y = saturate(round(x / y_scale) + y_zero_point); y has the zero point's type (uint8 when
// it is absent). x may be float32 or int32.
Status QuantizeLinear(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs x and y_scale");
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (x.dtype() != DType::kFloat32 && x.dtype() != DType::kInt32) return ctx.UnsupportedDType(x.dtype());
  if (scale.dtype() != DType::kFloat32) return ctx.UnsupportedDType(scale.dtype());
  const DType out_type = zp ? zp->dtype() : DType::kUInt8;
  if (!IsQuantType(out_type)) return ctx.UnsupportedDType(out_type);
  NPUGAP_ASSIGN_OR_RETURN(AxisParams ap, ResolveAxisParams(ctx, x.shape(), scale, zp));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(out_type, x.shape()));
  const float* sd = scale.data<float>();
  DispatchInteger(out_type, [&]<typename T>() {
    T* yd = y.data<T>();
    const T* zd = zp ? zp->data<T>() : nullptr;
    ParallelFor(x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t p = (i / ap.inner) % ap.count;
        const float xv =
            x.dtype() == DType::kFloat32 ? x.data<float>()[i] : static_cast<float>(x.data<int32_t>()[i]);
        const float q = std::nearbyint(xv / sd[p]) + (zd ? static_cast<float>(zd[p]) : 0.f);
        yd[i] = Saturate<T>(q);
      }
    });
  });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// y = (x - x_zero_point) * x_scale in float32; int32 x has no zero point.
Status DequantizeLinear(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs x and x_scale");
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (!IsQuantType(x.dtype()) && x.dtype() != DType::kInt32) return ctx.UnsupportedDType(x.dtype());
  if (scale.dtype() != DType::kFloat32) return ctx.UnsupportedDType(scale.dtype());
  if (zp && zp->dtype() != x.dtype()) return ctx.Error("x_zero_point must have the type of x");
  NPUGAP_ASSIGN_OR_RETURN(AxisParams ap, ResolveAxisParams(ctx, x.shape(), scale, zp));
  if (x.dtype() == DType::kInt32 && zp) {
    for (int64_t i = 0; i < zp->numel(); ++i) {
      if (zp->data<int32_t>()[i] != 0) return ctx.Error("an int32 x must have zero point 0");
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kFloat32, x.shape()));
  const float* sd = scale.data<float>();
  float* yd = y.data<float>();
  ParallelFor(x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t p = (i / ap.inner) % ap.count;
      const int32_t z = zp ? IntAt(*zp, p) : 0;
      yd[i] = static_cast<float>(IntAt(x, i) - z) * sd[p];
    }
  });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// uint8 quantization of x over its range widened to include 0:
//   scale = (max - min) / 255, zero_point = saturate(round(-min / scale)).
// A constant-zero x would make the scale 0; ONNX Runtime then uses scale 1, and so do we.
Status DynamicQuantizeLinear(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.Error("needs input x");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kFloat32) return ctx.UnsupportedDType(x.dtype());
  const float* xd = x.data<float>();
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = std::min(lo, xd[i]);
    hi = std::max(hi, xd[i]);
  }
  const float scale = hi == lo ? 1.f : (hi - lo) / 255.f;
  const float zp_float = std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f));
  const uint8_t zp = static_cast<uint8_t>(zp_float);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kUInt8, x.shape()));
  uint8_t* yd = y.data<uint8_t>();
  ParallelFor(x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) yd[i] = Saturate<uint8_t>(std::nearbyint(xd[i] / scale) + zp_float);
  });
  ctx.outputs[0] = std::move(y);
  if (ctx.wants_output(1)) ctx.outputs[1] = Tensor::FromVector<float>({}, {scale});
  if (ctx.wants_output(2)) ctx.outputs[2] = Tensor::FromVector<uint8_t>({}, {zp});
  return Status::Ok();
}

// Zero points / scales of a quantized matrix product: per tensor, per row of A (M values, or
// one per batch row), per column of B (N values, or one per batch column).
struct RowColParams {
  const Tensor* t = nullptr;
  int64_t per = 0;  // 0 scalar, else number of distinct entries (M, N, or batch*M / batch*N)
};

Expected<RowColParams> ResolveRowCol(const KernelContext& ctx, const Tensor* t, int64_t lines, int64_t batch,
                                     const char* what) {
  RowColParams p;
  p.t = t;
  if (t == nullptr || t->numel() == 1) return p;
  if (t->numel() == lines || t->numel() == lines * batch) {
    p.per = t->numel();
    return p;
  }
  return ctx.Error(std::string(what) + " has " + std::to_string(t->numel()) + " values, expected 1 or " +
                   std::to_string(lines));
}

// Index of the parameter for line `line` (row or column) of batch `b`.
int64_t ParamIndex(const RowColParams& p, int64_t lines, int64_t b, int64_t line) {
  if (p.per == 0) return 0;
  return p.per == lines ? line : b * lines + line;
}

// The int32 product of (a - a_zp) and (b - b_zp), batched and broadcast like MatMul.
// Calls emit(batch, i, j, acc) for every output element.
template <typename Emit>
Status IntegerMatMul(const KernelContext& ctx, const nn::MatMulShape& s, const Tensor& a, const Tensor& b,
                     const Tensor* a_zp, const Tensor* b_zp, Emit emit) {
  NPUGAP_ASSIGN_OR_RETURN(RowColParams azp, ResolveRowCol(ctx, a_zp, s.m, s.batch, "a_zero_point"));
  NPUGAP_ASSIGN_OR_RETURN(RowColParams bzp, ResolveRowCol(ctx, b_zp, s.n, s.batch, "b_zero_point"));
  ParallelFor(s.batch * s.m, 1, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> row(static_cast<size_t>(s.n));
    std::vector<int32_t> b_off(static_cast<size_t>(s.n));
    for (int64_t bi = begin; bi < end; ++bi) {
      const int64_t batch = bi / s.m, i = bi % s.m;
      const int64_t a_base = s.a_offsets[static_cast<size_t>(batch)] + i * s.k;
      const int64_t b_base = s.b_offsets[static_cast<size_t>(batch)];
      const int32_t a_off = azp.t ? IntAt(*azp.t, ParamIndex(azp, s.m, batch, i)) : 0;
      for (int64_t j = 0; j < s.n; ++j) {
        b_off[static_cast<size_t>(j)] = bzp.t ? IntAt(*bzp.t, ParamIndex(bzp, s.n, batch, j)) : 0;
      }
      std::fill(row.begin(), row.end(), 0);
      for (int64_t kk = 0; kk < s.k; ++kk) {
        const int32_t av = IntAt(a, a_base + kk) - a_off;
        if (av == 0) continue;
        for (int64_t j = 0; j < s.n; ++j) {
          row[static_cast<size_t>(j)] +=
              av * (IntAt(b, b_base + kk * s.n + j) - b_off[static_cast<size_t>(j)]);
        }
      }
      for (int64_t j = 0; j < s.n; ++j) emit(batch, i, j, row[static_cast<size_t>(j)]);
    }
  });
  return Status::Ok();
}

// MatMulInteger: int32 Y = (A - a_zero_point) x (B - b_zero_point).
Status MatMulInteger(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs A and B");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor* a_zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* b_zp = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (!IsQuantType(a.dtype())) return ctx.UnsupportedDType(a.dtype());
  if (!IsQuantType(b.dtype())) return ctx.UnsupportedDType(b.dtype());
  if ((a_zp && a_zp->dtype() != a.dtype()) || (b_zp && b_zp->dtype() != b.dtype())) {
    return ctx.Error("zero points must have the types of A and B");
  }
  NPUGAP_ASSIGN_OR_RETURN(nn::MatMulShape s, nn::ResolveMatMul(ctx, a.shape(), b.shape()));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kInt32, s.out));
  int32_t* yd = y.data<int32_t>();
  NPUGAP_RETURN_IF_ERROR(IntegerMatMul(
      ctx, s, a, b, a_zp, b_zp,
      [&](int64_t batch, int64_t i, int64_t j, int32_t acc) { yd[(batch * s.m + i) * s.n + j] = acc; }));
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// Checks that a scale is float32 and a zero point an 8-bit type, both with 1 or `lines` values.
Status CheckQuantParam(const KernelContext& ctx, const Tensor& scale, const Tensor* zp, const char* name) {
  if (scale.dtype() != DType::kFloat32) return ctx.Error(std::string(name) + "_scale must be float32");
  if (zp && !IsQuantType(zp->dtype()))
    return ctx.Error(std::string(name) + "_zero_point must be int8 or uint8");
  return Status::Ok();
}

// QLinearMatMul: y = saturate(round(acc * a_scale * b_scale / y_scale) + y_zero_point) with
// acc = (a - a_zp) x (b - b_zp) in int32. Scales and zero points of a and y may be per row,
// those of b per column; the float multiplier is formed first, as ONNX Runtime does.
Status QLinearMatMul(KernelContext& ctx) {
  for (size_t i = 0; i < 8; ++i) {
    if (!ctx.has_input(i))
      return ctx.Error("needs 8 inputs (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)");
  }
  const Tensor &a = ctx.input(0), &a_scale = ctx.input(1), &a_zp = ctx.input(2);
  const Tensor &b = ctx.input(3), &b_scale = ctx.input(4), &b_zp = ctx.input(5);
  const Tensor &y_scale = ctx.input(6), &y_zp = ctx.input(7);
  if (!IsQuantType(a.dtype())) return ctx.UnsupportedDType(a.dtype());
  if (!IsQuantType(b.dtype())) return ctx.UnsupportedDType(b.dtype());
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, a_scale, &a_zp, "a"));
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, b_scale, &b_zp, "b"));
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, y_scale, &y_zp, "y"));
  NPUGAP_ASSIGN_OR_RETURN(nn::MatMulShape s, nn::ResolveMatMul(ctx, a.shape(), b.shape()));
  NPUGAP_ASSIGN_OR_RETURN(RowColParams as, ResolveRowCol(ctx, &a_scale, s.m, s.batch, "a_scale"));
  NPUGAP_ASSIGN_OR_RETURN(RowColParams bs, ResolveRowCol(ctx, &b_scale, s.n, s.batch, "b_scale"));
  NPUGAP_ASSIGN_OR_RETURN(RowColParams ys, ResolveRowCol(ctx, &y_scale, s.m, s.batch, "y_scale"));
  NPUGAP_ASSIGN_OR_RETURN(RowColParams yz, ResolveRowCol(ctx, &y_zp, s.m, s.batch, "y_zero_point"));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(y_zp.dtype(), s.out));
  Status st;
  DispatchInteger(y_zp.dtype(), [&]<typename T>() {
    T* yd = y.data<T>();
    st = IntegerMatMul(ctx, s, a, b, &a_zp, &b_zp, [&](int64_t batch, int64_t i, int64_t j, int32_t acc) {
      const float multiplier = a_scale.data<float>()[ParamIndex(as, s.m, batch, i)] *
                               b_scale.data<float>()[ParamIndex(bs, s.n, batch, j)] /
                               y_scale.data<float>()[ParamIndex(ys, s.m, batch, i)];
      const float zero = static_cast<float>(IntAt(y_zp, ParamIndex(yz, s.m, batch, i)));
      yd[(batch * s.m + i) * s.n + j] =
          Saturate<T>(std::nearbyint(static_cast<float>(acc) * multiplier) + zero);
    });
  });
  NPUGAP_RETURN_IF_ERROR(st);
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// Shared by ConvInteger and QLinearConv: checks x / w and their zero points (x's a scalar,
// w's a scalar or one per output channel) and computes the geometry.
struct IntConvInputs {
  nn::ConvGeometry g;
  int32_t x_offset = 0;
  std::vector<int32_t> w_offsets;  // one per output channel
};

Expected<IntConvInputs> ResolveIntConv(const KernelContext& ctx, const Tensor& x, const Tensor& w,
                                       const Tensor* x_zp, const Tensor* w_zp) {
  if (!IsQuantType(x.dtype())) return ctx.UnsupportedDType(x.dtype());
  if (!IsQuantType(w.dtype())) return ctx.UnsupportedDType(w.dtype());
  if ((x_zp && x_zp->dtype() != x.dtype()) || (w_zp && w_zp->dtype() != w.dtype())) {
    return ctx.Error("zero points must have the types of x and w");
  }
  IntConvInputs r;
  NPUGAP_ASSIGN_OR_RETURN(r.g, nn::ResolveConv(ctx, x.shape(), w.shape()));
  if (x_zp && x_zp->numel() != 1) return ctx.Error("x_zero_point must be a scalar");
  r.x_offset = x_zp ? IntAt(*x_zp, 0) : 0;
  r.w_offsets.assign(static_cast<size_t>(r.g.out_channels), 0);
  if (w_zp) {
    if (w_zp->numel() != 1 && w_zp->numel() != r.g.out_channels) {
      return ctx.Error("w_zero_point must have 1 or " + std::to_string(r.g.out_channels) + " values");
    }
    for (int64_t m = 0; m < r.g.out_channels; ++m) {
      r.w_offsets[static_cast<size_t>(m)] = IntAt(*w_zp, w_zp->numel() == 1 ? 0 : m);
    }
  }
  return r;
}

template <typename Finish, typename TY>
void RunIntConv(const IntConvInputs& c, const Tensor& x, const Tensor& w, TY* y, Finish finish) {
  DispatchInteger(x.dtype(), [&]<typename TX>() {
    DispatchInteger(w.dtype(), [&]<typename TW>() {
      if constexpr (sizeof(TX) == 1 && sizeof(TW) == 1) {
        nn::ReferenceConv<TX, TW, int32_t>(c.g, x.data<TX>(), w.data<TW>(), c.x_offset, c.w_offsets.data(), y,
                                           finish);
      }
    });
  });
}

// ConvInteger: int32 Y = conv(x - x_zero_point, w - w_zero_point); padding is the zero point.
Status ConvInteger(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs x and w");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  NPUGAP_ASSIGN_OR_RETURN(IntConvInputs c,
                          ResolveIntConv(ctx, x, w, ctx.has_input(2) ? &ctx.input(2) : nullptr,
                                         ctx.has_input(3) ? &ctx.input(3) : nullptr));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kInt32, nn::ConvOutputShape(c.g)));
  RunIntConv(c, x, w, y.data<int32_t>(), [](int64_t, int32_t acc) { return acc; });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// QLinearConv: y = saturate(round((acc + B[m]) * x_scale * w_scale[m] / y_scale) + y_zp) with
// acc the int32 convolution of (x - x_zp) and (w - w_zp[m]); w's scale and zero point may be
// per output channel.
Status QLinearConv(KernelContext& ctx) {
  for (size_t i = 0; i < 8; ++i) {
    if (!ctx.has_input(i)) return ctx.Error("needs inputs x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp");
  }
  const Tensor &x = ctx.input(0), &x_scale = ctx.input(1), &x_zp = ctx.input(2);
  const Tensor &w = ctx.input(3), &w_scale = ctx.input(4), &w_zp = ctx.input(5);
  const Tensor &y_scale = ctx.input(6), &y_zp = ctx.input(7);
  const Tensor* bias = ctx.has_input(8) ? &ctx.input(8) : nullptr;
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, x_scale, &x_zp, "x"));
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, w_scale, &w_zp, "w"));
  NPUGAP_RETURN_IF_ERROR(CheckQuantParam(ctx, y_scale, &y_zp, "y"));
  NPUGAP_ASSIGN_OR_RETURN(IntConvInputs c, ResolveIntConv(ctx, x, w, &x_zp, &w_zp));
  const int64_t m_count = c.g.out_channels;
  if (x_scale.numel() != 1 || y_scale.numel() != 1 || y_zp.numel() != 1) {
    return ctx.Error("x_scale, y_scale and y_zero_point must be scalars");
  }
  if (w_scale.numel() != 1 && w_scale.numel() != m_count) {
    return ctx.Error("w_scale must have 1 or " + std::to_string(m_count) + " values");
  }
  if (bias && (bias->dtype() != DType::kInt32 || bias->numel() != m_count)) {
    return ctx.Error("B must be int32 with " + std::to_string(m_count) + " values");
  }
  std::vector<float> multiplier(static_cast<size_t>(m_count));
  for (int64_t m = 0; m < m_count; ++m) {
    multiplier[static_cast<size_t>(m)] = x_scale.data<float>()[0] *
                                         w_scale.data<float>()[w_scale.numel() == 1 ? 0 : m] /
                                         y_scale.data<float>()[0];
  }
  const float zero = static_cast<float>(IntAt(y_zp, 0));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(y_zp.dtype(), nn::ConvOutputShape(c.g)));
  DispatchInteger(y_zp.dtype(), [&]<typename T>() {
    RunIntConv(c, x, w, y.data<T>(), [&](int64_t m, int32_t acc) {
      if (bias) acc += bias->data<int32_t>()[m];
      return Saturate<T>(std::nearbyint(static_cast<float>(acc) * multiplier[static_cast<size_t>(m)]) + zero);
    });
  });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

}  // namespace

// QuantizeLinear / DequantizeLinear: opset 10 per tensor, 13 adds per-axis (axis attribute).
std::span<const OpRow> QuantOps() {
  static const OpRow kRows[] = {
      {"", "QuantizeLinear", 10, 17, QuantizeLinear, &support::kVectorArith},
      {"", "DequantizeLinear", 10, 17, DequantizeLinear, &support::kVectorArith},
      {"", "DynamicQuantizeLinear", 11, 17, DynamicQuantizeLinear, &support::kAiCpuOnly},
      {"", "MatMulInteger", 10, 17, MatMulInteger, &support::kCube},
      {"", "ConvInteger", 10, 17, ConvInteger, &support::kConv},
      {"", "QLinearMatMul", 10, 17, QLinearMatMul, &support::kUnsupported},
      {"", "QLinearConv", 10, 17, QLinearConv, &support::kUnsupported},
  };
  return kRows;
}

}  // namespace npugap::exec
