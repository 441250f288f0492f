// Softmax, LogSoftmax and Hardmax (part of the reduction family, see ReductionOps()).
//
// Opset differences: before opset 13 the input is coerced to 2-D [prod(dims < axis),
// prod(dims >= axis)] and the op works on each row of that matrix (default axis 1); from 13
// on it works along the single dim `axis` (default -1). Both become [outer, n, inner] views:
// the old form is always inner = 1. Softmax and LogSoftmax subtract the max first (stable);
// float32 uses the AVX2 ExpOfDifference and sums the exponentials in double.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "reduction_internal.h"

namespace npugap::exec {
namespace reduction_internal {
namespace {

enum class Mode { kSoftmax, kLogSoftmax, kHardmax };

constexpr int64_t kLanes = 8;
constexpr int64_t kInnerBlock = 256;
constexpr int64_t kGrainElements = int64_t{1} << 14;

// Max with NaN propagation. The NaN test is kept apart from the comparison (a flag per
// lane) because GCC vectorizes that form and not `v > m || v != v`.
template <typename T>
T RowMax(const T* x, int64_t n) {
  T lanes[kLanes];
  int nan[kLanes] = {};
  for (int64_t j = 0; j < kLanes; ++j) lanes[j] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const T v = x[i + j];
      lanes[j] = v > lanes[j] ? v : lanes[j];
      nan[j] |= v != v;
    }
  }
  for (; i < n; ++i) {
    lanes[0] = x[i] > lanes[0] ? x[i] : lanes[0];
    nan[0] |= x[i] != x[i];
  }
  T m = lanes[0];
  for (int64_t j = 0; j < kLanes; ++j) {
    if (nan[j]) return std::numeric_limits<T>::quiet_NaN();
    m = lanes[j] > m ? lanes[j] : m;
  }
  return m;
}

// First index of the max (NaN counts as the max, like numpy.argmax).
template <typename T>
int64_t FirstMaxIndex(const T* x, int64_t n, int64_t stride) {
  T best = x[0];
  int64_t best_index = 0;
  for (int64_t r = 1; r < n && best == best; ++r) {
    const T v = x[r * stride];
    if (v > best || v != v) {
      best = v;
      best_index = r;
    }
  }
  return best_index;
}

template <Mode kMode, typename T>
void ContiguousRow(const T* x, T* y, int64_t n) {
  if constexpr (kMode == Mode::kHardmax) {
    for (int64_t i = 0; i < n; ++i) y[i] = 0;
    y[FirstMaxIndex(x, n, 1)] = 1;
    return;
  } else {
    const T m = RowMax(x, n);
    if constexpr (kMode == Mode::kSoftmax) {
      ExpOfDifference(x, m, y, n);
      const T inv = static_cast<T>(1.0 / RowSum(y, n));
      for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    } else {
      // exp(x - m) goes through y as scratch; y = (x - m) - log(sum).
      ExpOfDifference(x, m, y, n);
      const T log_sum = static_cast<T>(std::log(RowSum(y, n)));
      for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - log_sum;
    }
  }
}

// One block of up to kInnerBlock columns of one outer slice, reading rows contiguously.
template <Mode kMode, typename T>
void StridedBlock(const T* x, T* y, int64_t n, int64_t inner, int64_t len) {
  if constexpr (kMode == Mode::kHardmax) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t i = 0; i < len; ++i) y[r * inner + i] = 0;
    }
    for (int64_t i = 0; i < len; ++i) y[FirstMaxIndex(x + i, n, inner) * inner + i] = 1;
    return;
  } else {
    T max[kInnerBlock];
    int nan[kInnerBlock];
    double sum[kInnerBlock];
    for (int64_t i = 0; i < len; ++i) {
      max[i] = -std::numeric_limits<T>::infinity();
      nan[i] = 0;
      sum[i] = 0;
    }
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * inner;
      for (int64_t i = 0; i < len; ++i) {
        max[i] = row[i] > max[i] ? row[i] : max[i];
        nan[i] |= row[i] != row[i];
      }
    }
    for (int64_t i = 0; i < len; ++i) max[i] = nan[i] ? std::numeric_limits<T>::quiet_NaN() : max[i];
    for (int64_t r = 0; r < n; ++r) {
      T* out = y + r * inner;
      ExpOfDifference(x + r * inner, max, out, len);
      for (int64_t i = 0; i < len; ++i) sum[i] += static_cast<double>(out[i]);
    }
    T factor[kInnerBlock];
    for (int64_t i = 0; i < len; ++i) {
      factor[i] = static_cast<T>(kMode == Mode::kSoftmax ? 1.0 / sum[i] : std::log(sum[i]));
    }
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * inner;
      T* out = y + r * inner;
      if constexpr (kMode == Mode::kSoftmax) {
        for (int64_t i = 0; i < len; ++i) out[i] *= factor[i];
      } else {
        for (int64_t i = 0; i < len; ++i) out[i] = (row[i] - max[i]) - factor[i];
      }
    }
  }
}

template <Mode kMode, typename T>
void AlongAxis(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  if (outer == 0 || n == 0 || inner == 0) return;
  if (inner == 1) {
    ParallelFor(outer, std::max<int64_t>(1, kGrainElements / n), [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) ContiguousRow<kMode>(x + o * n, y + o * n, n);
    });
    return;
  }
  const int64_t blocks = (inner + kInnerBlock - 1) / kInnerBlock;
  ParallelFor(outer * blocks, std::max<int64_t>(1, kGrainElements / (n * std::min(inner, kInnerBlock))),
              [&](int64_t begin, int64_t end) {
                for (int64_t task = begin; task < end; ++task) {
                  const int64_t o = task / blocks;
                  const int64_t i0 = (task % blocks) * kInnerBlock;
                  const int64_t offset = o * n * inner + i0;
                  StridedBlock<kMode>(x + offset, y + offset, n, inner, std::min(kInnerBlock, inner - i0));
                }
              });
}

template <Mode kMode>
Status SoftmaxKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (IsHalfType(x.dtype())) return RunInFloat32(ctx, &SoftmaxKernel<kMode>);
  const int64_t rank = x.rank();
  const bool coerce_2d = ctx.opset < 13;
  int64_t axis = ctx.node.GetInt("axis", coerce_2d ? 1 : -1);
  // The 2-D coercion is well defined for axis == rank too (rows of one element).
  const bool axis_ok = coerce_2d && axis == rank ? true : NormalizeAxis(axis, rank);
  if (!axis_ok) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  const int64_t outer = DimProduct(x.shape(), 0, axis);
  const int64_t n = coerce_2d ? DimProduct(x.shape(), axis, rank) : x.dim(axis);
  const int64_t inner = coerce_2d ? 1 : DimProduct(x.shape(), axis + 1, rank);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), x.shape()));
  const bool covered = DispatchFloat(
      x.dtype(), [&]<typename T>() { AlongAxis<kMode>(x.data<T>(), y.data<T>(), outer, n, inner); });
  if (!covered) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

constexpr OpRow kSoftmaxRows[] = {
    {"", "Softmax", 1, 17, &SoftmaxKernel<Mode::kSoftmax>, &support::kVectorFloat},
    {"", "LogSoftmax", 1, 17, &SoftmaxKernel<Mode::kLogSoftmax>, &support::kVectorFloat},
    {"", "Hardmax", 1, 17, &SoftmaxKernel<Mode::kHardmax>, &support::kVectorFloat},
};

}  // namespace

void LogSoftmaxAlongAxis(const float* x, float* y, int64_t outer, int64_t axis_len, int64_t inner) {
  AlongAxis<Mode::kLogSoftmax>(x, y, outer, axis_len, inner);
}

void LogSoftmaxAlongAxis(const double* x, double* y, int64_t outer, int64_t axis_len, int64_t inner) {
  AlongAxis<Mode::kLogSoftmax>(x, y, outer, axis_len, inner);
}

std::span<const OpRow> SoftmaxOps() { return kSoftmaxRows; }

}  // namespace reduction_internal
}  // namespace npugap::exec
