// Elementwise op family, unary half: math functions, Sign, IsNaN, IsInf, Not and Clip.
// Rows start at the op's first opset: opset 1 versions only differ by a `consumed_inputs`
// attribute (an allocation hint without effect on the result). float16 / bfloat16 are computed in float32
// (WithHalf); the math functions are those of the C++ library in the input's precision.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "elementwise_internal.h"

namespace npugap::exec::elementwise {
namespace {

// Unary kernels on float32 / float64 only.
#define NPUGAP_FLOAT_UNARY(name, expr)      \
  Status name##Kernel(KernelContext& ctx) { \
    return MapFloatUnary(ctx, [](auto x) {  \
      using T = decltype(x);                \
      (void)sizeof(T);                      \
      return expr;                          \
    });                                     \
  }

// Exp, Erf and Tanh on float32 arrays call glibc's vector math library (libmvec, at most 4 ulp
// from the correctly rounded result) 8 lanes at a time: std::erf one value at a time was 15% of
// vit_b_16's run time.
extern "C" {
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_erff(__m256);
__m256 _ZGVdN8v_tanhf(__m256);
}

template <__m256 (*Vector)(__m256), float (*Scalar)(float), typename Op>
Status MapFloatUnaryVectorised(KernelContext& ctx, Op op) {
  if (!ctx.has_input(0) || ctx.input(0).dtype() != DType::kFloat32) return MapFloatUnary(ctx, op);
  const Tensor& x = ctx.input(0);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kFloat32, x.shape()));
  const float* in = x.data<float>();
  float* out = y.data<float>();
  ParallelFor(x.numel(), kGrain, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + 8 <= end; i += 8) _mm256_storeu_ps(out + i, Vector(_mm256_loadu_ps(in + i)));
    for (; i < end; ++i) out[i] = Scalar(in[i]);
  });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

float ScalarExp(float v) { return std::exp(v); }
float ScalarErf(float v) { return std::erf(v); }
float ScalarTanh(float v) { return std::tanh(v); }

#define NPUGAP_VECTOR_UNARY(name, vector, expr)                            \
  Status name##Kernel(KernelContext& ctx) {                                \
    return MapFloatUnaryVectorised<vector, Scalar##name>(ctx, [](auto x) { \
      using T = decltype(x);                                               \
      (void)sizeof(T);                                                     \
      return expr;                                                         \
    });                                                                    \
  }
NPUGAP_VECTOR_UNARY(Exp, _ZGVdN8v_expf, std::exp(x))
NPUGAP_VECTOR_UNARY(Erf, _ZGVdN8v_erff, std::erf(x))
NPUGAP_VECTOR_UNARY(Tanh, _ZGVdN8v_tanhf, std::tanh(x))
#undef NPUGAP_VECTOR_UNARY

NPUGAP_FLOAT_UNARY(Log, std::log(x))
NPUGAP_FLOAT_UNARY(Sqrt, std::sqrt(x))
NPUGAP_FLOAT_UNARY(Reciprocal, T(1) / x)
NPUGAP_FLOAT_UNARY(Floor, std::floor(x))
NPUGAP_FLOAT_UNARY(Ceil, std::ceil(x))
// Halves round to even: nearbyint in the default rounding mode (std::round would go away from 0).
NPUGAP_FLOAT_UNARY(Round, std::nearbyint(x))
NPUGAP_FLOAT_UNARY(Sin, std::sin(x))
NPUGAP_FLOAT_UNARY(Cos, std::cos(x))
NPUGAP_FLOAT_UNARY(Tan, std::tan(x))
NPUGAP_FLOAT_UNARY(Asin, std::asin(x))
NPUGAP_FLOAT_UNARY(Acos, std::acos(x))
NPUGAP_FLOAT_UNARY(Atan, std::atan(x))
NPUGAP_FLOAT_UNARY(Sinh, std::sinh(x))
NPUGAP_FLOAT_UNARY(Cosh, std::cosh(x))
NPUGAP_FLOAT_UNARY(Asinh, std::asinh(x))
NPUGAP_FLOAT_UNARY(Acosh, std::acosh(x))
NPUGAP_FLOAT_UNARY(Atanh, std::atanh(x))

#undef NPUGAP_FLOAT_UNARY

// Abs of the most negative signed integer wraps to itself (two's complement), as in ORT.
Status AbsKernel(KernelContext& ctx) {
  return MapNumericUnary<true>(ctx, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);
    } else if constexpr (std::is_signed_v<T>) {
      return x < 0 ? WrapNeg(x) : x;
    } else {
      return x;
    }
  });
}

// Neg: ONNX allows signed integers and floats only.
Status NegKernel(KernelContext& ctx) {
  return MapNumericUnary<false>(ctx, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return -x;
    } else {
      return WrapNeg(x);
    }
  });
}

// Sign: -1, 0 or 1; NaN stays NaN (numpy).
Status SignKernel(KernelContext& ctx) {
  return MapNumericUnary<true>(ctx, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::isnan(x) ? x : static_cast<T>((x > 0) - (x < 0));
    } else {
      return static_cast<T>((x > 0) - (x < T(0)));
    }
  });
}

// Float input, bool output.
template <typename Pred>
Status FloatPredicate(KernelContext& ctx, Pred pred) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  Status status;
  const bool known = DispatchFloat(x.dtype(), [&]<typename T>() {
    auto y = Tensor::Create(DType::kBool, x.shape());
    if (!y.ok()) {
      status = y.status();
      return;
    }
    UnaryMap(x.data<T>(), y->template data<uint8_t>(), x.numel(),
             [&](T v) { return static_cast<uint8_t>(pred(v)); });
    ctx.outputs[0] = std::move(*y);
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

Status IsNaNKernel(KernelContext& ctx) {
  return FloatPredicate(ctx, [](auto x) { return std::isnan(x); });
}

// IsInf: detect_negative / detect_positive (both default 1) select which infinities count.
Status IsInfKernel(KernelContext& ctx) {
  const bool negative = ctx.node.GetInt("detect_negative", 1) != 0;
  const bool positive = ctx.node.GetInt("detect_positive", 1) != 0;
  return FloatPredicate(
      ctx, [negative, positive](auto x) { return std::isinf(x) && (x > 0 ? positive : negative); });
}

Status NotKernel(KernelContext& ctx) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kBool) return ctx.UnsupportedDType(x.dtype());
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(DType::kBool, x.shape()));
  UnaryMap(x.data<uint8_t>(), y.data<uint8_t>(), x.numel(),
           [](uint8_t v) { return static_cast<uint8_t>(v == 0); });
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// Reads an optional scalar bound of Clip (opset >= 11): a one-element tensor of x's type.
template <typename T>
Status ReadBound(const KernelContext& ctx, size_t index, T* bound) {
  if (!ctx.has_input(index)) return Status::Ok();
  const Tensor& t = ctx.input(index);
  const char* name = index == 1 ? "min" : "max";
  if (t.dtype() != ctx.input(0).dtype())
    return ctx.Error(std::string(name) + " has another element type than input");
  if (t.numel() != 1)
    return ctx.Error(std::string(name) + " must be a scalar, got shape " + ir::ShapeToString(t.shape()));
  *bound = t.data<T>()[0];
  return Status::Ok();
}

// Clip: bounds are float attributes `min` / `max` before opset 11 and optional scalar inputs since
// (integer types since 12). With min > max every element becomes max (numpy's clip). NaN passes.
Status ClipKernel(KernelContext& ctx) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  Status status;
  const bool known = DispatchNumeric(x.dtype(), [&]<typename T>() {
    T lo = std::numeric_limits<T>::lowest();
    T hi = std::numeric_limits<T>::max();
    if (ctx.opset < 11) {
      if (const ir::Attribute* a = ctx.node.FindAttribute("min")) lo = static_cast<T>(a->f);
      if (const ir::Attribute* a = ctx.node.FindAttribute("max")) hi = static_cast<T>(a->f);
    } else {
      status = ReadBound<T>(ctx, 1, &lo);
      if (status.ok()) status = ReadBound<T>(ctx, 2, &hi);
      if (!status.ok()) return;
    }
    auto y = Tensor::Create(x.dtype(), x.shape());
    if (!y.ok()) {
      status = y.status();
      return;
    }
    UnaryMap(x.data<T>(), y->template data<T>(), x.numel(), [lo, hi](T v) {
      const T low_clipped = v < lo ? lo : v;
      return low_clipped > hi ? hi : low_clipped;
    });
    ctx.outputs[0] = std::move(*y);
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

constexpr OpRow kUnaryRows[] = {
    {"", "Abs", 1, 17, WithHalf<AbsKernel>, &support::kVectorArith},
    {"", "Neg", 1, 17, WithHalf<NegKernel>, &support::kVectorArith},
    {"", "Exp", 1, 17, WithHalf<ExpKernel>, &support::kVectorFloat},
    {"", "Log", 1, 17, WithHalf<LogKernel>, &support::kVectorFloat},
    {"", "Sqrt", 1, 17, WithHalf<SqrtKernel>, &support::kVectorFloat},
    {"", "Reciprocal", 1, 17, WithHalf<ReciprocalKernel>, &support::kVectorFloat},
    {"", "Floor", 1, 17, WithHalf<FloorKernel>, &support::kVectorArith},
    {"", "Ceil", 1, 17, WithHalf<CeilKernel>, &support::kVectorArith},
    {"", "Round", 11, 17, WithHalf<RoundKernel>, &support::kVectorArith},
    {"", "Sign", 9, 17, WithHalf<SignKernel>, &support::kVectorArith},
    {"", "Erf", 9, 17, WithHalf<ErfKernel>, &support::kVectorFloat},
    {"", "Sin", 7, 17, WithHalf<SinKernel>, &support::kVectorFloat},
    {"", "Cos", 7, 17, WithHalf<CosKernel>, &support::kVectorFloat},
    {"", "Tan", 7, 17, WithHalf<TanKernel>, &support::kVectorFloat},
    {"", "Asin", 7, 17, WithHalf<AsinKernel>, &support::kVectorFloat},
    {"", "Acos", 7, 17, WithHalf<AcosKernel>, &support::kVectorFloat},
    {"", "Atan", 7, 17, WithHalf<AtanKernel>, &support::kVectorFloat},
    {"", "Sinh", 9, 17, WithHalf<SinhKernel>, &support::kVectorFloat},
    {"", "Cosh", 9, 17, WithHalf<CoshKernel>, &support::kVectorFloat},
    {"", "Asinh", 9, 17, WithHalf<AsinhKernel>, &support::kVectorFloat},
    {"", "Acosh", 9, 17, WithHalf<AcoshKernel>, &support::kVectorFloat},
    {"", "Atanh", 9, 17, WithHalf<AtanhKernel>, &support::kVectorFloat},
    {"", "Tanh", 1, 17, WithHalf<TanhKernel>, &support::kVectorFloat},
    {"", "IsNaN", 9, 17, WithHalf<IsNaNKernel>, &support::kVectorFloat},
    {"", "IsInf", 10, 17, WithHalf<IsInfKernel>, &support::kVectorFloat},
    {"", "Not", 1, 17, NotKernel, &support::kVectorArith},
    {"", "Clip", 1, 17, WithHalf<ClipKernel>, &support::kVectorArith},
};

}  // namespace

std::span<const OpRow> ElementwiseUnaryOps() { return kUnaryRows; }

}  // namespace npugap::exec::elementwise
