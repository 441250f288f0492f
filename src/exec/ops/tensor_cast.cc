// Tensor op family, type conversion: Cast and CastLike between every numeric type, bool,
// float16, bfloat16 and string.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "npugap/numerics/half.h"
#include "tensor_internal.h"

namespace npugap::exec::tensor_ops {
namespace {

using ir::BFloat16Bits;
using ir::Float16Bits;

// Every element type Cast converts, with float16/bfloat16 as their bit structs.
template <typename F>
bool DispatchCastType(DType t, F&& f) {
  switch (t) {
    case DType::kBool:
      f.template operator()<bool>();
      return true;
    case DType::kFloat16:
      f.template operator()<Float16Bits>();
      return true;
    case DType::kBFloat16:
      f.template operator()<BFloat16Bits>();
      return true;
    default:
      return DispatchNumeric(t, f);
  }
}

// An element as a C++ arithmetic value (the 16-bit floats widened to float).
template <typename S>
auto Load(S v) {
  if constexpr (std::is_same_v<S, Float16Bits>) {
    return numerics::HalfToFloat(v.bits);
  } else if constexpr (std::is_same_v<S, BFloat16Bits>) {
    return numerics::BFloat16ToFloat(v.bits);
  } else {
    return v;
  }
}

// Float to integer without undefined behaviour: truncation toward zero, then wrap-around into D
// like the int64 conversion of x86 (-1.0 -> uint8 255, as numpy gives). NaN gives 0 and values
// outside the int64 (uint64) range saturate.
template <typename D>
D FloatToInteger(double v) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if constexpr (std::is_same_v<D, uint64_t>) {
    if (v >= 0)
      return v < 18446744073709551616.0 ? static_cast<uint64_t>(v) : std::numeric_limits<uint64_t>::max();
  }
  if (v >= 9223372036854775808.0) return std::numeric_limits<D>::max();
  if (v < -9223372036854775808.0) return std::numeric_limits<D>::min();
  return static_cast<D>(static_cast<int64_t>(v));
}

// A value (after Load) stored as element type D. float16/bfloat16 round to nearest even through
// float32 (see the report about ONNX 1.12's truncating bfloat16 test data).
template <typename D, typename V>
D Store(V v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != V{0};
  } else if constexpr (std::is_same_v<D, Float16Bits>) {
    return {numerics::FloatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<D, BFloat16Bits>) {
    return {numerics::FloatToBFloat16(static_cast<float>(v))};
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<V>) {
    return FloatToInteger<D>(static_cast<double>(v));
  } else {
    return static_cast<D>(v);  // integer to integer wraps around (well defined in C++20)
  }
}

// Shortest decimal that reads back to the same value, laid out like numpy's str(): positional
// for 1e-4 <= |v| < 1e16 (with ".0" for integral values), scientific otherwise. Special values
// use ONNX's literals "NaN", "INF", "-INF", which Cast reads back.
template <typename V>
std::string FormatFloat(V v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buffer[64];
  const V magnitude = std::abs(v);
  const bool positional = magnitude == 0 || (magnitude >= V(1e-4) && magnitude < V(1e16));
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), v,
                                    positional ? std::chars_format::fixed : std::chars_format::scientific);
  std::string text(buffer, result.ptr);
  if (positional && text.find('.') == std::string::npos) text += ".0";
  return text;
}

template <typename V>
std::string FormatValue(V v) {
  if constexpr (std::is_same_v<V, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_floating_point_v<V>) {
    return FormatFloat(v);
  } else {
    return std::to_string(v);
  }
}

// Parses a number as Cast reads strings: plain or scientific notation, an optional sign, and
// case-insensitive "INF", "+INF", "-INF", "NaN" (std::from_chars takes inf/nan in any case).
template <typename V>
bool ParseNumber(const std::string& text, V* out) {
  size_t begin = text.find_first_not_of(" \t\n\r");
  size_t end = text.find_last_not_of(" \t\n\r");
  if (begin == std::string::npos) return false;
  ++end;
  if (text[begin] == '+') ++begin;
  if (begin >= end || text[begin] == '+') return false;
  const char* first = text.data() + begin;
  const char* last = text.data() + end;
  if constexpr (std::is_floating_point_v<V>) {
    const auto result = std::from_chars(first, last, *out, std::chars_format::general);
    return result.ec == std::errc() && result.ptr == last;
  } else {
    const auto result = std::from_chars(first, last, *out);
    return result.ec == std::errc() && result.ptr == last;
  }
}

template <typename D>
bool ParseElement(const std::string& text, D* out) {
  if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    if (ParseNumber(text, out)) return true;  // exact for integers of any size
    double v = 0;
    if (!ParseNumber(text, &v)) return false;  // "100.5" -> 100
    *out = FloatToInteger<D>(v);
    return true;
  } else if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    return ParseNumber(text, out);
  } else {
    float v = 0;  // bool and the 16-bit floats
    if (!ParseNumber(text, &v)) return false;
    *out = Store<D>(v);
    return true;
  }
}

// TensorProto.DataType names, for Cast-1's string `to` attribute.
DType DTypeFromName(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"FLOAT", DType::kFloat32},         {"UINT8", DType::kUInt8},       {"INT8", DType::kInt8},
      {"UINT16", DType::kUInt16},         {"INT16", DType::kInt16},       {"INT32", DType::kInt32},
      {"INT64", DType::kInt64},           {"STRING", DType::kString},     {"BOOL", DType::kBool},
      {"FLOAT16", DType::kFloat16},       {"DOUBLE", DType::kFloat64},    {"UINT32", DType::kUInt32},
      {"UINT64", DType::kUInt64},         {"BFLOAT16", DType::kBFloat16}, {"COMPLEX64", DType::kComplex64},
      {"COMPLEX128", DType::kComplex128},
  };
  for (const auto& [n, t] : kNames) {
    if (name == n) return t;
  }
  return DType::kUndefined;
}

Status CastTo(KernelContext& ctx, DType to) {
  const Tensor& data = ctx.input(0);
  const DType from = data.dtype();
  if (from == to) {
    ctx.outputs[0] = data;
    return Status::Ok();
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, to, data.shape()));
  const int64_t n = data.numel();
  constexpr int64_t kGrain = 1 << 14;
  if (from == DType::kString) {
    const std::vector<std::string>& src = data.strings();
    Status status = Status::Ok();
    const bool known = DispatchCastType(to, [&]<typename D>() {
      D* dst = out.data<D>();
      for (int64_t i = 0; i < n && status.ok(); ++i) {
        if (!ParseElement(src[static_cast<size_t>(i)], &dst[i])) {
          status = ctx.Error(
              fmt::format("cannot read \"{}\" as {}", src[static_cast<size_t>(i)], ir::DTypeName(to)));
        }
      }
    });
    if (!known) return ctx.UnsupportedDType(to);
    NPUGAP_RETURN_IF_ERROR(status);
  } else if (to == DType::kString) {
    std::vector<std::string>& dst = out.strings();
    const bool known = DispatchCastType(from, [&]<typename S>() {
      const S* src = data.data<S>();
      ParallelFor(n, kGrain / 16, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[static_cast<size_t>(i)] = FormatValue(Load(src[i]));
      });
    });
    if (!known) return ctx.UnsupportedDType(from);
  } else {
    bool known = false;
    DispatchCastType(from, [&]<typename S>() {
      known = DispatchCastType(to, [&]<typename D>() {
        const S* src = data.data<S>();
        D* dst = out.data<D>();
        ParallelFor(n, kGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) dst[i] = Store<D>(Load(src[i]));
        });
      });
    });
    if (!known) return ctx.UnsupportedDType(DispatchCastType(from, []<typename>() {}) ? to : from);
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace

// `to` is a TensorProto.DataType number, or its name ("FLOAT") in opset 1-5. Same-type casts alias
// the input. No `saturate` (that is opset 19, for float8).
Status CastKernel(KernelContext& ctx) {
  const ir::Attribute* attr = ctx.node.FindAttribute("to");
  if (attr == nullptr) return ctx.Error("missing 'to' attribute");
  DType to = DType::kUndefined;
  if (attr->kind == ir::Attribute::Kind::kString) {
    to = DTypeFromName(attr->s);
    if (to == DType::kUndefined) return ctx.Error(fmt::format("unknown type name '{}'", attr->s));
  } else {
    if (!ir::IsKnownDType(static_cast<int32_t>(attr->i)) || attr->i == 0) {
      return ctx.Error(fmt::format("unknown type {}", attr->i));
    }
    to = static_cast<DType>(attr->i);
  }
  return CastTo(ctx, to);
}

// Casts input 0 to the element type of input 1 (whose values are not read).
Status CastLikeKernel(KernelContext& ctx) {
  if (!ctx.has_input(1)) return ctx.Error("missing target_type input");
  return CastTo(ctx, ctx.input(1).dtype());
}

}  // namespace npugap::exec::tensor_ops
