// Tensor op family, layout ops: Pad, DepthToSpace, SpaceToDepth, ReverseSequence, Compress.
// Like tensor_movement.cc, every kernel moves elements of any fixed-size type (and strings)
// without looking at them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor_internal.h"

namespace npugap::exec::tensor_ops {
namespace {

template <typename F>
Status MoveByType(const KernelContext& ctx, DType dtype, F&& body) {
  return DispatchMovable(dtype, body) ? Status::Ok() : ctx.UnsupportedDType(dtype);
}

// The interior position whose value output position p (along one axis) takes in edge or
// reflect mode; the interior is [begin, begin + length). Reflect repeats with period
// 2 * (length - 1), as numpy.pad does for pads longer than the axis.
int64_t PadSource(int64_t p, int64_t begin, int64_t length, bool reflect) {
  if (!reflect || length == 1) return p < begin ? begin : begin + length - 1;
  const int64_t period = 2 * (length - 1);
  const auto fold = [&](int64_t distance) {
    const int64_t r = distance % period;
    return r <= length - 1 ? r : period - r;
  };
  if (p < begin) return begin + fold(begin - p);
  return begin + length - 1 - fold(p - (begin + length - 1));
}

// Fills the edge/reflect borders of `out`, whose interior (origin `begin`, extent `interior`)
// already holds the data. Axes go innermost first: when axis d is padded, the axes after it are
// complete, so each padded position along d is one contiguous block copied from inside `out`.
template <typename T>
void FillPadBorders(T* out, const Shape& out_shape, const std::vector<int64_t>& begin, const Shape& interior,
                    bool reflect) {
  const std::vector<int64_t> strides = ContiguousStrides(out_shape);
  for (size_t d = out_shape.size(); d-- > 0;) {
    const int64_t length = interior[d];
    if (begin[d] == 0 && begin[d] + length == out_shape[d]) continue;
    const int64_t block = strides[d];
    int64_t rows = 1;
    for (size_t k = 0; k < d; ++k) rows *= interior[k];
    ParallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(block, 1)),
                [&](int64_t first, int64_t last) {
                  for (int64_t row = first; row < last; ++row) {
                    int64_t base = 0;
                    int64_t rest = row;
                    for (size_t k = d; k-- > 0;) {
                      base += (begin[k] + rest % interior[k]) * strides[k];
                      rest /= interior[k];
                    }
                    for (int64_t p = 0; p < out_shape[d]; ++p) {
                      if (p == begin[d]) p = begin[d] + length;  // skip the interior
                      if (p >= out_shape[d]) break;
                      const int64_t src = PadSource(p, begin[d], length, reflect);
                      std::copy_n(out + base + src * block, block, out + base + p * block);
                    }
                  }
                });
  }
}

}  // namespace

// pads are [x1_begin, x2_begin, ..., x1_end, x2_end]: the "paddings" attribute in opset 1, "pads"
// in 2-10, an input from 11 (with the constant as an optional input instead of the float "value"
// attribute). Negative pads crop; edge/reflect pad the cropped data.
Status PadKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const int64_t rank = data.rank();
  const std::string mode = ctx.node.GetString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return ctx.Error(fmt::format("unknown mode '{}'", mode));
  }
  std::vector<int64_t> pads;
  if (ctx.opset < 11) {
    pads = ctx.node.GetInts(ctx.opset < 2 ? "paddings" : "pads");
  } else {
    if (!ctx.has_input(1)) return ctx.Error("missing pads input");
    NPUGAP_ASSIGN_OR_RETURN(pads, ReadInt64s(ctx, ctx.input(1), "pads"));
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    return ctx.Error(fmt::format("{} pads for an input of rank {} (need {})", pads.size(), rank, 2 * rank));
  }
  Shape out_shape(static_cast<size_t>(rank)), interior(static_cast<size_t>(rank));
  std::vector<int64_t> dst_begin(static_cast<size_t>(rank)), src_begin(static_cast<size_t>(rank));
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    const int64_t before = pads[d], after = pads[d + static_cast<size_t>(rank)];
    out_shape[d] = data.shape()[d] + before + after;
    if (out_shape[d] < 0) {
      return ctx.Error(fmt::format("pads [{}] crop axis {} below zero", fmt::join(pads, ","), d));
    }
    src_begin[d] = std::max<int64_t>(-before, 0);
    dst_begin[d] = std::max<int64_t>(before, 0);
    interior[d] = std::max<int64_t>(data.shape()[d] - src_begin[d] - std::max<int64_t>(-after, 0), 0);
    if (mode != "constant" && interior[d] == 0 && out_shape[d] > 0) {
      return ctx.Error(fmt::format("cannot {}-pad axis {}, which has no elements", mode, d));
    }
  }
  // The constant, as bytes of the element type (fixed-size types) or as a string.
  unsigned char constant[16] = {};
  std::string string_constant;
  if (mode == "constant") {
    if (ctx.opset < 11) {
      if (data.dtype() != DType::kString &&
          !EncodeScalar(data.dtype(), ctx.node.GetFloat("value", 0), constant)) {
        return ctx.UnsupportedDType(data.dtype());
      }
    } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
      const Tensor& value = ctx.input(2);
      if (value.dtype() != data.dtype())
        return ctx.Error("constant_value has a different element type than data");
      if (value.dtype() == DType::kString) {
        string_constant = value.strings()[0];
      } else if (DTypeSize(value.dtype()) <= sizeof(constant)) {
        std::memcpy(constant, value.raw_data(), DTypeSize(value.dtype()));
      }
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), out_shape));
  const std::vector<int64_t> out_strides = ContiguousStrides(out_shape);
  const std::vector<int64_t> in_strides = ContiguousStrides(data.shape());
  int64_t dst_offset = 0, src_offset = 0;
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    dst_offset += dst_begin[d] * out_strides[d];
    src_offset += src_begin[d] * in_strides[d];
  }
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
    T* dst = Elements<T>(out);
    if (mode == "constant") {
      T value;
      if constexpr (std::is_same_v<T, std::string>) {
        value = string_constant;
      } else {
        std::memcpy(&value, constant, sizeof(T));
      }
      ParallelFor(out.numel(), 1 << 16, [&](int64_t b, int64_t e) { std::fill(dst + b, dst + e, value); });
    }
    if (out.numel() == 0) return;
    StridedCopy(dst + dst_offset, out_strides, Elements<T>(data) + src_offset, in_strides, interior);
    if (mode != "constant") FillPadBorders(dst, out_shape, dst_begin, interior, mode == "reflect");
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// [N, C, H, W] -> [N, C/b^2, H*b, W*b]. DCR (the only mode before opset 11) takes the channel as
// (b, b, C'); CRD as (C', b, b). Both are a 6-D transpose.
Status DepthToSpaceKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() != 4)
    return ctx.Error(fmt::format("input must be 4-D, got {}", ir::ShapeToString(data.shape())));
  const int64_t b = ctx.node.GetInt("blocksize", 0);
  const std::string mode = ctx.opset >= 11 ? ctx.node.GetString("mode", "DCR") : "DCR";
  const int64_t n = data.dim(0), c = data.dim(1), h = data.dim(2), w = data.dim(3);
  if (b <= 0 || c % (b * b) != 0) {
    return ctx.Error(fmt::format("blocksize {} does not divide {} channels into blocksize^2 groups", b, c));
  }
  Shape view;
  std::vector<int64_t> perm;
  if (mode == "DCR") {
    view = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (mode == "CRD") {
    view = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    return ctx.Error(fmt::format("unknown mode '{}'", mode));
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), {n, c / (b * b), h * b, w * b}));
  NPUGAP_RETURN_IF_ERROR(PermuteInto(ctx, data, view, perm, out));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// [N, C, H, W] -> [N, C*b^2, H/b, W/b], the inverse of DepthToSpace in DCR mode.
Status SpaceToDepthKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() != 4)
    return ctx.Error(fmt::format("input must be 4-D, got {}", ir::ShapeToString(data.shape())));
  const int64_t b = ctx.node.GetInt("blocksize", 0);
  const int64_t n = data.dim(0), c = data.dim(1), h = data.dim(2), w = data.dim(3);
  if (b <= 0 || h % b != 0 || w % b != 0) {
    return ctx.Error(fmt::format("blocksize {} does not divide the spatial dims {}x{}", b, h, w));
  }
  const Shape view = {n, c, h / b, b, w / b, b};
  const std::vector<int64_t> perm = {0, 3, 5, 1, 2, 4};
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), {n, c * b * b, h / b, w / b}));
  NPUGAP_RETURN_IF_ERROR(PermuteInto(ctx, data, view, perm, out));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Reverses the first sequence_lens[i] steps along time_axis for each batch entry i; the rest
// is copied. time_axis and batch_axis are 0 and 1 in either order.
Status ReverseSequenceKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() < 2) return ctx.Error("input must have rank >= 2");
  const int64_t batch_axis = ctx.node.GetInt("batch_axis", 1);
  const int64_t time_axis = ctx.node.GetInt("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    return ctx.Error(fmt::format("batch_axis {} and time_axis {} must be 0 and 1", batch_axis, time_axis));
  }
  if (!ctx.has_input(1)) return ctx.Error("missing sequence_lens input");
  NPUGAP_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, ReadInt64s(ctx, ctx.input(1), "sequence_lens"));
  const int64_t batch = data.dim(batch_axis), steps = data.dim(time_axis);
  if (static_cast<int64_t>(lengths.size()) != batch) {
    return ctx.Error(fmt::format("{} sequence_lens for a batch of {}", lengths.size(), batch));
  }
  for (int64_t len : lengths) {
    if (len < 0 || len > steps)
      return ctx.Error(fmt::format("sequence length {} is not in [0, {}]", len, steps));
  }
  int64_t inner = 1;
  for (int64_t d = 2; d < data.rank(); ++d) inner *= data.dim(d);
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), data.shape()));
  const auto row = [&](int64_t b, int64_t t) {
    return (time_axis == 0 ? t * batch + b : b * steps + t) * inner;
  };
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(data);
    T* dst = Elements<T>(out);
    ParallelFor(batch * steps, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    const int64_t b = i / steps, t = i % steps;
                    const int64_t len = lengths[static_cast<size_t>(b)];
                    const int64_t from = t < len ? len - 1 - t : t;
                    std::copy_n(src + row(b, from), inner, dst + row(b, t));
                  }
                });
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Keeps the slices along axis whose condition is true (the flattened input without axis), like
// numpy.compress: a condition shorter than the axis drops the rest; one longer may only hold
// false past the end.
Status CompressKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (!ctx.has_input(1)) return ctx.Error("missing condition input");
  const Tensor& condition = ctx.input(1);
  if (condition.rank() != 1) return ctx.Error("condition must be 1-D");
  if (condition.dtype() != DType::kBool) {
    return ctx.Error(fmt::format("condition must be bool, got {}", ir::DTypeName(condition.dtype())));
  }
  const bool has_axis = ctx.node.FindAttribute("axis") != nullptr;
  int64_t axis = 0, outer = 1, dim = data.numel(), inner = 1;
  if (has_axis) {
    NPUGAP_ASSIGN_OR_RETURN(axis, NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), data.rank(), "axis"));
    dim = data.dim(axis);
    for (int64_t d = 0; d < axis; ++d) outer *= data.dim(d);
    for (int64_t d = axis + 1; d < data.rank(); ++d) inner *= data.dim(d);
  }
  const bool* keep = condition.data<bool>();
  // Runs of consecutive kept indices: (first index, length).
  std::vector<std::pair<int64_t, int64_t>> runs;
  int64_t kept = 0;
  for (int64_t i = 0; i < condition.numel(); ++i) {
    if (!keep[i]) continue;
    if (i >= dim) return ctx.Error(fmt::format("condition selects index {} of an axis of size {}", i, dim));
    if (!runs.empty() && runs.back().first + runs.back().second == i) {
      ++runs.back().second;
    } else {
      runs.emplace_back(i, 1);
    }
    ++kept;
  }
  Shape out_shape = {kept};
  if (has_axis) {
    out_shape = data.shape();
    out_shape[static_cast<size_t>(axis)] = kept;
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), out_shape));
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(data);
    T* dst = Elements<T>(out);
    ParallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(kept * inner, 1)),
                [&](int64_t first, int64_t last) {
                  for (int64_t o = first; o < last; ++o) {
                    T* row = dst + o * kept * inner;
                    for (const auto& [start, length] : runs) {
                      std::copy_n(src + (o * dim + start) * inner, length * inner, row);
                      row += length * inner;
                    }
                  }
                });
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace npugap::exec::tensor_ops
