// Activation op family: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Sigmoid, HardSigmoid,
// HardSwish, Softplus, Softsign, ThresholdedRelu, Shrink. (Gelu only exists from opset 20.)
// Float attributes are applied in the input's precision. float16 / bfloat16 are computed in
// float32 (WithHalf). Rows start at the op's first opset: opset 1 versions only differ by a
// `consumed_inputs` attribute (an allocation hint without effect on the result).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "elementwise_internal.h"

namespace npugap::exec {
namespace {

using namespace elementwise;  // NOLINT(build/namespaces): the family's shared helpers

// Relu: max(0, x); NaN passes through. Signed integers are allowed since opset 14.
Status ReluKernel(KernelContext& ctx) {
  return MapNumericUnary<false>(ctx, [](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(0) : v;
  });
}

Status LeakyReluKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 0.01f);
  return MapFloatUnary(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x < T(0) ? static_cast<T>(alpha) * x : x;
  });
}

// PRelu: slope broadcasts unidirectionally to X (opset >= 7); integer types since opset 9.
// `slope_override` replaces input 1 (the legacy row's reshaped slope).
Status PReluImpl(KernelContext& ctx, const Tensor* slope_override) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  const Tensor& slope = slope_override != nullptr ? *slope_override : ctx.input(1);
  if (x.dtype() != slope.dtype()) return ctx.Error("X and slope element types differ");
  auto shape = BroadcastShapes(x.shape(), slope.shape());
  if (!shape.ok() || *shape != x.shape()) {
    return ctx.Error("slope of shape " + ir::ShapeToString(slope.shape()) +
                     " does not broadcast to X of shape " + ir::ShapeToString(x.shape()));
  }
  Status status;
  const bool known = DispatchNumeric(x.dtype(), [&]<typename T>() {
    auto y = Tensor::Create(x.dtype(), x.shape());
    if (!y.ok()) {
      status = y.status();
      return;
    }
    BinaryBroadcast(
        x.data<T>(), x.shape(), slope.data<T>(), slope.shape(), y->template data<T>(), x.shape(), x.numel(),
        [](T v, T s) {
          if constexpr (std::is_integral_v<T>) {
            return v < T(0) ? static_cast<T>(static_cast<WrapType<T>>(v) * static_cast<WrapType<T>>(s)) : v;
          } else {
            return v < T(0) ? s * v : v;
          }
        });
    ctx.outputs[0] = std::move(*y);
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

Status PReluKernel(KernelContext& ctx) { return PReluImpl(ctx, nullptr); }

// PRelu before opset 7 (Caffe2 semantics): a slope of X's channel count C = X.dim(1) applies per
// channel, so slope [C] is read as [C, 1, ..., 1]; otherwise numpy rules as above.
Status LegacyPReluKernel(KernelContext& ctx) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 2));
  const Tensor& x = ctx.input(0);
  const Tensor& slope = ctx.input(1);
  if (x.rank() >= 2 && slope.rank() == 1 && slope.numel() > 1 && slope.dim(0) == x.dim(1)) {
    Shape per_channel(static_cast<size_t>(x.rank() - 1), 1);
    per_channel[0] = slope.dim(0);
    const Tensor reshaped = slope.Reshaped(per_channel);
    return PReluImpl(ctx, &reshaped);
  }
  return PReluImpl(ctx, nullptr);
}

// Elu: alpha * (exp(x) - 1) for x < 0; expm1 keeps precision near 0.
Status EluKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 1.0f);
  return MapFloatUnary(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x < T(0) ? static_cast<T>(alpha) * std::expm1(x) : x;
  });
}

// Selu: gamma * (alpha * (exp(x) - 1)) for x <= 0, gamma * x otherwise. The defaults are the
// float32 constants of the spec.
Status SeluKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 1.67326319217681884765625f);
  const float gamma = ctx.node.GetFloat("gamma", 1.05070102214813232421875f);
  return MapFloatUnary(ctx, [alpha, gamma](auto x) {
    using T = decltype(x);
    return x > T(0) ? static_cast<T>(gamma) * x
                    : static_cast<T>(gamma) * (static_cast<T>(alpha) * std::expm1(x));
  });
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Status CeluKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 1.0f);
  if (alpha == 0.0f) return ctx.Error("alpha must not be 0");
  return MapFloatUnary(ctx, [alpha](auto x) {
    using T = decltype(x);
    const T a = static_cast<T>(alpha);
    return x > T(0) ? x : a * std::expm1(x / a);
  });
}

// Sigmoid in the form that never overflows exp: for x < 0, e^x / (1 + e^x).
Status SigmoidKernel(KernelContext& ctx) {
  return MapFloatUnary(ctx, [](auto x) {
    using T = decltype(x);
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  });
}

// Clamps to [0, 1]; NaN passes through (std::fmin / fmax would turn it into a bound).
template <typename T>
T ClampToUnit(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}

// HardSigmoid: max(0, min(1, alpha * x + beta)).
Status HardSigmoidKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 0.2f);
  const float beta = ctx.node.GetFloat("beta", 0.5f);
  return MapFloatUnary(ctx, [alpha, beta](auto x) {
    using T = decltype(x);
    const T v = static_cast<T>(alpha) * x + static_cast<T>(beta);
    return ClampToUnit(v);
  });
}

// HardSwish: x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
Status HardSwishKernel(KernelContext& ctx) {
  return MapFloatUnary(ctx, [](auto x) {
    using T = decltype(x);
    return x * ClampToUnit(x / T(6) + T(0.5));
  });
}

// Softplus: log(1 + exp(x)), as x + log1p(exp(-x)) for x > 0 so exp never overflows.
Status SoftplusKernel(KernelContext& ctx) {
  return MapFloatUnary(ctx, [](auto x) {
    using T = decltype(x);
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  });
}

Status SoftsignKernel(KernelContext& ctx) {
  return MapFloatUnary(ctx, [](auto x) {
    using T = decltype(x);
    return x / (T(1) + std::fabs(x));
  });
}

// ThresholdedRelu: x where x > alpha, else 0.
Status ThresholdedReluKernel(KernelContext& ctx) {
  const float alpha = ctx.node.GetFloat("alpha", 1.0f);
  return MapFloatUnary(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x > static_cast<T>(alpha) ? x : T(0);
  });
}

// Shrink: x + bias for x < -lambd, x - bias for x > lambd, else 0. Numeric types: integers are
// compared and shifted in double (the attributes are floats), then saturated back.
Status ShrinkKernel(KernelContext& ctx) {
  const float lambd = ctx.node.GetFloat("lambd", 0.5f);
  const float bias = ctx.node.GetFloat("bias", 0.0f);
  return MapNumericUnary<true>(ctx, [lambd, bias](auto v) {
    using T = decltype(v);
    using C = std::conditional_t<std::is_same_v<T, float>, float, double>;  // compute type
    const C l = static_cast<C>(lambd);
    const C b = static_cast<C>(bias);
    const C c = static_cast<C>(v);
    const C r = c < -l ? c + b : (c > l ? c - b : C(0));
    if constexpr (std::is_integral_v<T>) {
      return SaturateCast<T>(r);
    } else {
      return static_cast<T>(r);
    }
  });
}

constexpr OpRow kActivationRows[] = {
    {"", "Relu", 1, 17, WithHalf<ReluKernel>, &support::kVectorFloat},
    {"", "LeakyRelu", 1, 17, WithHalf<LeakyReluKernel>, &support::kVectorFloat},
    {"", "PRelu", 1, 6, WithHalf<LegacyPReluKernel>, &support::kVectorFloat},
    {"", "PRelu", 7, 17, WithHalf<PReluKernel>, &support::kVectorFloat},
    {"", "Elu", 1, 17, WithHalf<EluKernel>, &support::kVectorFloat},
    {"", "Selu", 1, 17, WithHalf<SeluKernel>, &support::kVectorFloat},
    {"", "Celu", 12, 17, WithHalf<CeluKernel>, &support::kVectorFloat},
    {"", "Sigmoid", 1, 17, WithHalf<SigmoidKernel>, &support::kVectorFloat},
    {"", "HardSigmoid", 1, 17, WithHalf<HardSigmoidKernel>, &support::kVectorFloat},
    {"", "HardSwish", 14, 17, WithHalf<HardSwishKernel>, &support::kVectorFloat},
    {"", "Softplus", 1, 17, WithHalf<SoftplusKernel>, &support::kVectorFloat},
    {"", "Softsign", 1, 17, WithHalf<SoftsignKernel>, &support::kVectorFloat},
    {"", "ThresholdedRelu", 10, 17, WithHalf<ThresholdedReluKernel>, &support::kVectorFloat},
    {"", "Shrink", 9, 17, WithHalf<ShrinkKernel>, &support::kVectorFloat},
};

}  // namespace

std::span<const OpRow> ActivationOps() { return kActivationRows; }

}  // namespace npugap::exec
