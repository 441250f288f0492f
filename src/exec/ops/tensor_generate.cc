// Tensor op family, generators and masks: ConstantOfShape, Range, EyeLike, Trilu, OneHot,
// NonZero.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "npugap/numerics/half.h"
#include "tensor_internal.h"

namespace npugap::exec::tensor_ops {
namespace {

// The values of a numeric tensor (any integer or float type, float16/bfloat16 included) as int64,
// floats truncated toward zero. NaN and values outside int64 become `invalid`.
bool ReadAsInt64(const Tensor& t, std::vector<int64_t>& out, int64_t invalid) {
  out.resize(static_cast<size_t>(t.numel()));
  const auto convert = [&](double v) {
    return std::abs(v) < 9.2e18 ? static_cast<int64_t>(v) : invalid;  // NaN compares false
  };
  if (t.dtype() == DType::kInt64) {
    std::copy_n(t.data<int64_t>(), t.numel(), out.begin());
    return true;
  }
  if (t.dtype() == DType::kFloat16 || t.dtype() == DType::kBFloat16) {
    const bool half = t.dtype() == DType::kFloat16;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint16_t bits = t.data<uint16_t>()[i];
      out[static_cast<size_t>(i)] =
          convert(half ? numerics::HalfToFloat(bits) : numerics::BFloat16ToFloat(bits));
    }
    return true;
  }
  return DispatchNumeric(t.dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < t.numel(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        out[static_cast<size_t>(i)] = convert(t.data<T>()[i]);
      } else {
        out[static_cast<size_t>(i)] = static_cast<int64_t>(t.data<T>()[i]);  // uint64 above 2^63 wraps
      }
    }
  });
}

}  // namespace

// The output takes the dtype and the single value of the `value` attribute (float32 0 without).
Status ConstantOfShapeKernel(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.Error("missing shape input");
  NPUGAP_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadInt64s(ctx, ctx.input(0), "shape"));
  for (int64_t d : shape) {
    if (d < 0) return ctx.Error(fmt::format("shape [{}] has a negative dim", fmt::join(shape, ",")));
  }
  const ir::Attribute* attr = ctx.node.FindAttribute("value");
  Tensor value = Tensor::Scalar(0.0f);
  if (attr != nullptr) {
    if (attr->kind != ir::Attribute::Kind::kTensor || attr->t.numel() != 1) {
      return ctx.Error("value must be a one-element tensor");
    }
    value = attr->t;
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, value.dtype(), shape));
  const bool known = DispatchMovable(value.dtype(), [&]<typename T>() {
    const T v = Elements<T>(value)[0];
    T* dst = Elements<T>(out);
    ParallelFor(out.numel(), 1 << 16, [&](int64_t b, int64_t e) { std::fill(dst + b, dst + e, v); });
  });
  if (!known) return ctx.UnsupportedDType(value.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// count = max(ceil((limit - start) / delta), 0); element i = start + i * delta. Integer counts
// are exact; float counts follow onnxruntime (difference in T, division in double).
Status RangeKernel(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.Error("needs start, limit and delta");
  const Tensor& start_t = ctx.input(0);
  const DType dtype = start_t.dtype();
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.input(i).numel() != 1) return ctx.Error("start, limit and delta must be scalars");
    if (ctx.input(i).dtype() != dtype)
      return ctx.Error("start, limit and delta have different element types");
  }
  Status status = Status::Ok();
  Tensor out;
  const bool known = DispatchNumeric(dtype, [&]<typename T>() {
    const T start = *ctx.input(0).data<T>(), limit = *ctx.input(1).data<T>(), delta = *ctx.input(2).data<T>();
    if (delta == T{0}) {
      status = ctx.Error("delta is 0");
      return;
    }
    int64_t count = 0;
    if constexpr (std::is_floating_point_v<T>) {
      const double n = std::ceil(static_cast<double>(limit - start) / static_cast<double>(delta));
      if (std::isnan(n) || n > 9.2e18) {
        status =
            ctx.Error(fmt::format("range from {} to {} by {} has no finite length", start, limit, delta));
        return;
      }
      count = n > 0 ? static_cast<int64_t>(n) : 0;
    } else {
      const __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
      const __int128 step = static_cast<__int128>(delta);
      if ((span > 0) == (step > 0) && span != 0) {
        const __int128 magnitude = span > 0 ? span : -span;
        const __int128 step_magnitude = step > 0 ? step : -step;
        count = static_cast<int64_t>((magnitude + step_magnitude - 1) / step_magnitude);
      }
    }
    auto created = NewTensor(ctx, dtype, {count});
    if (!created.ok()) {
      status = created.status();
      return;
    }
    out = std::move(created).value();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        dst[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      } else {
        dst[i] = static_cast<T>(static_cast<int64_t>(start) + i * static_cast<int64_t>(delta));
      }
    }
  });
  if (!known) return ctx.UnsupportedDType(dtype);
  NPUGAP_RETURN_IF_ERROR(status);
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// A 2-D tensor of zeros with ones on diagonal k, of the `dtype` attribute's type (the input's
// type without it); only the input's shape is read.
Status EyeLikeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() != 2)
    return ctx.Error(fmt::format("input must be 2-D, got {}", ir::ShapeToString(data.shape())));
  DType dtype = data.dtype();
  if (const ir::Attribute* attr = ctx.node.FindAttribute("dtype")) {
    if (!ir::IsKnownDType(static_cast<int32_t>(attr->i)))
      return ctx.Error(fmt::format("unknown dtype {}", attr->i));
    dtype = static_cast<DType>(attr->i);
  }
  const int64_t k = ctx.node.GetInt("k", 0);
  unsigned char one[16] = {};
  if (!EncodeScalar(dtype, 1.0, one)) return ctx.UnsupportedDType(dtype);
  auto zeros = Tensor::Zeros(dtype, data.shape());
  if (!zeros.ok()) return ctx.Error(zeros.status().message());
  Tensor out = std::move(zeros).value();
  const int64_t rows = data.dim(0), cols = data.dim(1);
  auto* bytes = static_cast<unsigned char*>(out.raw_data());
  const size_t size = DTypeSize(dtype);
  for (int64_t i = 0; i < rows; ++i) {
    if (k < cols && k > -rows && i + k >= 0 && i + k < cols) {  // k bounds first: i + k cannot overflow
      std::memcpy(bytes + static_cast<size_t>(i * cols + i + k) * size, one, size);
    }
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix in the last two
// dims and zeroes the rest; k is an optional scalar input.
Status TriluKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() < 2) return ctx.Error("input must have rank >= 2");
  int64_t k = 0;
  if (ctx.has_input(1)) {
    NPUGAP_ASSIGN_OR_RETURN(k, ReadScalarInt64(ctx, ctx.input(1), "k"));
  }
  const bool upper = ctx.node.GetInt("upper", 1) != 0;
  const int64_t rows = data.dim(data.rank() - 2), cols = data.dim(data.rank() - 1);
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);  // beyond these every row is all kept or all zero
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), data.shape()));
  const int64_t matrices = rows * cols == 0 ? 0 : data.numel() / (rows * cols);
  const bool known = DispatchMovable(data.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(data);
    T* dst = Elements<T>(out);
    ParallelFor(matrices * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)),
                [&](int64_t b, int64_t e) {
                  for (int64_t r = b; r < e; ++r) {
                    const int64_t i = r % rows;
                    const T* in_row = src + r * cols;
                    T* out_row = dst + r * cols;
                    if (upper) {  // zeros in [0, i + k)
                      const int64_t zeros = std::clamp<int64_t>(i + k, 0, cols);
                      std::fill_n(out_row, zeros, T{});
                      std::copy(in_row + zeros, in_row + cols, out_row + zeros);
                    } else {  // kept in [0, i + k]
                      const int64_t kept = std::clamp<int64_t>(i + k + 1, 0, cols);
                      std::copy_n(in_row, kept, out_row);
                      std::fill(out_row + kept, out_row + cols, T{});
                    }
                  }
                });
  });
  if (!known) return ctx.UnsupportedDType(data.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Output type = type of `values` ([off, on]); the depth dim is inserted at axis (default -1,
// the new innermost dim). Indices in [-depth, -1] count from the end; others give all-off rows.
Status OneHotKernel(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return ctx.Error("needs indices, depth and values");
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(2);
  NPUGAP_ASSIGN_OR_RETURN(const int64_t depth, ReadScalarInt64(ctx, ctx.input(1), "depth"));
  if (depth < 0) return ctx.Error(fmt::format("depth {} is negative", depth));
  if (values.numel() != 2) return ctx.Error("values must have two elements [off_value, on_value]");
  const int64_t rank = indices.rank();
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis,
                          NormalizeAxis(ctx, ctx.node.GetInt("axis", -1), rank + 1, "axis"));
  std::vector<int64_t> index;
  if (!ReadAsInt64(indices, index, std::numeric_limits<int64_t>::min())) {
    return ctx.Error(fmt::format("indices must be numeric, got {}", ir::DTypeName(indices.dtype())));
  }
  Shape out_shape = indices.shape();
  out_shape.insert(out_shape.begin() + axis, depth);
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= indices.dim(d);
  const int64_t inner = outer == 0 ? 0 : indices.numel() / outer;
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, values.dtype(), out_shape));
  const bool known = DispatchMovable(values.dtype(), [&]<typename T>() {
    const T off = Elements<T>(values)[0], on = Elements<T>(values)[1];
    T* dst = Elements<T>(out);
    std::fill_n(dst, out.numel(), off);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t idx = index[static_cast<size_t>(o * inner + i)];
        if (idx < 0 && idx >= -depth) idx += depth;
        if (idx >= 0 && idx < depth) dst[(o * depth + idx) * inner + i] = on;
      }
    }
  });
  if (!known) return ctx.UnsupportedDType(values.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

namespace {

template <typename T>
bool IsNonZero(T v) {
  return v != T{0};
}

// Indices of the non-zero elements of `data`, in row-major order, as [rank, count].
template <typename T, typename IsSet>
Tensor NonZeroIndices(const KernelContext& ctx, const Tensor& data, IsSet is_set, Status& status) {
  const T* src = data.data<T>();
  int64_t count = 0;
  for (int64_t i = 0; i < data.numel(); ++i) count += is_set(src[i]) ? 1 : 0;
  // A scalar is read as a 1-element vector, as onnxruntime does.
  const int64_t rank = std::max<int64_t>(data.rank(), 1);
  auto created = NewTensor(ctx, DType::kInt64, {rank, count});
  if (!created.ok()) {
    status = created.status();
    return {};
  }
  Tensor out = std::move(created).value();
  int64_t* dst = out.data<int64_t>();
  const Shape shape = data.rank() == 0 ? Shape{1} : data.shape();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t column = 0;
  for (int64_t i = 0; i < data.numel(); ++i) {
    if (is_set(src[i])) {
      for (int64_t d = 0; d < rank; ++d) dst[d * count + column] = index[static_cast<size_t>(d)];
      ++column;
    }
    for (size_t d = static_cast<size_t>(rank); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

Status NonZeroKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  Status status = Status::Ok();
  Tensor out;
  if (data.dtype() == DType::kFloat16 || data.dtype() == DType::kBFloat16) {
    // Both formats are zero exactly when all bits but the sign are clear.
    out = NonZeroIndices<uint16_t>(
        ctx, data, [](uint16_t bits) { return (bits & 0x7fffu) != 0; }, status);
  } else if (data.dtype() == DType::kBool) {
    out = NonZeroIndices<bool>(
        ctx, data, [](bool v) { return v; }, status);
  } else {
    const bool known = DispatchNumeric(
        data.dtype(), [&]<typename T>() { out = NonZeroIndices<T>(ctx, data, IsNonZero<T>, status); });
    if (!known) return ctx.UnsupportedDType(data.dtype());
  }
  NPUGAP_RETURN_IF_ERROR(status);
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace npugap::exec::tensor_ops
