// TBE's older static-shape matmul schedule (auto_schedule/python/lang/cce/te_schedule/
// mmad_schedule.py, 2019-2020; public copy in dengguojie/vue-element-admin), the other tiler a
// matmul record can come from beside CANN's cache tiling (cost_model_cube_divisors.cc):
//   - `get_perfect_core_num` splits m x n over the cores as a power of two times its complement;
//   - the L1 tile is the L0 tile (`m_l1_shape = m_l0_shape`, the same for k and n);
//   - `get_tensor_reuse` keeps an operand in L1 when its whole share, or a k-full panel of it,
//     fits in half of L1; the operand that is not kept is loaded at `l1_k_outer` of C, i.e. again
//     for every tile of the other axis.
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

// `get_perfect_core_num(m_shape, n_shape, k_shape)` with the device's core count, transcribed
// with its quirks: its tail tests compare against the running m_factor / n_factor, not the
// candidate's, so the padded copy size is taken only as the source takes it.
StaticSplit StaticCoreSplit(int64_t m, int64_t n, int64_t k, int64_t core_num) {
  constexpr int64_t kFrac = 16;
  if (m == 1) {
    const int64_t n_outer = (n + kFrac - 1) / kFrac;
    return n_outer > core_num ? StaticSplit{1, core_num} : StaticSplit{1, 1};
  }
  const int64_t m_outer = m / kFrac, n_outer = n / kFrac;
  if (m_outer * n_outer <= core_num) return {m_outer, n_outer};
  const int64_t a_size = m * k, b_size = n * k;
  int64_t min_copy = core_num * (a_size + b_size);
  int64_t m_factor = m_outer, n_factor = n_outer;
  // Powers of two up to 2^(exp-1): exp is 6 for 32 cores, 2 for 2, else 1 (the source's table).
  const int exp = core_num == 32 ? 6 : core_num == 2 ? 2 : 1;
  for (int e = 0; e < exp; ++e) {
    const int64_t cur_m = int64_t{1} << e, cur_n = core_num / cur_m;
    if (cur_m > m_outer || m_outer / cur_m == 0) continue;
    if (cur_n > n_outer || n_outer / cur_n == 0) continue;
    int64_t tm = m, tn = n;
    if (m_outer % m_factor != 0) tm = (m_outer / cur_m + 1) * cur_m * kFrac;
    if (n % n_factor != 0) tn = (n_outer / cur_n + 1) * cur_n * kFrac;
    const int64_t copy = cur_n * (tm * k) + cur_m * (tn * k);
    if (copy < min_copy) {
      min_copy = copy;
      m_factor = cur_m;
      n_factor = cur_n;
    }
  }
  return {m_factor, n_factor};
}

// Which operand `get_tensor_reuse` keeps in L1 for one core's m x k x n share with the L1 (= L0)
// tile m0 x n0: 2 when the whole share fits in half of L1 (`L1_SIZE // dtype_byte // 2`
// elements), 1 when a k-full panel of one tile does, 0 otherwise. At most one is kept; the other
// is loaded again for every tile of the kept one's axis, so the kept one is the one whose keeping
// re-copies the fewer bytes (when both fit as panels the source, too, streams the one with the
// smaller re-copy).
StaticReads StaticOperandReads(int64_t m, int64_t n, int64_t k, int64_t m0, int64_t n0, double l1_bytes,
                               double item_bytes) {
  const double half = l1_bytes / std::max(1.0, item_bytes) / 2;
  const auto CeilDiv = [](int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; };
  const int64_t mo = CeilDiv(m, m0), no = CeilDiv(n, n0);
  const bool keep_a = static_cast<double>(m0 * k) <= half;  // a panel fits (so does a smaller whole)
  const bool keep_b = static_cast<double>(n0 * k) <= half;
  // Re-read counts: A once per n tile unless kept, B once per m tile unless kept.
  StaticReads none{static_cast<double>(no), static_cast<double>(mo)};
  const StaticReads a_kept{1, static_cast<double>(mo)}, b_kept{static_cast<double>(no), 1};
  const double a = static_cast<double>(m * k), b = static_cast<double>(n * k);
  const auto bytes = [&](const StaticReads& r) { return r.a_times * a + r.b_times * b; };
  StaticReads best = none;
  if (keep_a && bytes(a_kept) < bytes(best)) best = a_kept;
  if (keep_b && bytes(b_kept) < bytes(best)) best = b_kept;
  return best;
}

}  // namespace npugap::analysis::perf::internal
