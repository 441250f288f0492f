// Tensor op family: shape and data-movement ops. This file holds the op rows, the shared helpers
// of tensor_internal.h and the ops that only change metadata (they alias the input buffer).
// Data movement is in tensor_movement.cc, generators in tensor_generate.cc, Cast in
// tensor_cast.cc.
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "npugap/exec/op_table.h"
#include "npugap/numerics/half.h"
#include "tensor_internal.h"

namespace npugap::exec {
namespace tensor_ops {

// ---- helpers -------------------------------------------------------------------------------

Expected<Tensor> NewTensor(const KernelContext& ctx, DType dtype, Shape shape) {
  auto t = Tensor::Create(dtype, std::move(shape));
  if (!t.ok()) return ctx.Error(t.status().message());
  return t;
}

Expected<std::vector<int64_t>> ReadInt64s(const KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.rank() > 1) {
    return ctx.Error(
        fmt::format("{} must be a 1-D tensor, got shape {}", what, ir::ShapeToString(t.shape())));
  }
  std::vector<int64_t> values(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kInt64) {
    std::copy_n(t.data<int64_t>(), t.numel(), values.begin());
  } else if (t.dtype() == DType::kInt32) {
    std::copy_n(t.data<int32_t>(), t.numel(), values.begin());
  } else {
    return ctx.Error(fmt::format("{} must be int32 or int64, got {}", what, ir::DTypeName(t.dtype())));
  }
  return values;
}

Expected<double> ReadScalarDouble(const KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.numel() != 1) {
    return ctx.Error(
        fmt::format("{} must have one element, got shape {}", what, ir::ShapeToString(t.shape())));
  }
  double value = 0;
  bool known = DispatchNumeric(t.dtype(), [&]<typename T>() { value = static_cast<double>(*t.data<T>()); });
  if (t.dtype() == DType::kBool) {
    value = *t.data<bool>() ? 1 : 0;
    known = true;
  } else if (t.dtype() == DType::kFloat16) {
    value = numerics::HalfToFloat(*t.data<uint16_t>());
    known = true;
  } else if (t.dtype() == DType::kBFloat16) {
    value = numerics::BFloat16ToFloat(*t.data<uint16_t>());
    known = true;
  }
  if (!known) return ctx.Error(fmt::format("{} must be numeric, got {}", what, ir::DTypeName(t.dtype())));
  return value;
}

Expected<int64_t> ReadScalarInt64(const KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.numel() == 1 && t.dtype() == DType::kInt64) return *t.data<int64_t>();
  NPUGAP_ASSIGN_OR_RETURN(double value, ReadScalarDouble(ctx, t, what));
  if (!(std::abs(value) < 9.2e18))
    return ctx.Error(fmt::format("{} = {} is out of the int64 range", what, value));
  return static_cast<int64_t>(value);
}

Expected<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

namespace {

// double -> T without undefined behaviour: NaN becomes 0, out-of-range values saturate.
template <typename T>
T SaturatingCast(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

}  // namespace

bool EncodeScalar(DType dtype, double value, void* out) {
  switch (dtype) {
    case DType::kBool:
      *static_cast<bool*>(out) = value != 0;
      return true;
    case DType::kFloat16:
      *static_cast<uint16_t*>(out) = numerics::FloatToHalf(static_cast<float>(value));
      return true;
    case DType::kBFloat16:
      *static_cast<uint16_t*>(out) = numerics::FloatToBFloat16(static_cast<float>(value));
      return true;
    default:
      return DispatchNumeric(dtype, [&]<typename T>() { *static_cast<T*>(out) = SaturatingCast<T>(value); });
  }
}

std::vector<CopyDim> CoalesceCopyDims(std::span<const int64_t> shape, std::span<const int64_t> dst_strides,
                                      std::span<const int64_t> src_strides, bool* empty) {
  std::vector<CopyDim> merged;
  *empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      *empty = true;
      return {};
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    const CopyDim d{shape[i], dst_strides[i], src_strides[i]};
    if (!merged.empty()) {
      CopyDim& outer = merged.back();
      if (outer.dst_stride == d.dst_stride * d.size && outer.src_stride == d.src_stride * d.size) {
        outer = {outer.size * d.size, d.dst_stride, d.src_stride};
        continue;
      }
    }
    merged.push_back(d);
  }
  return merged;
}

Status PermuteInto(const KernelContext& ctx, const Tensor& in, const Shape& in_shape,
                   std::span<const int64_t> perm, Tensor& out) {
  const std::vector<int64_t> in_strides = ContiguousStrides(in_shape);
  std::vector<int64_t> src_strides(perm.size());
  Shape out_shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    src_strides[i] = in_strides[static_cast<size_t>(perm[i])];
    out_shape[i] = in_shape[static_cast<size_t>(perm[i])];
  }
  const bool known = DispatchMovable(in.dtype(), [&]<typename T>() {
    StridedCopyToContiguous(Elements<T>(out), Elements<T>(in), src_strides, out_shape);
  });
  return known ? Status::Ok() : ctx.UnsupportedDType(in.dtype());
}

// ---- metadata-only kernels -----------------------------------------------------------------

namespace {

Status Unsupported(const KernelContext& ctx, const std::string& what) {
  return Status::Unsupported(fmt::format("node '{}' ({}): {}", ctx.node.name, ctx.node.op_type, what));
}

template <typename T>
Tensor VectorTensor(DType dtype, Shape shape, const std::vector<T>& values) {
  Tensor t = Tensor::Empty(dtype, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

// The axes of Squeeze/Unsqueeze: an attribute before opset 13, an input from 13.
Expected<std::optional<std::vector<int64_t>>> ReadAxes(const KernelContext& ctx) {
  if (ctx.opset < 13) {
    const ir::Attribute* attr = ctx.node.FindAttribute("axes");
    if (attr == nullptr) return std::optional<std::vector<int64_t>>{};
    return std::optional<std::vector<int64_t>>{attr->ints};
  }
  if (!ctx.has_input(1)) return std::optional<std::vector<int64_t>>{};
  NPUGAP_ASSIGN_OR_RETURN(auto axes, ReadInt64s(ctx, ctx.input(1), "axes"));
  return std::optional<std::vector<int64_t>>{std::move(axes)};
}

}  // namespace

// The value comes from exactly one attribute; sparse_value (dropped by the importer) is not
// supported. The output shares the attribute's buffer (kernels never write into inputs).
Status ConstantKernel(KernelContext& ctx) {
  const ir::Node& node = ctx.node;
  using K = ir::Attribute::Kind;
  for (const auto& [name, attr] : node.attributes) {
    if (name == "value" && attr.kind == K::kTensor) {
      ctx.outputs[0] = attr.t;
    } else if (name == "value_float" && attr.kind == K::kFloat) {
      ctx.outputs[0] = VectorTensor<float>(DType::kFloat32, {}, {attr.f});
    } else if (name == "value_floats" && attr.kind == K::kFloats) {
      ctx.outputs[0] =
          VectorTensor<float>(DType::kFloat32, {static_cast<int64_t>(attr.floats.size())}, attr.floats);
    } else if (name == "value_int" && attr.kind == K::kInt) {
      ctx.outputs[0] = VectorTensor<int64_t>(DType::kInt64, {}, {attr.i});
    } else if (name == "value_ints" && attr.kind == K::kInts) {
      ctx.outputs[0] =
          VectorTensor<int64_t>(DType::kInt64, {static_cast<int64_t>(attr.ints.size())}, attr.ints);
    } else if (name == "value_string" && attr.kind == K::kString) {
      ctx.outputs[0] = Tensor::Empty(DType::kString, {});
      ctx.outputs[0].strings()[0] = attr.s;
    } else if (name == "value_strings" && attr.kind == K::kStrings) {
      ctx.outputs[0] = Tensor::Empty(DType::kString, {static_cast<int64_t>(attr.strings.size())});
      ctx.outputs[0].strings() = attr.strings;
    } else {
      continue;
    }
    return Status::Ok();
  }
  return Unsupported(ctx, "no value attribute that npugap reads (sparse_value is not supported)");
}

// Tensors only: sequence and optional values (opset 14/16) never reach a tensor kernel.
Status IdentityKernel(KernelContext& ctx) {
  ctx.outputs[0] = ctx.input(0);
  return Status::Ok();
}

// Opset 1-4 take the shape as an attribute, 5+ as an input. A 0 copies the input dim unless
// allowzero (14+) is set; one -1 is inferred. The output aliases the input buffer.
Status ReshapeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  std::vector<int64_t> requested;
  if (ctx.opset < 5) {
    requested = ctx.node.GetInts("shape");
  } else {
    if (!ctx.has_input(1)) return ctx.Error("missing shape input");
    NPUGAP_ASSIGN_OR_RETURN(requested, ReadInt64s(ctx, ctx.input(1), "shape"));
  }
  const bool allow_zero = ctx.opset >= 14 && ctx.node.GetInt("allowzero", 0) != 0;
  Shape shape(requested.size());
  int64_t inferred = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == -1) {
      if (inferred >= 0) return ctx.Error("shape has more than one -1");
      inferred = static_cast<int64_t>(i);
      continue;
    }
    if (d == 0 && !allow_zero) {
      if (static_cast<int64_t>(i) >= data.rank()) {
        return ctx.Error(
            fmt::format("shape[{}] = 0 copies a dim the input of rank {} does not have", i, data.rank()));
      }
      d = data.dim(static_cast<int64_t>(i));
    }
    if (d < 0) return ctx.Error(fmt::format("shape[{}] = {} is negative", i, d));
    shape[i] = d;
    if (d != 0 && known_product > std::numeric_limits<int64_t>::max() / d)
      return ctx.Error("shape overflows");
    known_product *= d;
  }
  if (inferred >= 0) {
    if (known_product == 0 || data.numel() % known_product != 0) {
      return ctx.Error(fmt::format("cannot infer the -1 of shape [{}] for {} elements",
                                   fmt::join(requested, ","), data.numel()));
    }
    shape[static_cast<size_t>(inferred)] = data.numel() / known_product;
  } else if (known_product != data.numel()) {
    return ctx.Error(fmt::format("cannot reshape {} ({} elements) to [{}]", ir::ShapeToString(data.shape()),
                                 data.numel(), fmt::join(requested, ",")));
  }
  ctx.outputs[0] = data.Reshaped(std::move(shape));
  return Status::Ok();
}

// 2-D view: dims before axis times dims from axis; axis may equal rank (and be negative, 11+).
Status FlattenKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  int64_t axis = ctx.node.GetInt("axis", 1);
  if (axis < -data.rank() || axis > data.rank()) {
    return ctx.Error(fmt::format("axis {} is out of range for rank {}", axis, data.rank()));
  }
  if (axis < 0) axis += data.rank();
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= data.dim(i);
  const int64_t inner = outer == 0 ? std::accumulate(data.shape().begin() + axis, data.shape().end(),
                                                     int64_t{1}, std::multiplies<>())
                                   : data.numel() / outer;
  ctx.outputs[0] = data.Reshaped({outer, inner});
  return Status::Ok();
}

// Without axes every size-1 dim goes; a listed axis whose dim is not 1 is an error.
Status SqueezeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  NPUGAP_ASSIGN_OR_RETURN(auto axes, ReadAxes(ctx));
  std::vector<bool> drop(static_cast<size_t>(data.rank()), false);
  if (!axes.has_value() || axes->empty()) {  // an empty list means "all", as onnxruntime reads it
    for (int64_t i = 0; i < data.rank(); ++i) drop[static_cast<size_t>(i)] = data.dim(i) == 1;
  } else {
    for (int64_t axis : *axes) {
      NPUGAP_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, axis, data.rank(), "axis"));
      if (data.dim(a) != 1)
        return ctx.Error(fmt::format("cannot squeeze axis {} of size {}", axis, data.dim(a)));
      drop[static_cast<size_t>(a)] = true;
    }
  }
  Shape shape;
  for (int64_t i = 0; i < data.rank(); ++i) {
    if (!drop[static_cast<size_t>(i)]) shape.push_back(data.dim(i));
  }
  ctx.outputs[0] = data.Reshaped(std::move(shape));
  return Status::Ok();
}

// Axes refer to the output's dims (negative ones count from the output's rank).
Status UnsqueezeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  NPUGAP_ASSIGN_OR_RETURN(auto axes, ReadAxes(ctx));
  if (!axes.has_value()) return ctx.Error("missing axes");
  const int64_t out_rank = data.rank() + static_cast<int64_t>(axes->size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t axis : *axes) {
    NPUGAP_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, axis, out_rank, "axis"));
    if (inserted[static_cast<size_t>(a)]) return ctx.Error(fmt::format("axis {} is repeated", axis));
    inserted[static_cast<size_t>(a)] = true;
  }
  Shape shape(static_cast<size_t>(out_rank));
  int64_t next = 0;
  for (size_t i = 0; i < shape.size(); ++i) shape[i] = inserted[i] ? 1 : data.dim(next++);
  ctx.outputs[0] = data.Reshaped(std::move(shape));
  return Status::Ok();
}

// Opset 15 adds start/end, clamped into [0, rank] after adding rank to negative values.
Status ShapeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const int64_t rank = data.rank();
  int64_t start = 0;
  int64_t end = rank;
  if (ctx.opset >= 15) {
    start = ctx.node.GetInt("start", 0);
    end = ctx.node.GetInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
  }
  const int64_t count = std::max<int64_t>(end - start, 0);
  Tensor out = Tensor::Empty(DType::kInt64, {count});
  for (int64_t i = 0; i < count; ++i) out.data<int64_t>()[i] = data.dim(start + i);
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

Status SizeKernel(KernelContext& ctx) {
  ctx.outputs[0] = VectorTensor<int64_t>(DType::kInt64, {}, {ctx.input(0).numel()});
  return Status::Ok();
}

// Inference only: output aliases the input and the mask is all "kept". Training dropout
// (is_test = 0 before opset 7, training_mode = true from 12) draws random masks that cannot be
// reproduced, so it is unsupported unless the ratio is 0. The mask is bool from opset 10, of the
// input's type (ones) before.
Status DropoutKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  bool training = false;
  double ratio = ctx.node.GetFloat("ratio", 0.5f);
  if (ctx.opset < 7) {
    training = ctx.node.GetInt("is_test", 0) == 0;
  } else if (ctx.opset >= 12) {
    if (ctx.has_input(1)) {
      NPUGAP_ASSIGN_OR_RETURN(ratio, ReadScalarDouble(ctx, ctx.input(1), "ratio"));
    } else {
      ratio = 0.5;
    }
    if (ctx.has_input(2)) {
      NPUGAP_ASSIGN_OR_RETURN(double mode, ReadScalarDouble(ctx, ctx.input(2), "training_mode"));
      training = mode != 0;
    }
  }
  if (training && ratio != 0)
    return Unsupported(ctx, "training-mode dropout (random masks are not reproducible)");
  if (training && (ratio < 0 || ratio >= 1))
    return ctx.Error(fmt::format("ratio {} is not in [0, 1)", ratio));
  ctx.outputs[0] = data;
  if (ctx.wants_output(1)) {
    const DType mask_type = ctx.opset >= 10 ? DType::kBool : data.dtype();
    NPUGAP_ASSIGN_OR_RETURN(Tensor mask, NewTensor(ctx, mask_type, data.shape()));
    unsigned char one[16] = {};
    if (!EncodeScalar(mask_type, 1.0, one)) return ctx.UnsupportedDType(mask_type);
    DispatchBySize(mask_type, [&]<typename T>() {
      T value;
      std::memcpy(&value, one, sizeof(T));
      std::fill_n(mask.data<T>(), mask.numel(), value);
    });
    ctx.outputs[1] = std::move(mask);
  }
  return Status::Ok();
}

}  // namespace tensor_ops

std::span<const OpRow> TensorOps() {
  using namespace tensor_ops;  // NOLINT(build/namespaces)
  static const OpRow kRows[] = {
      {"", "Constant", 1, 17, ConstantKernel, &support::kGraphLevel},
      {"", "Identity", 1, 17, IdentityKernel, &support::kMovement},
      {"", "Reshape", 1, 17, ReshapeKernel, &support::kMovement},
      {"", "Flatten", 1, 17, FlattenKernel, &support::kMovement},
      {"", "Squeeze", 1, 17, SqueezeKernel, &support::kMovement},
      {"", "Unsqueeze", 1, 17, UnsqueezeKernel, &support::kMovement},
      {"", "Shape", 1, 17, ShapeKernel, &support::kGraphLevel},
      {"", "Size", 1, 17, SizeKernel, &support::kGraphLevel},
      {"", "Dropout", 1, 17, DropoutKernel, &support::kMovement},
      {"", "Transpose", 1, 17, TransposeKernel, &support::kMovement},
      {"", "Concat", 1, 17, ConcatKernel, &support::kMovement},
      {"", "Split", 1, 17, SplitKernel, &support::kMovement},
      {"", "Slice", 1, 17, SliceKernel, &support::kMovement},
      {"", "Expand", 8, 17, ExpandKernel, &support::kMovement},
      {"", "Tile", 1, 17, TileKernel, &support::kMovement},
      {"", "Pad", 1, 17, PadKernel, &support::kMovement},
      {"", "DepthToSpace", 1, 17, DepthToSpaceKernel, &support::kMovement},
      {"", "SpaceToDepth", 1, 17, SpaceToDepthKernel, &support::kMovement},
      {"", "ReverseSequence", 10, 17, ReverseSequenceKernel, &support::kAiCpuOnly},
      {"", "Compress", 9, 17, CompressKernel, &support::kAiCpuOnly},
      {"", "ConstantOfShape", 9, 17, ConstantOfShapeKernel, &support::kGraphLevel},
      {"", "Range", 11, 17, RangeKernel, &support::kAiCpuOnly},
      {"", "EyeLike", 9, 17, EyeLikeKernel, &support::kAiCpuOnly},
      {"", "Trilu", 14, 17, TriluKernel, &support::kMovement},
      {"", "OneHot", 9, 17, OneHotKernel, &support::kMovement},
      {"", "NonZero", 9, 17, NonZeroKernel, &support::kAiCpuOnly},
      {"", "Cast", 1, 17, CastKernel, &support::kMovement},
      {"", "CastLike", 15, 17, CastLikeKernel, &support::kMovement},
  };
  return kRows;
}

}  // namespace npugap::exec
