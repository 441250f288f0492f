// Indexing op family: Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND here;
// TopK, Unique, CumSum in indexing_sort.cc; Resize, Upsample, GridSample in indexing_resize.cc.
// Data movement kernels dispatch on the element size (any fixed-size dtype, and strings), so they
// never look at the values. Indices may be int32 or int64; negative indices count from the end.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "indexing_internal.h"
#include "npugap/exec/broadcast.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec {
namespace indexing {

Expected<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Status ReadInt64s(const KernelContext& ctx, const Tensor& t, std::vector<int64_t>* values) {
  values->resize(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kInt64) {
    std::copy_n(t.data<int64_t>(), t.numel(), values->begin());
  } else if (t.dtype() == DType::kInt32) {
    std::copy_n(t.data<int32_t>(), t.numel(), values->begin());
  } else {
    return ctx.UnsupportedDType(t.dtype());
  }
  return Status::Ok();
}

Status ReadIndices(const KernelContext& ctx, const Tensor& t, int64_t dim_size, std::vector<int64_t>* indices,
                   std::string_view what) {
  NPUGAP_RETURN_IF_ERROR(ReadInt64s(ctx, t, indices));
  for (int64_t& i : *indices) {
    if (i < -dim_size || i >= dim_size) {
      return ctx.Error(fmt::format("{} {} is out of range for a dimension of size {}", what, i, dim_size));
    }
    if (i < 0) i += dim_size;
  }
  return Status::Ok();
}

int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= shape[i];
  return n;
}

}  // namespace indexing

namespace {

using indexing::CopyElements;
using indexing::ShapeProduct;

// Rows of about this many elements make one ParallelFor grain.
constexpr int64_t kGrainElements = 16384;

int64_t RowGrain(int64_t row_elements) {
  return std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, row_elements));
}

// Gather (1, 11, 13: only the allowed index range changed). Output is
// data.shape[:axis] + indices.shape + data.shape[axis+1:]; each index copies one contiguous slice.
Status GatherKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  if (data.rank() < 1) return ctx.Error("data must have rank >= 1");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis,
                          indexing::NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), data.rank()));
  const int64_t axis_dim = data.dim(axis);
  std::vector<int64_t> indices;
  NPUGAP_RETURN_IF_ERROR(indexing::ReadIndices(ctx, indices_tensor, axis_dim, &indices));

  Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
  out_shape.insert(out_shape.end(), indices_tensor.shape().begin(), indices_tensor.shape().end());
  out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(data.dtype(), out_shape));

  const int64_t outer = ShapeProduct(data.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = ShapeProduct(data.shape(), static_cast<size_t>(axis) + 1, data.shape().size());
  const int64_t count = static_cast<int64_t>(indices.size());
  const bool ok = DispatchMovable(data.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(data);
    T* dst = Elements<T>(out);
    ParallelFor(outer * count, RowGrain(inner), [&](int64_t begin, int64_t end) {
      int64_t o = begin / count;
      int64_t j = begin - o * count;
      for (int64_t row = begin; row < end; ++row) {
        CopyElements(dst + row * inner, src + (o * axis_dim + indices[static_cast<size_t>(j)]) * inner,
                     inner);
        if (++j == count) {
          j = 0;
          ++o;
        }
      }
    });
  });
  if (!ok) return ctx.UnsupportedDType(data.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Shared by GatherElements and ScatterElements: the index tensor has data's rank and, off the axis,
// dims no larger than data's. Calls fn(i, offset) for index element i (row-major, rows [begin, end)
// of the last dim) with `offset` the data offset of its coordinates with the axis coordinate replaced
// by indices[i].
template <typename Fn>
void ForEachElementOffset(const Shape& index_shape, const std::vector<int64_t>& data_strides, int64_t axis,
                          const std::vector<int64_t>& indices, int64_t begin_row, int64_t end_row, Fn&& fn) {
  const int64_t rank = static_cast<int64_t>(index_shape.size());
  const int64_t last = index_shape.back();
  const int64_t axis_stride = data_strides[static_cast<size_t>(axis)];
  const bool axis_is_last = axis == rank - 1;
  for (int64_t row = begin_row; row < end_row; ++row) {
    int64_t base = 0;
    int64_t rest = row;
    for (int64_t d = rank - 2; d >= 0; --d) {
      const int64_t c = rest % index_shape[static_cast<size_t>(d)];
      rest /= index_shape[static_cast<size_t>(d)];
      if (d != axis) base += c * data_strides[static_cast<size_t>(d)];
    }
    const int64_t first = row * last;
    for (int64_t j = 0; j < last; ++j) {
      const int64_t along = indices[static_cast<size_t>(first + j)] * axis_stride;
      fn(first + j, base + along + (axis_is_last ? 0 : j));
    }
  }
}

// Checks the index tensor of GatherElements / ScatterElements against data.
Status CheckElementsShapes(const KernelContext& ctx, const Tensor& data, const Shape& index_shape,
                           int64_t axis) {
  if (static_cast<int64_t>(index_shape.size()) != data.rank()) {
    return ctx.Error(
        fmt::format("indices rank {} differs from data rank {}", index_shape.size(), data.rank()));
  }
  for (int64_t d = 0; d < data.rank(); ++d) {
    if (d != axis && index_shape[static_cast<size_t>(d)] > data.dim(d)) {
      return ctx.Error(fmt::format("indices shape {} exceeds data shape {} on axis {}",
                                   ir::ShapeToString(index_shape), ir::ShapeToString(data.shape()), d));
    }
  }
  return Status::Ok();
}

// GatherElements (11, 13): out[i][j][k] = data[indices[i][j][k]][j][k] for axis 0; out has the
// shape of indices.
Status GatherElementsKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  if (data.rank() < 1) return ctx.Error("data must have rank >= 1");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis,
                          indexing::NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), data.rank()));
  NPUGAP_RETURN_IF_ERROR(CheckElementsShapes(ctx, data, indices_tensor.shape(), axis));
  std::vector<int64_t> indices;
  NPUGAP_RETURN_IF_ERROR(indexing::ReadIndices(ctx, indices_tensor, data.dim(axis), &indices));
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(data.dtype(), indices_tensor.shape()));
  if (out.numel() > 0) {
    const std::vector<int64_t> strides = ContiguousStrides(data.shape());
    const int64_t last = indices_tensor.shape().back();
    const bool ok = DispatchMovable(data.dtype(), [&]<typename T>() {
      const T* src = Elements<T>(data);
      T* dst = Elements<T>(out);
      ParallelFor(out.numel() / last, RowGrain(last), [&](int64_t begin, int64_t end) {
        ForEachElementOffset(indices_tensor.shape(), strides, axis, indices, begin, end,
                             [&](int64_t i, int64_t offset) { dst[i] = src[offset]; });
      });
    });
    if (!ok) return ctx.UnsupportedDType(data.dtype());
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// GatherND (11; batch_dims from 12; 13). The last dim of indices (m) indexes data's dims
// [b, b+m); output is indices.shape[:-1] + data.shape[b+m:], one contiguous slice per index tuple.
Status GatherNDKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  const int64_t batch_dims = ctx.opset >= 12 ? ctx.node.GetInt("batch_dims", 0) : 0;
  const int64_t r = data.rank();
  const int64_t q = indices_tensor.rank();
  if (r < 1 || q < 1) return ctx.Error("data and indices must have rank >= 1");
  if (batch_dims < 0 || batch_dims >= std::min(r, q)) {
    return ctx.Error(
        fmt::format("batch_dims {} must be in [0, min(data rank {}, indices rank {}))", batch_dims, r, q));
  }
  const Shape& ishape = indices_tensor.shape();
  const int64_t m = ishape.back();
  if (m > r - batch_dims) {
    return ctx.Error(
        fmt::format("indices last dim {} exceeds data rank {} - batch_dims {}", m, r, batch_dims));
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (ishape[static_cast<size_t>(d)] != data.dim(d)) {
      return ctx.Error(fmt::format("batch dim {} differs: indices shape {}, data shape {}", d,
                                   ir::ShapeToString(ishape), ir::ShapeToString(data.shape())));
    }
  }
  std::vector<int64_t> raw;
  NPUGAP_RETURN_IF_ERROR(indexing::ReadInt64s(ctx, indices_tensor, &raw));

  const size_t b = static_cast<size_t>(batch_dims);
  Shape out_shape(ishape.begin(), ishape.end() - 1);
  out_shape.insert(out_shape.end(), data.shape().begin() + batch_dims + m, data.shape().end());
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(data.dtype(), out_shape));

  const int64_t slice = ShapeProduct(data.shape(), b + static_cast<size_t>(m), data.shape().size());
  const int64_t batch_stride = ShapeProduct(data.shape(), b, data.shape().size());
  const int64_t tuples_per_batch = ShapeProduct(ishape, b, ishape.size() - 1);
  const int64_t tuples = ShapeProduct(ishape, 0, ishape.size() - 1);
  // Offsets of every tuple in data, validated before any copying.
  const std::vector<int64_t> strides = ContiguousStrides(data.shape());
  std::vector<int64_t> offsets(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = (t / tuples_per_batch) * batch_stride;
    for (int64_t k = 0; k < m; ++k) {
      const int64_t dim = data.dim(batch_dims + k);
      int64_t i = raw[static_cast<size_t>(t * m + k)];
      if (i < -dim || i >= dim) {
        return ctx.Error(
            fmt::format("index {} is out of range for data dim {} of size {}", i, batch_dims + k, dim));
      }
      if (i < 0) i += dim;
      offset += i * strides[b + static_cast<size_t>(k)];
    }
    offsets[static_cast<size_t>(t)] = offset;
  }
  const bool ok = DispatchMovable(data.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(data);
    T* dst = Elements<T>(out);
    ParallelFor(tuples, RowGrain(slice), [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t)
        CopyElements(dst + t * slice, src + offsets[static_cast<size_t>(t)], slice);
    });
  });
  if (!ok) return ctx.UnsupportedDType(data.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

// The `reduction` attribute of ScatterElements / ScatterND (opset 16+; max/min are opset 18 values
// accepted as well).
Expected<Reduction> ParseReduction(const KernelContext& ctx) {
  if (ctx.opset < 16) return Reduction::kNone;
  const std::string r = ctx.node.GetString("reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return ctx.Error(fmt::format("unknown reduction '{}'", r));
}

// Runs write(dst_offset, src_offset, count) on a clone of data, either as a plain copy or, with a
// reduction, combining each destination with the update. Updates apply in index order, so with
// duplicate indices and no reduction the last one wins.
template <typename ForEachUpdate>
Status ScatterInto(KernelContext& ctx, const Tensor& data, const Tensor& updates, Reduction reduction,
                   ForEachUpdate&& for_each_update) {
  if (updates.dtype() != data.dtype()) return ctx.Error("updates and data element types differ");
  Tensor out = data.Clone();
  bool ok;
  if (reduction == Reduction::kNone) {
    ok = DispatchMovable(data.dtype(), [&]<typename T>() {
      T* dst = Elements<T>(out);
      const T* src = Elements<T>(updates);
      for_each_update([&](int64_t d, int64_t s, int64_t n) { CopyElements(dst + d, src + s, n); });
    });
  } else {
    ok = indexing::DispatchArithmetic(data.dtype(), [&]<typename T>() {
      using A = indexing::Arith<T>;
      T* dst = out.data<T>();
      const T* src = updates.data<T>();
      for_each_update([&](int64_t d, int64_t s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const auto a = A::Load(dst[d + i]);
          const auto u = A::Load(src[s + i]);
          typename A::Compute v;
          switch (reduction) {
            case Reduction::kAdd:
              v = a + u;
              break;
            case Reduction::kMul:
              v = a * u;
              break;
            case Reduction::kMax:
              v = std::max(a, u);
              break;
            default:
              v = std::min(a, u);
              break;
          }
          dst[d + i] = A::Store(v);
        }
      });
    });
  }
  if (!ok) return ctx.UnsupportedDType(data.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// ScatterElements (11, 13, 16 adds reduction) and the deprecated Scatter (9, 10), which is the
// same op without reduction: out = data; out[..., indices[i], ...] = updates[i] along axis.
Status ScatterElementsKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  if (data.rank() < 1) return ctx.Error("data must have rank >= 1");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis,
                          indexing::NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), data.rank()));
  NPUGAP_ASSIGN_OR_RETURN(const Reduction reduction,
                          ctx.node.op_type == "Scatter" ? Reduction::kNone : ParseReduction(ctx));
  if (updates.shape() != indices_tensor.shape()) {
    return ctx.Error(fmt::format("updates shape {} differs from indices shape {}",
                                 ir::ShapeToString(updates.shape()),
                                 ir::ShapeToString(indices_tensor.shape())));
  }
  NPUGAP_RETURN_IF_ERROR(CheckElementsShapes(ctx, data, indices_tensor.shape(), axis));
  std::vector<int64_t> indices;
  NPUGAP_RETURN_IF_ERROR(indexing::ReadIndices(ctx, indices_tensor, data.dim(axis), &indices));
  const std::vector<int64_t> strides = ContiguousStrides(data.shape());
  return ScatterInto(ctx, data, updates, reduction, [&](auto&& write) {
    if (indices.empty()) return;
    const int64_t rows = static_cast<int64_t>(indices.size()) / indices_tensor.shape().back();
    ForEachElementOffset(indices_tensor.shape(), strides, axis, indices, 0, rows,
                         [&](int64_t i, int64_t offset) { write(offset, i, 1); });
  });
}

// ScatterND (11, 13, 16 adds reduction): indices[..., k] address slices data[i0, ..., ik-1, :];
// updates has shape indices.shape[:-1] + data.shape[k:].
Status ScatterNDKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  NPUGAP_ASSIGN_OR_RETURN(const Reduction reduction, ParseReduction(ctx));
  const Shape& ishape = indices_tensor.shape();
  if (ishape.empty()) return ctx.Error("indices must have rank >= 1");
  const int64_t k = ishape.back();
  if (k > data.rank())
    return ctx.Error(fmt::format("indices last dim {} exceeds data rank {}", k, data.rank()));
  Shape expected(ishape.begin(), ishape.end() - 1);
  expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
  if (updates.shape() != expected) {
    return ctx.Error(fmt::format("updates shape {} should be {}", ir::ShapeToString(updates.shape()),
                                 ir::ShapeToString(expected)));
  }
  std::vector<int64_t> raw;
  NPUGAP_RETURN_IF_ERROR(indexing::ReadInt64s(ctx, indices_tensor, &raw));
  const std::vector<int64_t> strides = ContiguousStrides(data.shape());
  const int64_t slice = ShapeProduct(data.shape(), static_cast<size_t>(k), data.shape().size());
  const int64_t tuples = ShapeProduct(ishape, 0, ishape.size() - 1);
  std::vector<int64_t> offsets(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dim = data.dim(j);
      int64_t i = raw[static_cast<size_t>(t * k + j)];
      if (i < -dim || i >= dim) {
        return ctx.Error(fmt::format("index {} is out of range for data dim {} of size {}", i, j, dim));
      }
      if (i < 0) i += dim;
      offset += i * strides[static_cast<size_t>(j)];
    }
    offsets[static_cast<size_t>(t)] = offset;
  }
  return ScatterInto(ctx, data, updates, reduction, [&](auto&& write) {
    for (int64_t t = 0; t < tuples; ++t) write(offsets[static_cast<size_t>(t)], t * slice, slice);
  });
}

constexpr OpRow kIndexingOps[] = {
    {"", "Gather", 1, 17, GatherKernel, &support::kMovement},
    {"", "GatherElements", 11, 17, GatherElementsKernel, &support::kMovement},
    {"", "GatherND", 11, 17, GatherNDKernel, &support::kMovement},
    {"", "Scatter", 9, 10, ScatterElementsKernel, &support::kMovement},
    {"", "ScatterElements", 11, 17, ScatterElementsKernel, &support::kMovement},
    {"", "ScatterND", 11, 17, ScatterNDKernel, &support::kMovement},
    {"", "TopK", 1, 17, indexing::TopKKernel, &support::kVectorArith},
    {"", "Unique", 11, 17, indexing::UniqueKernel, &support::kAiCpuOnly},
    {"", "CumSum", 11, 17, indexing::CumSumKernel, &support::kVectorArith},
    {"", "Resize", 10, 17, indexing::ResizeKernel, &support::kResize},
    {"", "Upsample", 7, 9, indexing::UpsampleKernel, &support::kResize},
    {"", "GridSample", 16, 17, indexing::GridSampleKernel, &support::kAiCpuOnly},
};

}  // namespace

std::span<const OpRow> IndexingOps() { return kIndexingOps; }

}  // namespace npugap::exec
