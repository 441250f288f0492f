#include "metrics_simd.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace npugap::analysis::precision::internal {
namespace {

inline __m256d Load(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
inline __m256d Load(const double* p) { return _mm256_loadu_pd(p); }

// Where r == 0, msprobe's relative error is |(t + eps) - eps| / eps; eps is a power of two, so the
// product with its inverse is the same bits as the quotient (metrics.cc does the same).
template <typename R>
bool AddExtremes(const float* t, const R* r, int64_t n, double eps, ErrorExtremes& out) {
  const double inv_eps = 1 / eps;
  const __m256d v_eps = _mm256_set1_pd(eps), v_inv = _mm256_set1_pd(inv_eps);
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d zero = _mm256_setzero_pd(), b3 = _mm256_set1_pd(0.001), b5 = _mm256_set1_pd(0.005);
  __m256d max_abs = _mm256_set1_pd(out.max_abs), ref_max = _mm256_set1_pd(out.ref_max);
  __m256d max_rel = _mm256_set1_pd(out.max_rel);
  __m256i lt3 = _mm256_setzero_si256(), lt5 = _mm256_setzero_si256();
  __m256d finite = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d vt = Load(t + i), vr = Load(r + i);
    // x - x is 0 exactly for finite x, NaN for INF / NaN.
    finite = _mm256_and_pd(finite, _mm256_cmp_pd(_mm256_sub_pd(vt, vt), zero, _CMP_EQ_OQ));
    finite = _mm256_and_pd(finite, _mm256_cmp_pd(_mm256_sub_pd(vr, vr), zero, _CMP_EQ_OQ));
    const __m256d ad = _mm256_and_pd(_mm256_sub_pd(vt, vr), abs_mask), ar = _mm256_and_pd(vr, abs_mask);
    max_abs = _mm256_max_pd(max_abs, ad);
    ref_max = _mm256_max_pd(ref_max, ar);
    const __m256d shifted =
        _mm256_mul_pd(_mm256_and_pd(_mm256_sub_pd(_mm256_add_pd(vt, v_eps), v_eps), abs_mask), v_inv);
    const __m256d rel = _mm256_blendv_pd(_mm256_div_pd(ad, ar), shifted, _mm256_cmp_pd(vr, zero, _CMP_EQ_OQ));
    max_rel = _mm256_max_pd(max_rel, rel);
    lt3 = _mm256_sub_epi64(lt3, _mm256_castpd_si256(_mm256_cmp_pd(rel, b3, _CMP_LT_OQ)));
    lt5 = _mm256_sub_epi64(lt5, _mm256_castpd_si256(_mm256_cmp_pd(rel, b5, _CMP_LT_OQ)));
  }
  if (_mm256_movemask_pd(finite) != 0xF) return false;
  alignas(32) double a[4], b[4], c[4];
  alignas(32) int64_t x[4], y[4];
  _mm256_store_pd(a, max_abs);
  _mm256_store_pd(b, ref_max);
  _mm256_store_pd(c, max_rel);
  _mm256_store_si256(reinterpret_cast<__m256i*>(x), lt3);
  _mm256_store_si256(reinterpret_cast<__m256i*>(y), lt5);
  ErrorExtremes e = out;
  for (int k = 0; k < 4; ++k) {
    e.max_abs = std::max(e.max_abs, a[k]);
    e.ref_max = std::max(e.ref_max, b[k]);
    e.max_rel = std::max(e.max_rel, c[k]);
    e.lt_1e3 += x[k];
    e.lt_5e3 += y[k];
  }
  for (; i < n; ++i) {
    const double tv = t[i], rv = static_cast<double>(r[i]);
    if (!std::isfinite(tv) || !std::isfinite(rv)) return false;
    const double ad = std::abs(tv - rv);
    e.max_abs = std::max(e.max_abs, ad);
    e.ref_max = std::max(e.ref_max, std::abs(rv));
    const double rel = rv == 0 ? std::abs((tv + eps) - eps) * inv_eps : ad / std::abs(rv);
    e.max_rel = std::max(e.max_rel, rel);
    e.lt_1e3 += rel < 0.001 ? 1 : 0;
    e.lt_5e3 += rel < 0.005 ? 1 : 0;
  }
  out = e;
  return true;
}

}  // namespace

bool AddFiniteExtremes(const float* target, const float* reference, int64_t n, double eps, ErrorExtremes& e) {
  return AddExtremes(target, reference, n, eps, e);
}
bool AddFiniteExtremes(const float* target, const double* reference, int64_t n, double eps,
                       ErrorExtremes& e) {
  return AddExtremes(target, reference, n, eps, e);
}

}  // namespace npugap::analysis::precision::internal
