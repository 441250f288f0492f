// Private helpers of the tensor op family (tensor*.cc): the strided copy engine every
// data-movement kernel is built on, type dispatch that includes strings, and small readers for
// shape-like inputs. Not part of the kernel contract.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "npugap/exec/broadcast.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/kernel.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::tensor_ops {

// ---- kernels (rows are listed in tensor.cc) -----------------------------------------------
// tensor.cc
Status ConstantKernel(KernelContext& ctx);
Status IdentityKernel(KernelContext& ctx);
Status ReshapeKernel(KernelContext& ctx);
Status FlattenKernel(KernelContext& ctx);
Status SqueezeKernel(KernelContext& ctx);
Status UnsqueezeKernel(KernelContext& ctx);
Status ShapeKernel(KernelContext& ctx);
Status SizeKernel(KernelContext& ctx);
Status DropoutKernel(KernelContext& ctx);
// tensor_movement.cc
Status TransposeKernel(KernelContext& ctx);
Status ConcatKernel(KernelContext& ctx);
Status SplitKernel(KernelContext& ctx);
Status SliceKernel(KernelContext& ctx);
Status ExpandKernel(KernelContext& ctx);
Status TileKernel(KernelContext& ctx);
Status PadKernel(KernelContext& ctx);
Status DepthToSpaceKernel(KernelContext& ctx);
Status SpaceToDepthKernel(KernelContext& ctx);
Status ReverseSequenceKernel(KernelContext& ctx);
Status CompressKernel(KernelContext& ctx);
// tensor_generate.cc
Status ConstantOfShapeKernel(KernelContext& ctx);
Status RangeKernel(KernelContext& ctx);
Status EyeLikeKernel(KernelContext& ctx);
Status TriluKernel(KernelContext& ctx);
Status OneHotKernel(KernelContext& ctx);
Status NonZeroKernel(KernelContext& ctx);
// tensor_cast.cc
Status CastKernel(KernelContext& ctx);
Status CastLikeKernel(KernelContext& ctx);

// Type dispatch and element access: DispatchMovable and Elements in npugap/exec/dispatch.h.

// Allocates an output tensor; a shape error becomes an error naming the node.
Expected<Tensor> NewTensor(const KernelContext& ctx, DType dtype, Shape shape);

// ---- reading shape-like inputs and attributes ---------------------------------------------

// The values of an int32/int64 tensor of rank 0 or 1 (starts, axes, pads, shape, repeats, ...).
Expected<std::vector<int64_t>> ReadInt64s(const KernelContext& ctx, const Tensor& t, std::string_view what);
// The single value of a one-element tensor of any numeric type, as int64 (truncating floats).
Expected<int64_t> ReadScalarInt64(const KernelContext& ctx, const Tensor& t, std::string_view what);
// The single value of a one-element numeric tensor as double.
Expected<double> ReadScalarDouble(const KernelContext& ctx, const Tensor& t, std::string_view what);
// Maps axis from [-rank, rank) to [0, rank), or an error naming the axis and rank.
Expected<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank, std::string_view what);

// Writes `value` converted to `dtype` (numeric, bool, float16, bfloat16) into `out` (DTypeSize
// bytes). Returns false for dtypes it cannot represent (strings, complex).
bool EncodeScalar(DType dtype, double value, void* out);

// ---- the strided copy engine ---------------------------------------------------------------

// One dimension of a strided copy: extent and the element strides on both sides.
struct CopyDim {
  int64_t size;
  int64_t dst_stride;
  int64_t src_stride;
};

// Drops size-1 dimensions and merges neighbours that are contiguous on both sides, so that the
// innermost loop is as long as possible. Returns an empty vector when nothing is copied.
std::vector<CopyDim> CoalesceCopyDims(std::span<const int64_t> shape, std::span<const int64_t> dst_strides,
                                      std::span<const int64_t> src_strides, bool* empty);

namespace internal {

// Copies one innermost run: memcpy when both sides are contiguous, fill for a broadcast source.
template <typename T>
inline void CopyRun(T* dst, int64_t dst_stride, const T* src, int64_t src_stride, int64_t n) {
  if (dst_stride == 1 && src_stride == 1) {
    std::copy_n(src, n, dst);
  } else if (dst_stride == 1 && src_stride == 0) {
    std::fill_n(dst, n, *src);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * dst_stride] = src[i * src_stride];
  }
}

// Iterates the outer dims (all but the last of `dims`) from flat row index `row`, keeping the
// element offsets of both sides.
struct OuterCursor {
  std::vector<int64_t> index;
  int64_t dst = 0;
  int64_t src = 0;

  OuterCursor(std::span<const CopyDim> outer, int64_t row) : index(outer.size(), 0) {
    for (size_t d = outer.size(); d-- > 0;) {
      index[d] = row % outer[d].size;
      row /= outer[d].size;
      dst += index[d] * outer[d].dst_stride;
      src += index[d] * outer[d].src_stride;
    }
  }
  void Next(std::span<const CopyDim> outer) {
    for (size_t d = outer.size(); d-- > 0;) {
      dst += outer[d].dst_stride;
      src += outer[d].src_stride;
      if (++index[d] < outer[d].size) return;
      dst -= outer[d].size * outer[d].dst_stride;
      src -= outer[d].size * outer[d].src_stride;
      index[d] = 0;
    }
  }
};

// Transposing copy of two dims (`a`: dst-contiguous, `b`: src-contiguous, both in units of
// `run` elements) in square tiles so that the strided side stays in cache; the other dims are a
// batch walked by `outer`. run > 1 moves short contiguous runs ([N, C, H, W] -> [C, N, H, W]
// with a small W) as one element.
template <typename T>
void TiledCopy(T* dst, const T* src, const std::vector<CopyDim>& outer, CopyDim a, CopyDim b, int64_t run) {
  const int64_t element_bytes = run * static_cast<int64_t>(sizeof(T));
  const int64_t tile = element_bytes >= 8 ? 16 : 32;
  int64_t batch = 1;
  for (const CopyDim& d : outer) batch *= d.size;
  const int64_t tiles_b = (b.size + tile - 1) / tile;
  const int64_t per_task = tile * a.size * run;
  ParallelFor(batch * tiles_b, std::max<int64_t>(1, 32768 / std::max<int64_t>(per_task, 1)),
              [&](int64_t begin, int64_t end) {
                OuterCursor cursor(outer, begin / tiles_b);
                int64_t current_batch = begin / tiles_b;
                for (int64_t task = begin; task < end; ++task) {
                  for (; current_batch < task / tiles_b; ++current_batch) cursor.Next(outer);
                  const int64_t b0 = (task % tiles_b) * tile;
                  const int64_t b1 = std::min(b.size, b0 + tile);
                  for (int64_t a0 = 0; a0 < a.size; a0 += tile) {
                    const int64_t a1 = std::min(a.size, a0 + tile);
                    for (int64_t j = b0; j < b1; ++j) {
                      T* d = dst + cursor.dst + j * b.dst_stride;
                      const T* s = src + cursor.src + j * b.src_stride;
                      if (run == 1) {
                        for (int64_t i = a0; i < a1; ++i) d[i * a.dst_stride] = s[i * a.src_stride];
                      } else {
                        for (int64_t i = a0; i < a1; ++i) {
                          for (int64_t k = 0; k < run; ++k) d[i * a.dst_stride + k] = s[i * a.src_stride + k];
                        }
                      }
                    }
                  }
                }
              });
}

// Tries the tiled transposition: the dst-contiguous dim (the innermost, or the one just outside
// a short run contiguous on both sides) reads src with a stride while another dim is
// src-contiguous. Returns false when the copy is not such a transposition.
template <typename T>
bool TryTiledCopy(T* dst, const T* src, const std::vector<CopyDim>& dims) {
  constexpr int64_t kMinExtent = 8;  // below this the tiles would be mostly edge
  constexpr int64_t kMaxRun = 16;    // longer runs are copied well enough row by row
  const CopyDim& inner = dims.back();
  int64_t run = 1;
  size_t a_index = dims.size() - 1;
  if (inner.dst_stride == 1 && inner.src_stride == 1) {
    if (inner.size > kMaxRun || dims.size() < 3) return false;
    run = inner.size;
    a_index = dims.size() - 2;
  }
  const CopyDim& a = dims[a_index];
  if (a.dst_stride != run || a.src_stride == run || a.src_stride == 0 || a.size < kMinExtent) return false;
  for (size_t p = 0; p < a_index; ++p) {
    if (dims[p].src_stride == run && dims[p].size >= kMinExtent) {
      std::vector<CopyDim> outer;
      for (size_t d = 0; d < a_index; ++d) {
        if (d != p) outer.push_back(dims[d]);
      }
      TiledCopy(dst, src, outer, a, dims[p], run);
      return true;
    }
  }
  return false;
}

}  // namespace internal

// Copies a block of `shape` from src (element strides src_strides, may be negative or zero) to
// dst (dst_strides). Contiguous innermost runs become memcpy, broadcast runs become fills, and
// transpositions (see TryTiledCopy) are done in cache tiles. Parallel over rows or tiles.
template <typename T>
void StridedCopy(T* dst, std::span<const int64_t> dst_strides, const T* src,
                 std::span<const int64_t> src_strides, std::span<const int64_t> shape) {
  bool empty = false;
  std::vector<CopyDim> dims = CoalesceCopyDims(shape, dst_strides, src_strides, &empty);
  if (empty) return;
  if (dims.empty()) {  // a single element
    *dst = *src;
    return;
  }
  if (internal::TryTiledCopy(dst, src, dims)) return;
  const CopyDim inner = dims.back();
  dims.pop_back();
  int64_t rows = 1;
  for (const CopyDim& d : dims) rows *= d.size;
  const int64_t grain = std::max<int64_t>(1, 16384 / inner.size);
  ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    internal::OuterCursor cursor(dims, begin);
    for (int64_t row = begin; row < end; ++row) {
      internal::CopyRun(dst + cursor.dst, inner.dst_stride, src + cursor.src, inner.src_stride, inner.size);
      cursor.Next(dims);
    }
  });
}

// The common case: dst is contiguous in `shape`.
template <typename T>
void StridedCopyToContiguous(T* dst, const T* src, std::span<const int64_t> src_strides,
                             std::span<const int64_t> shape) {
  std::vector<int64_t> dst_strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) dst_strides[k - 1] = dst_strides[k] * shape[k];
  StridedCopy(dst, dst_strides, src, src_strides, shape);
}

// Writes `out` = `in` viewed with `in_shape` and permuted by `perm` (out dim i = in dim perm[i]).
// `perm` must be a valid permutation of in_shape's dims and `out` preallocated.
Status PermuteInto(const KernelContext& ctx, const Tensor& in, const Shape& in_shape,
                   std::span<const int64_t> perm, Tensor& out);

}  // namespace npugap::exec::tensor_ops
