// Private helpers of the linalg family, also used by the recurrent family: a row-major GEMM
// (oneDNN's sgemm for float32, a plain cache-friendly loop for other types) and a strided
// gather that packs an arbitrary strided view into a contiguous buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "npugap/exec/kernel.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::linalg_internal {

// Einsum-12 (linalg_einsum.cc).
Status EinsumKernel(KernelContext& ctx);

// C[m,n] = op(A)[m,k] * op(B)[k,n] + beta * C, row-major, float32, through oneDNN.
void SgemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Same contract for any arithmetic T. op(X) = X^T when trans_x. Integer types wrap on overflow.
// `parallel` = false keeps it on the calling thread (for callers already inside ParallelFor).
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc, bool parallel = true) {
  if (m <= 0 || n <= 0) return;
  if constexpr (std::is_same_v<T, float>) {
    // oneDNN runs single-threaded when called inside a parallel region, so it serves both cases.
    SgemmRowMajor(trans_a, trans_b, m, n, k, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Integers accumulate in unsigned 64-bit so that overflow wraps instead of being undefined.
  using Acc = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;
  // Row i of op(A) as contiguous k values (packed once when A is transposed).
  std::vector<T> a_packed;
  if (trans_a && k > 0) {
    a_packed.resize(static_cast<size_t>(m * k));
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t i = 0; i < m; ++i) a_packed[static_cast<size_t>(i * k + p)] = a[p * lda + i];
    }
    a = a_packed.data();
    lda = k;
  }
  auto rows = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* a_row = a + i * lda;
      T* c_row = c + i * ldc;
      if (trans_b) {
        // op(B) = B^T: B rows are contiguous along k, so each output is a dot product.
        for (int64_t j = 0; j < n; ++j) {
          const T* b_row = b + j * ldb;
          Acc sum = 0;
          for (int64_t p = 0; p < k; ++p) sum += static_cast<Acc>(a_row[p]) * static_cast<Acc>(b_row[p]);
          const Acc prev = beta == T(0) ? Acc(0) : static_cast<Acc>(beta) * static_cast<Acc>(c_row[j]);
          c_row[j] = static_cast<T>(sum + prev);
        }
      } else {
        // op(B) = B: accumulate scaled rows of B into the output row (vectorises).
        if (beta == T(0)) {
          std::fill(c_row, c_row + n, T(0));
        } else if (beta != T(1)) {
          for (int64_t j = 0; j < n; ++j)
            c_row[j] = static_cast<T>(static_cast<Acc>(beta) * static_cast<Acc>(c_row[j]));
        }
        for (int64_t p = 0; p < k; ++p) {
          const Acc a_ip = static_cast<Acc>(a_row[p]);
          const T* b_row = b + p * ldb;
          for (int64_t j = 0; j < n; ++j) {
            c_row[j] = static_cast<T>(static_cast<Acc>(c_row[j]) + a_ip * static_cast<Acc>(b_row[j]));
          }
        }
      }
    }
  };
  if (parallel) {
    const int64_t work_per_row = std::max<int64_t>(1, n * std::max<int64_t>(k, 1));
    ParallelFor(m, std::max<int64_t>(1, (int64_t{1} << 15) / work_per_row), rows);
  } else {
    rows(0, m);
  }
}

// Copies the view (sizes, element strides) of src into dst, contiguous row-major.
template <typename T>
void GatherStrided(const T* src, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                   T* dst) {
  const size_t rank = sizes.size();
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  if (total == 0) return;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = sizes[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  const int64_t outer = total / inner;
  ParallelFor(outer, std::max<int64_t>(1, 4096 / inner), [&](int64_t begin, int64_t end) {
    // Decompose the first outer row index once, then step an odometer.
    std::vector<int64_t> coord(rank, 0);
    int64_t rest = begin;
    int64_t offset = 0;
    for (size_t d = rank - 1; d-- > 0;) {
      coord[d] = rest % sizes[d];
      rest /= sizes[d];
      offset += coord[d] * strides[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      T* out = dst + row * inner;
      const T* in = src + offset;
      if (inner_stride == 1) {
        std::copy(in, in + inner, out);
      } else {
        for (int64_t j = 0; j < inner; ++j) out[j] = in[j * inner_stride];
      }
      for (size_t d = rank - 1; d-- > 0;) {
        offset += strides[d];
        if (++coord[d] < sizes[d]) break;
        offset -= coord[d] * strides[d];
        coord[d] = 0;
      }
    }
  });
}

}  // namespace npugap::exec::linalg_internal
