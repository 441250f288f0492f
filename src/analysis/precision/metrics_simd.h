// The order-free part of msprobe's metrics (maxima and the relative-error buckets) over a run of
// float32 targets, four pairs per AVX2 step. The sums stay in metrics.cc, sequential, so that the
// metrics are the same bits as the scalar loop's; a max or a count does not depend on the order.
#pragma once

#include <cstdint>

namespace npugap::analysis::precision::internal {

struct ErrorExtremes {
  double max_abs = 0, ref_max = 0, max_rel = 0;
  int64_t lt_1e3 = 0, lt_5e3 = 0;
};

// Folds pairs [0, n) into `e` and returns true, or returns false with `e` unchanged when a pair is
// not finite (the caller then takes the scalar path for those pairs). `eps` is msprobe's shift of
// zero references (the reference dtype's epsilon).
bool AddFiniteExtremes(const float* target, const float* reference, int64_t n, double eps, ErrorExtremes& e);
bool AddFiniteExtremes(const float* target, const double* reference, int64_t n, double eps, ErrorExtremes& e);

}  // namespace npugap::analysis::precision::internal
