// Indexing op family, ordering part: TopK, Unique, CumSum.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "indexing_internal.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::indexing {
namespace {

// Three-way comparison with a total order: NaN sorts after every number and equals other NaNs.
template <typename C>
int CompareValues(const C& a, const C& b) {
  if constexpr (std::is_floating_point_v<C>) {
    const bool a_nan = std::isnan(a);
    const bool b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  }
  if (a < b) return -1;
  if (b < a) return 1;
  return 0;
}

// Reads a scalar or one-element int tensor (TopK's k, CumSum's axis).
Expected<int64_t> ReadScalarInt(const KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.numel() != 1 || t.rank() > 1) {
    return ctx.Error(fmt::format("{} must be a scalar or a 1-element 1-D tensor, got shape {}", what,
                                 ir::ShapeToString(t.shape())));
  }
  std::vector<int64_t> v;
  NPUGAP_RETURN_IF_ERROR(ReadInt64s(ctx, t, &v));
  return v[0];
}

}  // namespace

// TopK (1: k attribute; 10: k input; 11: largest, sorted, negative axis). Outputs values and
// int64 indices along axis. Equal values keep the lower index first; NaN counts as the largest
// value. The output is always sorted (sorted=0 allows any order, so sorted order is valid).
Status TopKKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 1) return ctx.Error("input must have rank >= 1");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, ctx.node.GetInt("axis", -1), x.rank()));
  int64_t k = 0;
  if (ctx.opset < 10) {
    if (ctx.node.FindAttribute("k") == nullptr) return ctx.Error("attribute k is required");
    k = ctx.node.GetInt("k", 0);
  } else {
    if (!ctx.has_input(1)) return ctx.Error("input K is required");
    NPUGAP_ASSIGN_OR_RETURN(k, ReadScalarInt(ctx, ctx.input(1), "K"));
  }
  const int64_t n = x.dim(axis);
  if (k < 0 || k > n) return ctx.Error(fmt::format("k = {} must be in [0, {}] (axis {} size)", k, n, axis));
  const bool largest = ctx.opset < 11 || ctx.node.GetInt("largest", 1) != 0;

  Shape out_shape = x.shape();
  out_shape[static_cast<size_t>(axis)] = k;
  NPUGAP_ASSIGN_OR_RETURN(Tensor values, Tensor::Create(x.dtype(), out_shape));
  NPUGAP_ASSIGN_OR_RETURN(Tensor indices, Tensor::Create(DType::kInt64, out_shape));
  const int64_t outer = ShapeProduct(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = ShapeProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());

  const bool ok = DispatchArithmetic(x.dtype(), [&]<typename T>() {
    using A = Arith<T>;
    using C = typename A::Compute;
    const T* src = x.data<T>();
    T* out_values = values.data<T>();
    int64_t* out_indices = indices.data<int64_t>();
    if (k == 0) return;
    ParallelFor(outer * inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
                [&](int64_t begin, int64_t end) {
                  std::vector<C> keys(static_cast<size_t>(n));
                  std::vector<int64_t> order(static_cast<size_t>(n));
                  for (int64_t line = begin; line < end; ++line) {
                    const int64_t o = line / inner;
                    const int64_t i = line - o * inner;
                    const T* in = src + o * n * inner + i;
                    for (int64_t j = 0; j < n; ++j) keys[static_cast<size_t>(j)] = A::Load(in[j * inner]);
                    std::iota(order.begin(), order.end(), 0);
                    auto before = [&](int64_t a, int64_t b) {
                      const int c = CompareValues(keys[static_cast<size_t>(a)], keys[static_cast<size_t>(b)]);
                      if (c != 0) return largest ? c > 0 : c < 0;
                      return a < b;
                    };
                    if (k * 4 < n) {
                      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
                    } else {
                      if (k < n) std::nth_element(order.begin(), order.begin() + k, order.end(), before);
                      std::sort(order.begin(), order.begin() + k, before);
                    }
                    T* vo = out_values + o * k * inner + i;
                    int64_t* io = out_indices + o * k * inner + i;
                    for (int64_t j = 0; j < k; ++j) {
                      const int64_t src_index = order[static_cast<size_t>(j)];
                      vo[j * inner] = in[src_index * inner];
                      io[j * inner] = src_index;
                    }
                  }
                });
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(values);
  if (ctx.num_outputs() > 1) ctx.outputs[1] = std::move(indices);
  return Status::Ok();
}

namespace {

// Calls f<T>() with an element type that can be compared: arithmetic types (half types as their
// bit structs, compared through Arith), bool and strings.
template <typename F>
bool DispatchComparable(DType t, F&& f) {
  if (t == DType::kBool) {
    f.template operator()<bool>();
    return true;
  }
  if (t == DType::kString) {
    f.template operator()<std::string>();
    return true;
  }
  return DispatchArithmetic(t, f);
}

template <typename T>
int CompareElements(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return CompareValues(a, b);
  } else {
    return CompareValues(Arith<T>::Load(a), Arith<T>::Load(b));
  }
}

}  // namespace

// Unique (11). Without axis it works on the flattened input; with axis on the slices along it,
// compared lexicographically. Outputs: Y (unique values or slices), indices (first occurrence in
// X), inverse_indices (position in Y of each input element / slice) and counts. sorted=1 (default)
// sorts Y ascending; sorted=0 keeps the order of first occurrence.
Status UniqueKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const bool sorted = ctx.node.GetInt("sorted", 1) != 0;
  const bool has_axis = ctx.node.FindAttribute("axis") != nullptr;
  int64_t axis = 0;
  int64_t outer = 1, n = x.numel(), inner = 1;
  if (has_axis) {
    if (x.rank() < 1) return ctx.Error("input must have rank >= 1 when axis is given");
    NPUGAP_ASSIGN_OR_RETURN(axis, NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), x.rank()));
    outer = ShapeProduct(x.shape(), 0, static_cast<size_t>(axis));
    n = x.dim(axis);
    inner = ShapeProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  }

  // order: slice numbers sorted by (value, position), so each run of equal slices starts with its
  // first occurrence.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> run_starts;  // positions in `order` where a new unique value starts
  const bool ok = DispatchComparable(x.dtype(), [&]<typename T>() {
    const T* data = Elements<T>(x);
    auto compare = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = data + o * n * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const int c = CompareElements(row[a * inner + i], row[b * inner + i]);
          if (c != 0) return c;
        }
      }
      return 0;
    };
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const int c = compare(a, b);
      return c != 0 ? c < 0 : a < b;
    });
    for (int64_t p = 0; p < n; ++p) {
      if (p == 0 || compare(order[static_cast<size_t>(p - 1)], order[static_cast<size_t>(p)]) != 0) {
        run_starts.push_back(p);
      }
    }
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());

  const int64_t unique_count = static_cast<int64_t>(run_starts.size());
  run_starts.push_back(n);
  // groups[g] = run number of the g-th output value.
  std::vector<int64_t> groups(static_cast<size_t>(unique_count));
  std::iota(groups.begin(), groups.end(), 0);
  if (!sorted) {
    std::sort(groups.begin(), groups.end(), [&](int64_t a, int64_t b) {
      return order[static_cast<size_t>(run_starts[static_cast<size_t>(a)])] <
             order[static_cast<size_t>(run_starts[static_cast<size_t>(b)])];
    });
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor first_indices, Tensor::Create(DType::kInt64, {unique_count}));
  NPUGAP_ASSIGN_OR_RETURN(Tensor inverse, Tensor::Create(DType::kInt64, {n}));
  NPUGAP_ASSIGN_OR_RETURN(Tensor counts, Tensor::Create(DType::kInt64, {unique_count}));
  for (int64_t g = 0; g < unique_count; ++g) {
    const int64_t run = groups[static_cast<size_t>(g)];
    const int64_t start = run_starts[static_cast<size_t>(run)];
    const int64_t stop = run_starts[static_cast<size_t>(run) + 1];
    first_indices.data<int64_t>()[g] = order[static_cast<size_t>(start)];
    counts.data<int64_t>()[g] = stop - start;
    for (int64_t p = start; p < stop; ++p) inverse.data<int64_t>()[order[static_cast<size_t>(p)]] = g;
  }

  Shape y_shape = {unique_count};
  if (has_axis) {
    y_shape = x.shape();
    y_shape[static_cast<size_t>(axis)] = unique_count;
  }
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  DispatchMovable(x.dtype(), [&]<typename T>() {
    const T* src = Elements<T>(x);
    T* dst = Elements<T>(y);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t g = 0; g < unique_count; ++g) {
        CopyElements(dst + (o * unique_count + g) * inner,
                     src + (o * n + first_indices.data<int64_t>()[g]) * inner, inner);
      }
    }
  });
  ctx.outputs[0] = std::move(y);
  if (ctx.num_outputs() > 1) ctx.outputs[1] = std::move(first_indices);
  if (ctx.num_outputs() > 2) ctx.outputs[2] = std::move(inverse);
  if (ctx.num_outputs() > 3) ctx.outputs[3] = std::move(counts);
  return Status::Ok();
}

// CumSum (11; 14 adds float16 / bfloat16). The axis comes as a tensor input. exclusive=1 leaves
// out the element itself (the first sum is 0); reverse=1 sums from the end. Accumulates in the
// element type (float for the 16-bit floats), as onnxruntime does.
Status CumSumKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!ctx.has_input(1)) return ctx.Error("input axis is required");
  if (x.rank() < 1) return ctx.Error("input must have rank >= 1");
  NPUGAP_ASSIGN_OR_RETURN(const int64_t raw_axis, ReadScalarInt(ctx, ctx.input(1), "axis"));
  NPUGAP_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, raw_axis, x.rank()));
  const bool exclusive = ctx.node.GetInt("exclusive", 0) != 0;
  const bool reverse = ctx.node.GetInt("reverse", 0) != 0;
  const int64_t outer = ShapeProduct(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t n = x.dim(axis);
  const int64_t inner = ShapeProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  Tensor out = Tensor::Empty(x.dtype(), x.shape());
  constexpr int64_t kBlock = 1024;  // inner elements summed together (one running-sum vector)
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  const bool ok = DispatchArithmetic(x.dtype(), [&]<typename T>() {
    using A = Arith<T>;
    using C = typename A::Compute;
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    if (inner == 1) {  // contiguous lines: one scalar running sum each
      ParallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t o = begin; o < end; ++o) {
                      const T* in = src + o * n;
                      T* result = dst + o * n;
                      const int64_t first = reverse ? n - 1 : 0;
                      const int64_t step = reverse ? -1 : 1;
                      C acc{};
                      for (int64_t s = 0, j = first; s < n; ++s, j += step) {
                        const C v = A::Load(in[j]);
                        if (exclusive) {
                          result[j] = A::Store(acc);
                          acc += v;
                        } else {
                          acc += v;
                          result[j] = A::Store(acc);
                        }
                      }
                    }
                  });
      return;
    }
    ParallelFor(outer * blocks,
                std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n * std::min(inner, kBlock))),
                [&](int64_t begin, int64_t end) {
                  std::vector<C> acc(static_cast<size_t>(std::min(inner, kBlock)));
                  for (int64_t task = begin; task < end; ++task) {
                    const int64_t o = task / blocks;
                    const int64_t i0 = (task - o * blocks) * kBlock;
                    const int64_t width = std::min(kBlock, inner - i0);
                    std::fill(acc.begin(), acc.end(), C{});
                    for (int64_t step = 0; step < n; ++step) {
                      const int64_t j = reverse ? n - 1 - step : step;
                      const int64_t offset = (o * n + j) * inner + i0;
                      const T* in = src + offset;
                      T* result = dst + offset;
                      for (int64_t i = 0; i < width; ++i) {
                        const C v = A::Load(in[i]);
                        if (exclusive) {
                          result[i] = A::Store(acc[static_cast<size_t>(i)]);
                          acc[static_cast<size_t>(i)] += v;
                        } else {
                          acc[static_cast<size_t>(i)] += v;
                          result[i] = A::Store(acc[static_cast<size_t>(i)]);
                        }
                      }
                    }
                  }
                });
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace npugap::exec::indexing
