// Shared machinery of the elementwise and activation op families: broadcast iteration,
// unary maps, integer helpers and the float16/bfloat16-through-float32 wrapper.
//
// Broadcast iteration: the output is walked in flat order; each chunk of a ParallelFor turns its
// start into an odometer position once (the only index division), then advances run by run.
// Adjacent dims are merged where every input is contiguous across them, so the inner run is as
// long as possible and each input reads it with stride 1 (a real run) or 0 (one repeated value).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/exec/broadcast.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/kernel.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "npugap/ir/tensor.h"
#include "npugap/numerics/half.h"

namespace npugap::exec::elementwise {

// Elements per ParallelFor chunk: big enough that thread start-up is amortised on cheap ops.
inline constexpr int64_t kGrain = 16384;

// ---- broadcast iteration ----------------------------------------------------

template <size_t N>
struct BroadcastLayout {
  std::vector<int64_t> dims;                    // merged output dims; dims.back() is the inner run
  std::array<std::vector<int64_t>, N> strides;  // per input and merged dim; 0 on broadcast dims
  std::array<int64_t, N> inner_strides{};       // strides[k].back(): 0 or 1
};

// Inputs must already be known to broadcast to `out` (BroadcastShapes succeeded).
template <size_t N>
BroadcastLayout<N> MakeBroadcastLayout(const std::array<const Shape*, N>& inputs, const Shape& out) {
  std::array<std::vector<int64_t>, N> raw;
  for (size_t k = 0; k < N; ++k) raw[k] = BroadcastStrides(*inputs[k], out);
  BroadcastLayout<N> layout;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // contributes nothing to any offset
    bool merge = !layout.dims.empty();
    for (size_t k = 0; k < N && merge; ++k) merge = layout.strides[k].back() == raw[k][d] * out[d];
    if (merge) {
      layout.dims.back() *= out[d];
      for (size_t k = 0; k < N; ++k) layout.strides[k].back() = raw[k][d];
    } else {
      layout.dims.push_back(out[d]);
      for (size_t k = 0; k < N; ++k) layout.strides[k].push_back(raw[k][d]);
    }
  }
  if (layout.dims.empty()) {  // a single element
    layout.dims.push_back(1);
    for (size_t k = 0; k < N; ++k) layout.strides[k].push_back(0);
  }
  for (size_t k = 0; k < N; ++k) layout.inner_strides[k] = layout.strides[k].back();
  return layout;
}

// Calls run(out_offset, in_offsets, count) for each inner run of the flat output range
// [begin, end); input k reads run element i at in_offsets[k] + i * inner_strides[k].
template <size_t N, typename Run>
void ForEachRun(const BroadcastLayout<N>& layout, int64_t begin, int64_t end, Run&& run) {
  const size_t outer_rank = layout.dims.size() - 1;
  const int64_t inner = layout.dims.back();
  std::vector<int64_t> index(outer_rank);
  std::array<int64_t, N> base{};
  int64_t row = begin / inner;
  int64_t col = begin % inner;
  for (size_t d = outer_rank; d-- > 0;) {
    index[d] = row % layout.dims[d];
    row /= layout.dims[d];
    for (size_t k = 0; k < N; ++k) base[k] += index[d] * layout.strides[k][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t count = std::min(inner - col, end - pos);
    std::array<int64_t, N> offsets;
    for (size_t k = 0; k < N; ++k) offsets[k] = base[k] + col * layout.inner_strides[k];
    run(pos, offsets, count);
    pos += count;
    col = 0;
    if (pos >= end) break;
    for (size_t d = outer_rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) base[k] += layout.strides[k][d];
      if (index[d] < layout.dims[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= layout.strides[k][d] * layout.dims[d];
      index[d] = 0;
    }
  }
}

// out[i] = op(a[.], b[.]) over out_shape (numel elements); a and b broadcast to out_shape.
// Fast paths: both contiguous, one side a scalar; otherwise the run loop above.
// `out` may alias `a` when a has out_shape (used to accumulate variadic ops in place).
template <typename A, typename B, typename O, typename Op>
void BinaryBroadcast(const A* a, const Shape& a_shape, const B* b, const Shape& b_shape, O* out,
                     const Shape& out_shape, int64_t numel, Op op) {
  if (numel == 0) return;
  const int64_t a_numel = ir::CheckedNumel(a_shape).value();
  const int64_t b_numel = ir::CheckedNumel(b_shape).value();
  // An input with as many elements as the output reads it in flat order.
  const bool a_full = a_numel == numel;
  const bool b_full = b_numel == numel;
  if (a_full && b_full) {
    ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = op(a[i], b[i]);
    });
  } else if (a_full && b_numel == 1) {
    const B bv = b[0];
    ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = op(a[i], bv);
    });
  } else if (a_numel == 1 && b_full) {
    const A av = a[0];
    ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = op(av, b[i]);
    });
  } else {
    const BroadcastLayout<2> layout = MakeBroadcastLayout<2>({&a_shape, &b_shape}, out_shape);
    const bool a_runs = layout.inner_strides[0] != 0;
    const bool b_runs = layout.inner_strides[1] != 0;
    ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
      ForEachRun(layout, begin, end, [&](int64_t o, const std::array<int64_t, 2>& in, int64_t count) {
        O* po = out + o;
        const A* pa = a + in[0];
        const B* pb = b + in[1];
        if (a_runs && b_runs) {
          for (int64_t i = 0; i < count; ++i) po[i] = op(pa[i], pb[i]);
        } else if (a_runs) {
          const B bv = *pb;
          for (int64_t i = 0; i < count; ++i) po[i] = op(pa[i], bv);
        } else if (b_runs) {
          const A av = *pa;
          for (int64_t i = 0; i < count; ++i) po[i] = op(av, pb[i]);
        } else {
          const O v = op(*pa, *pb);
          std::fill(po, po + count, v);
        }
      });
    });
  }
}

// out[i] = op(a[.], b[.], c[.]) over out_shape; all three broadcast to it (Where).
template <typename A, typename B, typename C, typename O, typename Op>
void TernaryBroadcast(const A* a, const Shape& a_shape, const B* b, const Shape& b_shape, const C* c,
                      const Shape& c_shape, O* out, const Shape& out_shape, int64_t numel, Op op) {
  if (numel == 0) return;
  const bool all_full = ir::CheckedNumel(a_shape).value() == numel &&
                        ir::CheckedNumel(b_shape).value() == numel &&
                        ir::CheckedNumel(c_shape).value() == numel;
  if (all_full) {
    ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = op(a[i], b[i], c[i]);
    });
    return;
  }
  const BroadcastLayout<3> layout = MakeBroadcastLayout<3>({&a_shape, &b_shape, &c_shape}, out_shape);
  const int64_t sa = layout.inner_strides[0], sb = layout.inner_strides[1], sc = layout.inner_strides[2];
  ParallelFor(numel, kGrain, [&](int64_t begin, int64_t end) {
    ForEachRun(layout, begin, end, [&](int64_t o, const std::array<int64_t, 3>& in, int64_t count) {
      O* po = out + o;
      const A* pa = a + in[0];
      const B* pb = b + in[1];
      const C* pc = c + in[2];
      for (int64_t i = 0; i < count; ++i) po[i] = op(pa[i * sa], pb[i * sb], pc[i * sc]);
    });
  });
}

// out[i] = op(in[i]) over n contiguous elements.
template <typename In, typename Out, typename Op>
void UnaryMap(const In* in, Out* out, int64_t n, Op op) {
  ParallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = op(in[i]);
  });
}

// ---- kernel helpers ---------------------------------------------------------

// Fails unless inputs [0, n) are all present.
inline Status RequireInputs(const KernelContext& ctx, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.has_input(i)) return ctx.Error("missing required input " + std::to_string(i));
  }
  return Status::Ok();
}

inline bool IsHalfType(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// Output 0 = op(x), elementwise, with x's dtype T and shape.
template <typename T, typename Op>
Status StoreUnaryMap(KernelContext& ctx, const Tensor& x, Op op) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  UnaryMap(x.data<T>(), y.template data<T>(), x.numel(), [&](T v) { return static_cast<T>(op(v)); });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// Applies a float-only op to input 0 and writes output 0 with the same dtype and shape.
// `op` is a generic lambda called with float or double.
template <typename Op>
Status MapFloatUnary(KernelContext& ctx, Op op) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  Status status;
  const bool known = DispatchFloat(x.dtype(), [&]<typename T>() { status = StoreUnaryMap<T>(ctx, x, op); });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

// Output 0 = op(input 0) for numeric types; unsigned types are refused unless kAllowUnsigned.
template <bool kAllowUnsigned, typename Op>
Status MapNumericUnary(KernelContext& ctx, Op op) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  Status status;
  const bool known = DispatchNumeric(x.dtype(), [&]<typename T>() {
    if constexpr (std::is_unsigned_v<T> && !kAllowUnsigned) {
      status = ctx.UnsupportedDType(x.dtype());
    } else {
      status = StoreUnaryMap<T>(ctx, x, op);
    }
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

// Integer arithmetic that wraps around (two's complement) instead of overflowing, done in an
// unsigned type at least as wide as int so small types are not promoted to signed int.
template <typename T>
using WrapType = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <typename T>
T WrapNeg(T x) {
  return static_cast<T>(WrapType<T>{0} - static_cast<WrapType<T>>(x));
}

// Float to integer, clamping to the integer's range (NaN -> 0) instead of the undefined cast.
template <typename I, typename F>
I SaturateCast(F v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<F>(std::numeric_limits<I>::lowest())) return std::numeric_limits<I>::lowest();
  if (v >= static_cast<F>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// Converts a numeric, float16 or bfloat16 tensor to element type To (a cast per element).
template <typename To>
Expected<Tensor> ConvertTo(const Tensor& t) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(ir::DTypeOf<To>::value, t.shape()));
  To* dst = out.data<To>();
  const int64_t n = t.numel();
  if (t.dtype() == DType::kFloat16 || t.dtype() == DType::kBFloat16) {
    const bool bf = t.dtype() == DType::kBFloat16;
    const uint16_t* src = t.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) {
      const float f = bf ? numerics::BFloat16ToFloat(src[i]) : numerics::HalfToFloat(src[i]);
      if constexpr (std::is_integral_v<To>) {
        dst[i] = SaturateCast<To>(f);
      } else {
        dst[i] = static_cast<To>(f);
      }
    }
    return out;
  }
  const bool known = DispatchNumeric(t.dtype(), [&]<typename From>() {
    const From* src = t.data<From>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
        dst[i] = SaturateCast<To>(src[i]);
      } else {
        dst[i] = static_cast<To>(src[i]);
      }
    }
  });
  if (!known)
    return Status::Unsupported(std::string("conversion from ") + std::string(ir::DTypeName(t.dtype())));
  return out;
}

// float16/bfloat16 <-> float32 tensors.
Expected<Tensor> HalfToFloat32(const Tensor& t);
Expected<Tensor> Float32ToHalf(const Tensor& t, DType half_type);

// Runs `kernel` on float32 copies of the float16/bfloat16 inputs when input 0 is such a type
// (other inputs of that same type are converted too), then rounds its float32 outputs back.
// Computing in float32 and rounding once is how ONNX Runtime evaluates these ops.
Status RunViaFloat32(KernelContext& ctx, KernelFn kernel);

template <KernelFn kKernel>
Status WithHalf(KernelContext& ctx) {
  if (ctx.has_input(0) && IsHalfType(ctx.input(0).dtype())) return RunViaFloat32(ctx, kKernel);
  return kKernel(ctx);
}

// Rows of the unary half of the elementwise family (elementwise_unary.cc).
std::span<const OpRow> ElementwiseUnaryOps();

}  // namespace npugap::exec::elementwise
