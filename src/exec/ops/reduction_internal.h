// Helpers shared by the reduction and normalization op families (reduction*.cc,
// normalization*.cc). Private to those files.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "npugap/exec/kernel.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"
#include "npugap/numerics/half.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace npugap::exec::reduction_internal {

// Maps axis from [-rank, rank - 1] to [0, rank - 1]; false when out of range.
inline bool NormalizeAxis(int64_t& axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  return true;
}

// Sets reduced[a] for each of `axes` (normalized to [0, rank)), or fails naming an axis that is
// out of range or given twice.
inline Status MarkReducedAxes(const KernelContext& ctx, const std::vector<int64_t>& axes, int64_t rank,
                              std::vector<bool>& reduced) {
  for (int64_t axis : axes) {
    int64_t a = axis;
    if (!NormalizeAxis(a, rank)) {
      return ctx.Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    if (reduced[static_cast<size_t>(a)]) return ctx.Error("axis " + std::to_string(axis) + " is repeated");
    reduced[static_cast<size_t>(a)] = true;
  }
  return Status::Ok();
}

// Product of shape[begin, end).
inline int64_t DimProduct(const Shape& shape, int64_t begin, int64_t end) {
  int64_t p = 1;
  for (int64_t i = begin; i < end; ++i) p *= shape[static_cast<size_t>(i)];
  return p;
}

// Sum of n contiguous elements in double, in 8 interleaved lanes (vectorizes), added in lane order
// at the end (normalization and softmax share it).
template <typename T>
double RowSum(const T* x, int64_t n) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]);
  }
  for (; i < n; ++i) lanes[0] += static_cast<double>(x[i]);
  double sum = 0;
  for (double l : lanes) sum += l;
  return sum;
}

// exp(x) for float32 in the Cephes expf scheme: x = n*ln2 + r with |r| <= ln2/2, exp(r) by a
// degree-6 polynomial, 2^n built from exponent bits in two halves so that results near the
// overflow and subnormal limits stay right. Max relative error ~2 ulp; exp(-inf) = 0,
// exp(+inf) = inf, NaN propagates. ExpOfDifference runs the same scheme 8 lanes at a time
// with AVX2: GCC does not vectorize the scalar form (its clamps become branches around
// arithmetic that -ftrapping-math forbids to speculate).
namespace exp_constants {
constexpr float kMaxArg = 88.72283935546875f;  // exp overflows above this
constexpr float kMinArg = -103.97208404541f;   // exp is below the smallest subnormal under this
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693359375f;
constexpr float kLn2Low = -2.12194440e-4f;
constexpr float kPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
}  // namespace exp_constants

inline float ExpFloat(float x) {
  using namespace exp_constants;
  float c = x < kMinArg ? kMinArg : x;
  c = c > kMaxArg ? kMaxArg : c;
  c = c == c ? c : 0.0f;  // NaN: compute on 0, fixed up below
  const float n = std::floor(c * kLog2e + 0.5f);
  float r = c - n * kLn2High;
  r = r - n * kLn2Low;
  float p = kPoly[0];
  for (int k = 1; k < 6; ++k) p = p * r + kPoly[k];
  const float y = p * r * r + r + 1.0f;
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t half1 = ni >> 1;
  const int32_t half2 = ni - half1;
  const float scale1 = std::bit_cast<float>((half1 + 127) << 23);
  const float scale2 = std::bit_cast<float>((half2 + 127) << 23);
  float result = y * scale1 * scale2;
  result = x < kMinArg ? 0.0f : result;
  result = x > kMaxArg ? INFINITY : result;
  return x == x ? result : x;
}

#if defined(__AVX2__)
inline __m256 ExpFloat8(__m256 x) {
  using namespace exp_constants;
  const __m256 max_arg = _mm256_set1_ps(kMaxArg);
  const __m256 min_arg = _mm256_set1_ps(kMinArg);
  __m256 c = _mm256_min_ps(_mm256_max_ps(x, min_arg), max_arg);  // NaN becomes kMinArg
  const __m256 n =
      _mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(c, _mm256_set1_ps(kLog2e)), _mm256_set1_ps(0.5f)));
  __m256 r = _mm256_sub_ps(c, _mm256_mul_ps(n, _mm256_set1_ps(kLn2High)));
  r = _mm256_sub_ps(r, _mm256_mul_ps(n, _mm256_set1_ps(kLn2Low)));
  __m256 p = _mm256_set1_ps(kPoly[0]);
  for (int k = 1; k < 6; ++k) p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(kPoly[k]));
  const __m256 y =
      _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r), _mm256_set1_ps(1.0f));
  const __m256i ni = _mm256_cvttps_epi32(n);
  const __m256i half1 = _mm256_srai_epi32(ni, 1);
  const __m256i half2 = _mm256_sub_epi32(ni, half1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 scale1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half1, bias), 23));
  const __m256 scale2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half2, bias), 23));
  __m256 result = _mm256_mul_ps(_mm256_mul_ps(y, scale1), scale2);
  result = _mm256_blendv_ps(result, _mm256_setzero_ps(), _mm256_cmp_ps(x, min_arg, _CMP_LT_OQ));
  result = _mm256_blendv_ps(result, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, max_arg, _CMP_GT_OQ));
  return _mm256_blendv_ps(result, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
#endif

// y[i] = exp(x[i] - shift), or exp(x[i] - shift[i]) with kPerElement. y may alias x.
template <bool kPerElement>
inline void ExpOfDifferenceImpl(const float* x, const float* shift, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  const __m256 scalar_shift = _mm256_set1_ps(shift[0]);
  for (; i + 8 <= n; i += 8) {
    const __m256 s = kPerElement ? _mm256_loadu_ps(shift + i) : scalar_shift;
    _mm256_storeu_ps(y + i, ExpFloat8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s)));
  }
#endif
  for (; i < n; ++i) y[i] = ExpFloat(x[i] - shift[kPerElement ? i : 0]);
}
inline void ExpOfDifference(const float* x, float shift, float* y, int64_t n) {
  ExpOfDifferenceImpl<false>(x, &shift, y, n);
}
inline void ExpOfDifference(const float* x, const float* shift, float* y, int64_t n) {
  ExpOfDifferenceImpl<true>(x, shift, y, n);
}
inline void ExpOfDifference(const double* x, double shift, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - shift);
}
inline void ExpOfDifference(const double* x, const double* shift, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - shift[i]);
}

inline bool IsHalfType(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// float16 / bfloat16 tensor -> float32 tensor.
inline Expected<Tensor> HalfToFloat32(const Tensor& t) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kFloat32, t.shape()));
  const uint16_t* src = t.data<uint16_t>();
  float* dst = out.data<float>();
  const bool is_bf16 = t.dtype() == DType::kBFloat16;
  ParallelFor(t.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = is_bf16 ? numerics::BFloat16ToFloat(src[i]) : numerics::HalfToFloat(src[i]);
    }
  });
  return out;
}

// float32 tensor -> float16 / bfloat16 tensor (round to nearest even).
inline Expected<Tensor> Float32ToHalf(const Tensor& t, DType half_type) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(half_type, t.shape()));
  const float* src = t.data<float>();
  uint16_t* dst = out.data<uint16_t>();
  const bool is_bf16 = half_type == DType::kBFloat16;
  ParallelFor(t.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = is_bf16 ? numerics::FloatToBFloat16(src[i]) : numerics::FloatToHalf(src[i]);
    }
  });
  return out;
}

// True when some input of the node is float16 / bfloat16.
inline bool HasHalfInput(const KernelContext& ctx) {
  for (const Tensor* t : ctx.inputs) {
    if (t != nullptr && IsHalfType(t->dtype())) return true;
  }
  return false;
}

// Runs `kernel` on float32 copies of the float16 / bfloat16 inputs (computing in float32 is
// what ONNX Runtime does for these types too) and converts float32 outputs back.
// `output_type_from_input[i]` names the input whose dtype output i takes (-1: keep what the
// kernel produced); outputs past the list follow input 0.
inline Status RunInFloat32(KernelContext& ctx, KernelFn kernel,
                           std::initializer_list<int> output_type_from_input = {}) {
  std::vector<Tensor> converted(ctx.inputs.size());
  KernelContext f32{ctx.node, ctx.opset, ctx.inputs, {}, ctx.num_threads, ctx.subgraphs};
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i] == nullptr || !IsHalfType(ctx.inputs[i]->dtype())) continue;
    NPUGAP_ASSIGN_OR_RETURN(converted[i], HalfToFloat32(*ctx.inputs[i]));
    f32.inputs[i] = &converted[i];
  }
  f32.outputs.resize(ctx.outputs.size());
  NPUGAP_RETURN_IF_ERROR(kernel(f32));
  const std::vector<int> sources(output_type_from_input);
  for (size_t i = 0; i < f32.outputs.size(); ++i) {
    Tensor& out = f32.outputs[i];
    const int source = i < sources.size() ? sources[i] : 0;
    const bool convert = out.defined() && out.dtype() == DType::kFloat32 && source >= 0 &&
                         static_cast<size_t>(source) < ctx.inputs.size() && ctx.inputs[source] != nullptr &&
                         IsHalfType(ctx.inputs[source]->dtype());
    if (convert) {
      NPUGAP_ASSIGN_OR_RETURN(ctx.outputs[i], Float32ToHalf(out, ctx.inputs[source]->dtype()));
    } else {
      ctx.outputs[i] = std::move(out);
    }
  }
  return Status::Ok();
}

// Log-softmax along the middle axis of x viewed as [outer, axis_len, inner] (defined in
// reduction_softmax.cc; SoftmaxCrossEntropyLoss uses it).
void LogSoftmaxAlongAxis(const float* x, float* y, int64_t outer, int64_t axis_len, int64_t inner);
void LogSoftmaxAlongAxis(const double* x, double* y, int64_t outer, int64_t axis_len, int64_t inner);

// Rows of Softmax, LogSoftmax and Hardmax (reduction_softmax.cc), part of ReductionOps().
std::span<const OpRow> SoftmaxOps();

// Rows of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (normalization_loss.cc), part
// of NormalizationOps().
std::span<const OpRow> LossOps();

}  // namespace npugap::exec::reduction_internal
