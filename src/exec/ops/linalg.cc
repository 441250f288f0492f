// Linear-algebra op family: Einsum (in linalg_einsum.cc), Det, and the GEMM helper shared with
// the recurrent family.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "linalg_internal.h"
#include "npugap/exec/dispatch.h"
#include "npugap/exec/op_table.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec {

namespace linalg_internal {

void SgemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    // oneDNN rejects k = 0; the product is empty, so C = beta * C.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : beta * c[i * ldc + j];
    }
    return;
  }
  dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace linalg_internal

namespace {

// ---- Det --------------------------------------------------------------------------------------

// Det-11: determinant of each [M, M] matrix in [*, M, M] by LU decomposition with partial
// pivoting, computed in double. A 0x0 matrix has determinant 1.
Status DetKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2)) {
    return ctx.Error(fmt::format("input must be [*, M, M], got {}", ir::ShapeToString(x.shape())));
  }
  const int64_t n = x.dim(x.rank() - 1);
  const Shape out_shape(x.shape().begin(), x.shape().end() - 2);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), out_shape));
  const bool ok = DispatchFloat(x.dtype(), [&]<typename T>() {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    ParallelFor(y.numel(), std::max<int64_t>(1, 4096 / std::max<int64_t>(n * n * n, 1)),
                [&](int64_t begin, int64_t end) {
                  std::vector<double> a(static_cast<size_t>(n * n));
                  for (int64_t b = begin; b < end; ++b) {
                    std::copy(in + b * n * n, in + (b + 1) * n * n, a.begin());
                    double det = 1.0;
                    for (int64_t col = 0; col < n && det != 0.0; ++col) {
                      int64_t pivot = col;
                      for (int64_t r = col + 1; r < n; ++r) {
                        if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
                      }
                      if (a[pivot * n + col] == 0.0) {
                        det = 0.0;
                        break;
                      }
                      if (pivot != col) {
                        std::swap_ranges(a.begin() + pivot * n, a.begin() + (pivot + 1) * n,
                                         a.begin() + col * n);
                        det = -det;
                      }
                      const double diag = a[col * n + col];
                      det *= diag;
                      for (int64_t r = col + 1; r < n; ++r) {
                        const double f = a[r * n + col] / diag;
                        if (f == 0.0) continue;
                        for (int64_t c = col + 1; c < n; ++c) a[r * n + c] -= f * a[col * n + c];
                      }
                    }
                    out[b] = static_cast<T>(det);
                  }
                });
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

constexpr OpRow kLinalgOps[] = {
    {"", "Einsum", 12, 17, linalg_internal::EinsumKernel, &support::kCube},
    {"", "Det", 11, 17, DetKernel, &support::kAiCpuOnly},
};

}  // namespace

std::span<const OpRow> LinalgOps() { return kLinalgOps; }

}  // namespace npugap::exec
