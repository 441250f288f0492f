// Tensor op family, data movement: Transpose, Concat, Split, Slice, Expand, Tile
// (Pad and the layout ops are in tensor_layout.cc). Every kernel works on any fixed-size
// element type (by size) and on strings, and moves contiguous runs with memcpy.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "npugap/exec/broadcast.h"
#include "tensor_internal.h"

namespace npugap::exec::tensor_ops {
namespace {

// Copies n elements, split across threads when the run is long (a single huge Concat/Split
// input would otherwise be copied by one core).
template <typename T>
void ParallelCopy(T* dst, const T* src, int64_t n) {
  constexpr int64_t kGrain = (int64_t{1} << 18) / static_cast<int64_t>(sizeof(T) > 16 ? 16 : sizeof(T));
  if (n < 2 * kGrain) {
    std::copy_n(src, n, dst);
    return;
  }
  ParallelFor(n, kGrain,
              [&](int64_t begin, int64_t end) { std::copy_n(src + begin, end - begin, dst + begin); });
}

// Product of dims in [begin, end).
int64_t DimProduct(const Shape& shape, int64_t begin, int64_t end) {
  int64_t p = 1;
  for (int64_t i = begin; i < end; ++i) p *= shape[static_cast<size_t>(i)];
  return p;
}

// Dispatches a movement body over the element type, or reports the dtype as unsupported.
template <typename F>
Status MoveByType(const KernelContext& ctx, DType dtype, F&& body) {
  return DispatchMovable(dtype, body) ? Status::Ok() : ctx.UnsupportedDType(dtype);
}

}  // namespace

// perm defaults to reversing the dims. The identity permutation aliases the input; everything
// else goes through StridedCopy, which tiles the last-two-dims style swaps (NCHW<->NHWC,
// [B,H,S,D]->[B,H,D,S]) and memcpys runs when the innermost dim stays in place.
Status TransposeKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const int64_t rank = data.rank();
  std::vector<int64_t> perm = ctx.node.GetInts("perm");
  if (ctx.node.FindAttribute("perm") == nullptr) {
    perm.resize(static_cast<size_t>(rank));
    for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return ctx.Error(fmt::format("perm has {} entries for an input of rank {}", perm.size(), rank));
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[static_cast<size_t>(i)];
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
      return ctx.Error(fmt::format("perm [{}] is not a permutation of {} dims", fmt::join(perm, ","), rank));
    }
    seen[static_cast<size_t>(p)] = true;
    identity = identity && p == i;
  }
  if (identity) {
    ctx.outputs[0] = data;
    return Status::Ok();
  }
  Shape out_shape(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    out_shape[static_cast<size_t>(i)] = data.dim(perm[static_cast<size_t>(i)]);
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), out_shape));
  NPUGAP_RETURN_IF_ERROR(PermuteInto(ctx, data, data.shape(), perm, out));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// axis defaults to 1 before opset 4 and is required after. Each output row is the inputs'
// rows one after the other.
Status ConcatKernel(KernelContext& ctx) {
  if (ctx.num_inputs() == 0 || !ctx.has_input(0)) return ctx.Error("no inputs");
  if (ctx.opset >= 4 && ctx.node.FindAttribute("axis") == nullptr) return ctx.Error("missing axis attribute");
  const Tensor& first = ctx.input(0);
  const int64_t rank = first.rank();
  if (rank == 0) return ctx.Error("cannot concatenate scalars");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, ctx.node.GetInt("axis", 1), rank, "axis"));
  Shape out_shape = first.shape();
  out_shape[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Error(fmt::format("input {} is missing", i));
    const Tensor& t = ctx.input(i);
    if (t.dtype() != first.dtype()) return ctx.Error("inputs have different element types");
    bool same = t.rank() == rank;
    for (int64_t d = 0; same && d < rank; ++d) same = d == axis || t.dim(d) == first.dim(d);
    if (!same) {
      return ctx.Error(fmt::format("input {} has shape {}, incompatible with {} on axis {}", i,
                                   ir::ShapeToString(t.shape()), ir::ShapeToString(first.shape()), axis));
    }
    out_shape[static_cast<size_t>(axis)] += t.dim(axis);
  }
  if (ctx.num_inputs() == 1) {
    ctx.outputs[0] = first;
    return Status::Ok();
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, first.dtype(), out_shape));
  const int64_t outer = DimProduct(out_shape, 0, axis);
  const int64_t inner = DimProduct(out_shape, axis + 1, rank);
  const int64_t out_row = out_shape[static_cast<size_t>(axis)] * inner;
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, first.dtype(), [&]<typename T>() {
    T* dst = Elements<T>(out);
    if (outer == 1) {
      int64_t offset = 0;
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        ParallelCopy(dst + offset, Elements<T>(ctx.input(i)), ctx.input(i).numel());
        offset += ctx.input(i).numel();
      }
      return;
    }
    ParallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(out_row, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t o = begin; o < end; ++o) {
                    T* row = dst + o * out_row;
                    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                      const int64_t run = ctx.input(i).dim(axis) * inner;
                      std::copy_n(Elements<T>(ctx.input(i)) + o * run, run, row);
                      row += run;
                    }
                  }
                });
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Split sizes: attribute or 2nd input in opset 1, attribute in 2-12, 2nd input from 13; without
// them the axis is split into as many equal parts as the node has outputs.
Status SplitKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (data.rank() == 0) return ctx.Error("cannot split a scalar");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis,
                          NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), data.rank(), "axis"));
  const int64_t dim = data.dim(axis);
  const int64_t parts = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> split;
  bool has_split = false;
  if (ctx.opset < 13 && ctx.node.FindAttribute("split") != nullptr) {
    split = ctx.node.GetInts("split");
    has_split = true;
  }
  if ((ctx.opset >= 13 || ctx.opset == 1) && ctx.has_input(1)) {
    NPUGAP_ASSIGN_OR_RETURN(split, ReadInt64s(ctx, ctx.input(1), "split"));
    has_split = true;
  }
  if (!has_split || (split.empty() && parts > 0)) {  // an empty list means "equal parts"
    if (parts == 0 || dim % parts != 0) {
      return ctx.Error(fmt::format("axis of size {} cannot be split into {} equal parts", dim, parts));
    }
    split.assign(static_cast<size_t>(parts), dim / parts);
  }
  if (static_cast<int64_t>(split.size()) != parts) {
    return ctx.Error(fmt::format("split has {} sizes for {} outputs", split.size(), parts));
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) return ctx.Error(fmt::format("split [{}] has a negative size", fmt::join(split, ",")));
    total += s;
  }
  if (total != dim) {
    return ctx.Error(
        fmt::format("split [{}] sums to {}, axis {} has size {}", fmt::join(split, ","), total, axis, dim));
  }
  const int64_t outer = DimProduct(data.shape(), 0, axis);
  const int64_t inner = DimProduct(data.shape(), axis + 1, data.rank());
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t size = split[static_cast<size_t>(i)];
    if (ctx.wants_output(static_cast<size_t>(i))) {
      Shape shape = data.shape();
      shape[static_cast<size_t>(axis)] = size;
      NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), shape));
      const int64_t run = size * inner;
      NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
        const T* src = Elements<T>(data) + offset * inner;
        T* dst = Elements<T>(out);
        if (outer == 1) {
          ParallelCopy(dst, src, run);
          return;
        }
        ParallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(run, 1)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t o = begin; o < end; ++o)
                        std::copy_n(src + o * dim * inner, run, dst + o * run);
                    });
      }));
      ctx.outputs[static_cast<size_t>(i)] = std::move(out);
    }
    offset += size;
  }
  return Status::Ok();
}

// starts/ends/axes are attributes before opset 10 and inputs (with steps) from 10. Clamping
// follows the spec: starts into [0, dim] ([0, dim-1] for negative steps), ends into [0, dim]
// ([-1, dim-1] for negative steps), so INT64_MAX / INT64_MIN mean "to the end".
Status SliceKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const int64_t rank = data.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = ctx.node.GetInts("starts");
    ends = ctx.node.GetInts("ends");
    axes = ctx.node.GetInts("axes");
  } else {
    if (!ctx.has_input(1) || !ctx.has_input(2)) return ctx.Error("missing starts or ends input");
    NPUGAP_ASSIGN_OR_RETURN(starts, ReadInt64s(ctx, ctx.input(1), "starts"));
    NPUGAP_ASSIGN_OR_RETURN(ends, ReadInt64s(ctx, ctx.input(2), "ends"));
    if (ctx.has_input(3)) {
      NPUGAP_ASSIGN_OR_RETURN(axes, ReadInt64s(ctx, ctx.input(3), "axes"));
    }
    if (ctx.has_input(4)) {
      NPUGAP_ASSIGN_OR_RETURN(steps, ReadInt64s(ctx, ctx.input(4), "steps"));
    }
  }
  const size_t n = starts.size();
  if (ends.size() != n) return ctx.Error(fmt::format("{} starts but {} ends", n, ends.size()));
  if (axes.empty()) {
    axes.resize(n);
    for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
  }
  if (steps.empty()) steps.assign(n, 1);
  if (axes.size() != n || steps.size() != n) {
    return ctx.Error(fmt::format("{} starts but {} axes and {} steps", n, axes.size(), steps.size()));
  }
  std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
  Shape out_shape = data.shape();
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < n; ++i) {
    NPUGAP_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, axes[i], rank, "axis"));
    const size_t a = static_cast<size_t>(axis);
    if (seen[a]) return ctx.Error(fmt::format("axis {} is repeated", axes[i]));
    seen[a] = true;
    const int64_t dim = data.dim(axis);
    const int64_t s = steps[i];
    if (s == 0) return ctx.Error(fmt::format("step for axis {} is 0", axes[i]));
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t count = 0;
    if (s > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? 1 + (end - start - 1) / s : 0;
    } else if (dim > 0) {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      const int64_t magnitude =
          s == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -s;
      count = start > end ? 1 + (start - end - 1) / magnitude : 0;
    }
    first[a] = count > 0 ? start : 0;
    step[a] = count > 1 ? s : 1;  // a step that is never taken cannot overflow the stride
    out_shape[a] = count;
  }
  if (out_shape == data.shape()) {  // every axis taken whole and forward
    bool whole = true;
    for (int64_t i = 0; i < rank; ++i)
      whole = whole && (step[static_cast<size_t>(i)] == 1 || data.dim(i) <= 1);
    if (whole) {
      ctx.outputs[0] = data;
      return Status::Ok();
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), out_shape));
  const std::vector<int64_t> in_strides = ContiguousStrides(data.shape());
  std::vector<int64_t> src_strides(static_cast<size_t>(rank));
  int64_t src_offset = 0;
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    src_strides[d] = in_strides[d] * step[d];
    src_offset += first[d] * in_strides[d];
  }
  if (out.numel() > 0) {
    NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
      StridedCopyToContiguous(Elements<T>(out), Elements<T>(data) + src_offset, src_strides, out_shape);
    }));
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Bidirectional broadcast of the input to `shape` (a dim of 1 in `shape` keeps the input's dim).
Status ExpandKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  if (!ctx.has_input(1)) return ctx.Error("missing shape input");
  NPUGAP_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadInt64s(ctx, ctx.input(1), "shape"));
  for (int64_t d : shape) {
    if (d < 0) return ctx.Error(fmt::format("shape [{}] has a negative dim", fmt::join(shape, ",")));
  }
  auto out_shape = BroadcastShapes(data.shape(), shape);
  if (!out_shape.ok()) return ctx.Error(out_shape.status().message());
  if (*out_shape == data.shape()) {
    ctx.outputs[0] = data;
    return Status::Ok();
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), *out_shape));
  const std::vector<int64_t> strides = BroadcastStrides(data.shape(), *out_shape);
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
    StridedCopyToContiguous(Elements<T>(out), Elements<T>(data), strides, *out_shape);
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Opset 1 tiles one axis (inputs: tiles, axis scalars); 6+ takes one repeat count per dim.
// The output is read as [r0, d0, r1, d1, ...] with zero strides on the repeat dims.
Status TileKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const int64_t rank = data.rank();
  std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
  if (ctx.opset < 6) {
    if (!ctx.has_input(1) || !ctx.has_input(2)) return ctx.Error("missing tiles or axis input");
    NPUGAP_ASSIGN_OR_RETURN(const int64_t tiles, ReadScalarInt64(ctx, ctx.input(1), "tiles"));
    NPUGAP_ASSIGN_OR_RETURN(const int64_t axis_value, ReadScalarInt64(ctx, ctx.input(2), "axis"));
    NPUGAP_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, axis_value, rank, "axis"));
    repeats[static_cast<size_t>(axis)] = tiles;
  } else {
    if (!ctx.has_input(1)) return ctx.Error("missing repeats input");
    NPUGAP_ASSIGN_OR_RETURN(repeats, ReadInt64s(ctx, ctx.input(1), "repeats"));
  }
  if (static_cast<int64_t>(repeats.size()) != rank) {
    return ctx.Error(fmt::format("{} repeats for an input of rank {}", repeats.size(), rank));
  }
  Shape out_shape(static_cast<size_t>(rank));
  Shape view(static_cast<size_t>(2 * rank));
  std::vector<int64_t> strides(static_cast<size_t>(2 * rank), 0);
  const std::vector<int64_t> in_strides = ContiguousStrides(data.shape());
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    if (repeats[d] < 0)
      return ctx.Error(fmt::format("repeats [{}] has a negative count", fmt::join(repeats, ",")));
    out_shape[d] = data.shape()[d] * repeats[d];
    view[2 * d] = repeats[d];
    view[2 * d + 1] = data.shape()[d];
    strides[2 * d + 1] = in_strides[d];
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, NewTensor(ctx, data.dtype(), out_shape));
  NPUGAP_RETURN_IF_ERROR(MoveByType(ctx, data.dtype(), [&]<typename T>() {
    StridedCopyToContiguous(Elements<T>(out), Elements<T>(data), strides, view);
  }));
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace npugap::exec::tensor_ops
