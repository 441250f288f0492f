// Private helpers shared by the indexing op family (indexing.cc, indexing_sort.cc,
// indexing_resize.cc): index reading, element-type dispatch and the kernels' declarations.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/kernel.h"
#include "npugap/numerics/half.h"

namespace npugap::exec::indexing {

// Kernels defined outside indexing.cc; their rows are in IndexingOps().
Status TopKKernel(KernelContext& ctx);
Status UniqueKernel(KernelContext& ctx);
Status CumSumKernel(KernelContext& ctx);
Status ResizeKernel(KernelContext& ctx);
Status UpsampleKernel(KernelContext& ctx);
Status GridSampleKernel(KernelContext& ctx);

// Maps axis from [-rank, rank) to [0, rank), or fails naming the attribute.
Expected<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank,
                                std::string_view what = "axis");

// Copies an int32 / int64 tensor into int64 values (no range check). Other dtypes are unsupported.
Status ReadInt64s(const KernelContext& ctx, const Tensor& t, std::vector<int64_t>* values);

// Like ReadInt64s, then maps each index from [-dim_size, dim_size) to [0, dim_size) or fails.
Status ReadIndices(const KernelContext& ctx, const Tensor& t, int64_t dim_size, std::vector<int64_t>* indices,
                   std::string_view what = "index");

// Product of shape[begin, end).
int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end);

// Data-movement dispatch and element access: DispatchMovable and Elements in npugap/exec/dispatch.h.

// Copies n consecutive elements (memcpy for fixed-size types).
template <typename T>
inline void CopyElements(T* dst, const T* src, int64_t n) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    if (n == 1) {
      *dst = *src;
    } else {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// Arithmetic view of an element type: float16 / bfloat16 bits compute in float, the rest natively.
template <typename T>
struct Arith {
  using Compute = T;
  static Compute Load(T v) { return v; }
  static T Store(Compute v) { return v; }
};
template <>
struct Arith<ir::Float16Bits> {
  using Compute = float;
  static float Load(ir::Float16Bits v) { return numerics::HalfToFloat(v.bits); }
  static ir::Float16Bits Store(float v) { return {numerics::FloatToHalf(v)}; }
};
template <>
struct Arith<ir::BFloat16Bits> {
  using Compute = float;
  static float Load(ir::BFloat16Bits v) { return numerics::BFloat16ToFloat(v.bits); }
  static ir::BFloat16Bits Store(float v) { return {numerics::FloatToBFloat16(v)}; }
};

// float16 and bfloat16 (as Float16Bits / BFloat16Bits) go to f; any other type to rest(), the
// dispatch the two below widen.
template <typename F, typename Rest>
bool DispatchHalfOr(DType t, F& f, Rest&& rest) {
  switch (t) {
    case DType::kFloat16:
      f.template operator()<ir::Float16Bits>();
      return true;
    case DType::kBFloat16:
      f.template operator()<ir::BFloat16Bits>();
      return true;
    default:
      return rest();
  }
}

// float32, float64, every integer, float16 and bfloat16.
template <typename F>
bool DispatchArithmetic(DType t, F&& f) {
  return DispatchHalfOr(t, f, [&] { return DispatchNumeric(t, f); });
}

// Floating types only: float32, float64, float16, bfloat16.
template <typename F>
bool DispatchFloating(DType t, F&& f) {
  return DispatchHalfOr(t, f, [&] { return DispatchFloat(t, f); });
}

}  // namespace npugap::exec::indexing
