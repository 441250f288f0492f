// Elementwise op family, binary and variadic half: arithmetic (Add, Sub, Mul, Div, Pow, Mod,
// BitShift), logic (And, Or, Xor), comparisons, Where and the variadic Max, Min, Sum, Mean.
// All use numpy (multidirectional) broadcasting through elementwise_internal.h. The unary ops
// live in elementwise_unary.cc; ElementwiseOps() returns the rows of both files.
//
// Binary ops of opsets 1-6 had `broadcast` / `axis` attributes instead of numpy broadcasting;
// the LegacyBroadcast wrapper maps them to it (pytorch-exported opset-6 models use them).
// float16 / bfloat16 are computed in float32 (WithHalf).
// Bool tensors are read as bytes (any non-zero byte is true) and written as 0 / 1.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise_internal.h"

namespace npugap::exec {
namespace elementwise {

Expected<Tensor> HalfToFloat32(const Tensor& t) { return ConvertTo<float>(t); }

Expected<Tensor> Float32ToHalf(const Tensor& t, DType half_type) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(half_type, t.shape()));
  const float* src = t.data<float>();
  uint16_t* dst = out.data<uint16_t>();
  const bool bf = half_type == DType::kBFloat16;
  ParallelFor(t.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = bf ? numerics::FloatToBFloat16(src[i]) : numerics::FloatToHalf(src[i]);
    }
  });
  return out;
}

Status RunViaFloat32(KernelContext& ctx, KernelFn kernel) {
  const DType half = ctx.input(0).dtype();
  std::vector<Tensor> converted(ctx.num_inputs());
  KernelContext inner{ctx.node,        ctx.opset,    {}, std::vector<Tensor>(ctx.num_outputs()),
                      ctx.num_threads, ctx.subgraphs};
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && ctx.input(i).dtype() == half) {
      NPUGAP_ASSIGN_OR_RETURN(converted[i], HalfToFloat32(ctx.input(i)));
      inner.inputs.push_back(&converted[i]);
    } else {
      inner.inputs.push_back(ctx.inputs[i]);
    }
  }
  NPUGAP_RETURN_IF_ERROR(kernel(inner));
  for (size_t i = 0; i < inner.outputs.size(); ++i) {
    Tensor& out = inner.outputs[i];
    if (out.defined() && out.dtype() == DType::kFloat32) {
      NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[i], Float32ToHalf(out, half));
    } else {
      ctx.outputs[i] = std::move(out);
    }
  }
  return Status::Ok();
}

}  // namespace elementwise

namespace {

using namespace elementwise;  // NOLINT(build/namespaces): this file's own helpers

// ---- shared binary plumbing -------------------------------------------------

// Checks the two inputs of a binary op (present, same dtype) and their broadcast shape.
Expected<Shape> BinaryOutputShape(const KernelContext& ctx, bool same_dtype = true) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 2));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (same_dtype && a.dtype() != b.dtype()) {
    return ctx.Error("input element types differ: " + std::string(ir::DTypeName(a.dtype())) + " and " +
                     std::string(ir::DTypeName(b.dtype())));
  }
  auto shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) return ctx.Error(shape.status().message());
  return std::move(shape).value();
}

// Output 0 = op(input 0, input 1) with inputs of element type A, B and output of type O.
// out_dtype differs from O's only for bool outputs, which are written as uint8_t.
template <typename A, typename B, typename O, typename Op>
Status RunBinary(KernelContext& ctx, const Tensor& a, const Tensor& b, const Shape& out_shape, Op op,
                 DType out_dtype = ir::DTypeOf<O>::value) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(out_dtype, out_shape));
  BinaryBroadcast(a.data<A>(), a.shape(), b.data<B>(), b.shape(), out.data<O>(), out_shape, out.numel(), op);
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

template <typename T>
bool AnyZero(const Tensor& t) {
  const T* p = t.data<T>();
  return std::any_of(p, p + t.numel(), [](T v) { return v == T{0}; });
}

// Opsets 1-6 of the binary ops had no numpy broadcasting. With broadcast=1, B's dims match a
// contiguous run of A's dims starting at `axis` (default: A's trailing dims), size-1 dims of B
// repeat, and only B is broadcast; a one-element B is a scalar. With broadcast=0 the shapes must
// be equal. B is given the equivalent numpy shape (ones around its dims) and the kernel runs.
template <KernelFn kKernel>
Status LegacyBroadcast(KernelContext& ctx) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 2));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (ctx.node.GetInt("broadcast", 0) == 0) {
    if (a.shape() != b.shape()) {
      return ctx.Error("shapes " + ir::ShapeToString(a.shape()) + " and " + ir::ShapeToString(b.shape()) +
                       " differ and broadcast is 0");
    }
    return kKernel(ctx);
  }
  const int64_t a_rank = a.rank();
  const int64_t b_rank = b.rank();
  Shape b_shape(static_cast<size_t>(a_rank), 1);
  if (b.numel() != 1) {
    int64_t axis = ctx.node.GetInt("axis", a_rank - b_rank);
    if (axis < 0) axis += a_rank;
    if (axis < 0 || axis + b_rank > a_rank) {
      return ctx.Error("axis " + std::to_string(axis) + " does not place B of shape " +
                       ir::ShapeToString(b.shape()) + " inside A of shape " + ir::ShapeToString(a.shape()));
    }
    for (int64_t i = 0; i < b_rank; ++i) {
      const int64_t d = b.dim(i);
      if (d != 1 && d != a.dim(axis + i)) {
        return ctx.Error("B of shape " + ir::ShapeToString(b.shape()) + " does not broadcast to A of shape " +
                         ir::ShapeToString(a.shape()) + " at axis " + std::to_string(axis));
      }
      b_shape[static_cast<size_t>(axis + i)] = d;
    }
  }
  const Tensor b_numpy = b.Reshaped(b_shape);
  KernelContext inner = ctx;
  inner.inputs[1] = &b_numpy;
  NPUGAP_RETURN_IF_ERROR(kKernel(inner));
  ctx.outputs = std::move(inner.outputs);
  return Status::Ok();
}

// ---- arithmetic -------------------------------------------------------------

// Integer results wrap around (two's complement) like ONNX Runtime, without C++ overflow UB.
struct AddOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
    } else {
      return a + b;
    }
  }
};
struct SubOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
    } else {
      return a - b;
    }
  }
};
struct MulOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
    } else {
      return a * b;
    }
  }
};
// Integer division truncates toward zero (C semantics); the one overflowing case, MIN / -1,
// wraps to MIN instead of trapping. Divisors are checked for zero before the loop.
struct DivOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return b == T(-1) ? WrapNeg(a) : static_cast<T>(a / b);
    } else {
      return static_cast<T>(a / b);
    }
  }
};

template <typename Op>
Status ArithmeticKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Status status;
  const bool known = DispatchNumeric(a.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<Op, DivOp> && std::is_integral_v<T>) {
      if (AnyZero<T>(b)) {
        status = ctx.Error("integer division by zero");
        return;
      }
    }
    status = RunBinary<T, T, T>(ctx, a, b, out_shape, Op{});
  });
  if (!known) return ctx.UnsupportedDType(a.dtype());
  return status;
}

// Integer power by squaring in 64-bit unsigned arithmetic (wraps like repeated multiplication).
// A negative exponent gives the truncated integer of base^exp: 1 for base 1, +-1 for base -1,
// 0 otherwise (0 as well for base 0, where the true result is infinite).
template <typename T>
T IntPow(T base, int64_t exponent) {
  if (exponent < 0) {
    if (base == T(1)) return T(1);
    if constexpr (std::is_signed_v<T>) {
      if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
    }
    return T(0);
  }
  uint64_t result = 1;
  uint64_t factor = static_cast<uint64_t>(static_cast<int64_t>(base));
  for (uint64_t e = static_cast<uint64_t>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= factor;
    factor *= factor;
  }
  return static_cast<T>(result);
}

// Pow: the output has the base's type. Since opset 12 the exponent may have another numeric type;
// it is converted once: to the base type for a float base (exact for every practical exponent),
// to int64 (integer power) or double (pow in double, then saturated) for an integer base.
Status PowKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx, /*same_dtype=*/false));
  const Tensor& base = ctx.input(0);
  const Tensor& exponent = ctx.input(1);
  Status status;
  const bool known = DispatchNumeric(base.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      Tensor exp_t = exponent;
      if (exponent.dtype() != base.dtype()) {
        auto converted = ConvertTo<T>(exponent);
        if (!converted.ok()) {
          status = ctx.UnsupportedDType(exponent.dtype());
          return;
        }
        exp_t = std::move(*converted);
      }
      // x^2 is common (variance, norms) and x * x is its exactly rounded value.
      if (exp_t.numel() == 1 && exp_t.data<T>()[0] == T(2)) {
        status = RunBinary<T, T, T>(ctx, base, exp_t, out_shape, [](T x, T) { return x * x; });
      } else {
        status = RunBinary<T, T, T>(ctx, base, exp_t, out_shape, [](T x, T y) { return std::pow(x, y); });
      }
    } else if (ir::IsInteger(exponent.dtype())) {
      auto exp_t = ConvertTo<int64_t>(exponent);
      if (!exp_t.ok()) {
        status = exp_t.status();
        return;
      }
      status = RunBinary<T, int64_t, T>(ctx, base, *exp_t, out_shape, IntPow<T>);
    } else {
      auto exp_t = ConvertTo<double>(exponent);
      if (!exp_t.ok()) {
        status = ctx.UnsupportedDType(exponent.dtype());
        return;
      }
      status = RunBinary<T, double, T>(ctx, base, *exp_t, out_shape, [](T x, double y) {
        return SaturateCast<T>(std::pow(static_cast<double>(x), y));
      });
    }
  });
  if (!known) return ctx.UnsupportedDType(base.dtype());
  return status;
}

// Mod: fmod=0 (default) takes the sign of the divisor like Python's %, fmod=1 that of the
// dividend like C's fmod. Floats require fmod=1 (the spec says so; ORT rejects fmod=0).
Status ModKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const int64_t fmod = ctx.node.GetInt("fmod", 0);
  if (fmod != 0 && fmod != 1) return ctx.Error("fmod must be 0 or 1, got " + std::to_string(fmod));
  Status status;
  const bool known = DispatchNumeric(a.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      if (fmod != 1) {
        status = ctx.Error("fmod must be 1 for floating-point inputs");
        return;
      }
      status = RunBinary<T, T, T>(ctx, a, b, out_shape, [](T x, T y) { return std::fmod(x, y); });
    } else {
      if (AnyZero<T>(b)) {
        status = ctx.Error("integer modulo by zero");
        return;
      }
      if constexpr (std::is_signed_v<T>) {
        if (fmod == 1) {
          status = RunBinary<T, T, T>(ctx, a, b, out_shape,
                                      [](T x, T y) { return y == T(-1) ? T(0) : static_cast<T>(x % y); });
        } else {
          status = RunBinary<T, T, T>(ctx, a, b, out_shape, [](T x, T y) {
            if (y == T(-1)) return T(0);
            T r = static_cast<T>(x % y);
            if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
            return r;
          });
        }
      } else {
        status = RunBinary<T, T, T>(ctx, a, b, out_shape, [](T x, T y) { return static_cast<T>(x % y); });
      }
    }
  });
  if (!known) return ctx.UnsupportedDType(a.dtype());
  return status;
}

// BitShift on unsigned integers; shifting by the bit width or more gives 0 (C++ leaves it undefined).
Status BitShiftKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx));
  const std::string direction = ctx.node.GetString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return ctx.Error("direction must be \"LEFT\" or \"RIGHT\", got \"" + direction + "\"");
  }
  const bool left = direction == "LEFT";
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Status status;
  const bool known = DispatchInteger(a.dtype(), [&]<typename T>() {
    if constexpr (std::is_unsigned_v<T>) {
      constexpr T kBits = static_cast<T>(sizeof(T) * 8);
      using W = WrapType<T>;
      if (left) {
        status = RunBinary<T, T, T>(ctx, a, b, out_shape, [](T x, T s) {
          return s >= kBits ? T(0) : static_cast<T>(static_cast<W>(x) << s);
        });
      } else {
        status = RunBinary<T, T, T>(ctx, a, b, out_shape, [](T x, T s) {
          return s >= kBits ? T(0) : static_cast<T>(static_cast<W>(x) >> s);
        });
      }
    } else {
      status = ctx.UnsupportedDType(a.dtype());
    }
  });
  if (!known) return ctx.UnsupportedDType(a.dtype());
  return status;
}

// ---- logic and comparisons --------------------------------------------------

template <typename Op>
Status LogicalKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx));
  const Tensor& a = ctx.input(0);
  if (a.dtype() != DType::kBool) return ctx.UnsupportedDType(a.dtype());
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kBool, out_shape));
  BinaryBroadcast(a.data<uint8_t>(), a.shape(), ctx.input(1).data<uint8_t>(), ctx.input(1).shape(),
                  out.data<uint8_t>(), out_shape, out.numel(),
                  [](uint8_t x, uint8_t y) { return static_cast<uint8_t>(Op{}(x != 0, y != 0)); });
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

struct AndOp {
  bool operator()(bool x, bool y) const { return x && y; }
};
struct OrOp {
  bool operator()(bool x, bool y) const { return x || y; }
};
struct XorOp {
  bool operator()(bool x, bool y) const { return x != y; }
};

struct EqualOp {
  template <typename T>
  bool operator()(T x, T y) const {
    return x == y;
  }
};
struct GreaterOp {
  template <typename T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};
struct LessOp {
  template <typename T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};
struct GreaterOrEqualOp {
  template <typename T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};
struct LessOrEqualOp {
  template <typename T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};

// Comparisons output bool; bool inputs are compared as 0 / 1.
template <typename Op>
Status CompareKernel(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Shape out_shape, BinaryOutputShape(ctx));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() == DType::kBool) {
    return RunBinary<uint8_t, uint8_t, uint8_t>(
        ctx, a, b, out_shape, [](uint8_t x, uint8_t y) { return static_cast<uint8_t>(Op{}(x != 0, y != 0)); },
        DType::kBool);
  }
  Status status;
  const bool known = DispatchNumeric(a.dtype(), [&]<typename T>() {
    status = RunBinary<T, T, uint8_t>(
        ctx, a, b, out_shape, [](T x, T y) { return static_cast<uint8_t>(Op{}(x, y)); }, DType::kBool);
  });
  if (!known) return ctx.UnsupportedDType(a.dtype());
  return status;
}

// Where(condition, X, Y): a 3-way broadcast; X and Y are only moved, so any fixed-size type works.
Status WhereKernel(KernelContext& ctx) {
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, 3));
  const Tensor& cond = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  if (cond.dtype() != DType::kBool) return ctx.Error("condition must be bool");
  if (x.dtype() != y.dtype()) return ctx.Error("X and Y element types differ");
  auto xy_shape = BroadcastShapes(x.shape(), y.shape());
  if (!xy_shape.ok()) return ctx.Error(xy_shape.status().message());
  auto out_shape = BroadcastShapes(cond.shape(), *xy_shape);
  if (!out_shape.ok()) return ctx.Error(out_shape.status().message());
  Status status;
  const bool known = DispatchBySize(x.dtype(), [&]<typename T>() {
    auto out = Tensor::Create(x.dtype(), *out_shape);
    if (!out.ok()) {
      status = out.status();
      return;
    }
    TernaryBroadcast(cond.data<uint8_t>(), cond.shape(), x.data<T>(), x.shape(), y.data<T>(), y.shape(),
                     out->template data<T>(), *out_shape, out->numel(),
                     [](uint8_t c, T a, T b) { return c != 0 ? a : b; });
    ctx.outputs[0] = std::move(*out);
  });
  if (!known) return ctx.UnsupportedDType(x.dtype());
  return status;
}

// ---- variadic ---------------------------------------------------------------

// Max / Min propagate NaN like numpy (and ONNX Runtime since 1.x): a NaN input gives NaN.
struct MaxOp {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (x > y || std::isnan(x)) ? x : y;
    } else {
      return x > y ? x : y;
    }
  }
};
struct MinOp {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (x < y || std::isnan(x)) ? x : y;
    } else {
      return x < y ? x : y;
    }
  }
};

enum class VariadicTypes { kNumeric, kFloat };

// Folds op over all inputs with n-way broadcasting: out = op(in0, in1), then out = op(out, ink)
// in place. Mean divides the sum by the input count. One input is returned as is (aliased).
template <typename Op, VariadicTypes kTypes, bool kMean = false>
Status VariadicKernel(KernelContext& ctx) {
  const size_t n = ctx.num_inputs();
  if (n == 0) return ctx.Error("needs at least one input");
  NPUGAP_RETURN_IF_ERROR(RequireInputs(ctx, n));
  const DType dtype = ctx.input(0).dtype();
  Shape out_shape = ctx.input(0).shape();
  for (size_t i = 1; i < n; ++i) {
    if (ctx.input(i).dtype() != dtype) return ctx.Error("input element types differ");
    auto shape = BroadcastShapes(out_shape, ctx.input(i).shape());
    if (!shape.ok()) return ctx.Error(shape.status().message());
    out_shape = std::move(*shape);
  }
  Status status;
  auto body = [&]<typename T>() {
    if (n == 1) {
      ctx.outputs[0] = ctx.input(0);
      return;
    }
    auto out = Tensor::Create(dtype, out_shape);
    if (!out.ok()) {
      status = out.status();
      return;
    }
    T* po = out->template data<T>();
    const int64_t numel = out->numel();
    BinaryBroadcast(ctx.input(0).data<T>(), ctx.input(0).shape(), ctx.input(1).data<T>(),
                    ctx.input(1).shape(), po, out_shape, numel, Op{});
    for (size_t i = 2; i < n; ++i) {
      BinaryBroadcast(po, out_shape, ctx.input(i).data<T>(), ctx.input(i).shape(), po, out_shape, numel,
                      Op{});
    }
    if constexpr (kMean) {
      const T count = static_cast<T>(n);
      UnaryMap(po, po, numel, [count](T v) { return v / count; });
    }
    ctx.outputs[0] = std::move(*out);
  };
  const bool known =
      kTypes == VariadicTypes::kFloat ? DispatchFloat(dtype, body) : DispatchNumeric(dtype, body);
  if (!known) return ctx.UnsupportedDType(dtype);
  return status;
}

}  // namespace

std::span<const OpRow> ElementwiseOps() {
  static constexpr OpRow kBinaryRows[] = {
      // Opsets 1-6: legacy `broadcast` / `axis` attributes (opset 1 also had consumed_inputs,
      // an allocation hint without effect on the result).
      {"", "Add", 1, 6, WithHalf<LegacyBroadcast<ArithmeticKernel<AddOp>>>, &support::kVectorArith},
      {"", "Sub", 1, 6, WithHalf<LegacyBroadcast<ArithmeticKernel<SubOp>>>, &support::kVectorArith},
      {"", "Mul", 1, 6, WithHalf<LegacyBroadcast<ArithmeticKernel<MulOp>>>, &support::kVectorArith},
      {"", "Div", 1, 6, WithHalf<LegacyBroadcast<ArithmeticKernel<DivOp>>>, &support::kVectorArith},
      {"", "Pow", 1, 6, WithHalf<LegacyBroadcast<PowKernel>>, &support::kVectorArith},
      {"", "And", 1, 6, LegacyBroadcast<LogicalKernel<AndOp>>, &support::kVectorArith},
      {"", "Or", 1, 6, LegacyBroadcast<LogicalKernel<OrOp>>, &support::kVectorArith},
      {"", "Xor", 1, 6, LegacyBroadcast<LogicalKernel<XorOp>>, &support::kVectorArith},
      {"", "Equal", 1, 6, WithHalf<LegacyBroadcast<CompareKernel<EqualOp>>>, &support::kVectorArith},
      {"", "Greater", 1, 6, WithHalf<LegacyBroadcast<CompareKernel<GreaterOp>>>, &support::kVectorArith},
      {"", "Less", 1, 6, WithHalf<LegacyBroadcast<CompareKernel<LessOp>>>, &support::kVectorArith},
      {"", "Add", 7, 17, WithHalf<ArithmeticKernel<AddOp>>, &support::kVectorArith},
      {"", "Sub", 7, 17, WithHalf<ArithmeticKernel<SubOp>>, &support::kVectorArith},
      {"", "Mul", 7, 17, WithHalf<ArithmeticKernel<MulOp>>, &support::kVectorArith},
      {"", "Div", 7, 17, WithHalf<ArithmeticKernel<DivOp>>, &support::kVectorArith},
      {"", "Pow", 7, 17, WithHalf<PowKernel>, &support::kVectorArith},
      {"", "Mod", 10, 17, WithHalf<ModKernel>, &support::kVectorArith},
      {"", "BitShift", 11, 17, BitShiftKernel, &support::kVectorArith},
      {"", "And", 7, 17, LogicalKernel<AndOp>, &support::kVectorArith},
      {"", "Or", 7, 17, LogicalKernel<OrOp>, &support::kVectorArith},
      {"", "Xor", 7, 17, LogicalKernel<XorOp>, &support::kVectorArith},
      {"", "Equal", 7, 17, WithHalf<CompareKernel<EqualOp>>, &support::kVectorArith},
      {"", "Greater", 7, 17, WithHalf<CompareKernel<GreaterOp>>, &support::kVectorArith},
      {"", "Less", 7, 17, WithHalf<CompareKernel<LessOp>>, &support::kVectorArith},
      {"", "GreaterOrEqual", 12, 17, WithHalf<CompareKernel<GreaterOrEqualOp>>, &support::kVectorArith},
      {"", "LessOrEqual", 12, 17, WithHalf<CompareKernel<LessOrEqualOp>>, &support::kVectorArith},
      {"", "Where", 9, 17, WhereKernel, &support::kVectorArith},
      // Opsets 1-7 had no broadcasting (equal shapes), which broadcasting handles as well.
      {"", "Max", 1, 17, WithHalf<VariadicKernel<MaxOp, VariadicTypes::kNumeric>>, &support::kVectorArith},
      {"", "Min", 1, 17, WithHalf<VariadicKernel<MinOp, VariadicTypes::kNumeric>>, &support::kVectorArith},
      {"", "Sum", 1, 17, WithHalf<VariadicKernel<AddOp, VariadicTypes::kFloat>>, &support::kVectorArith},
      {"", "Mean", 1, 17, WithHalf<VariadicKernel<AddOp, VariadicTypes::kFloat, true>>,
       &support::kVectorArith},
  };
  static const std::vector<OpRow> rows = JoinRows(kBinaryRows, elementwise::ElementwiseUnaryOps());
  return rows;
}

}  // namespace npugap::exec
