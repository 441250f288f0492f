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

// Which operands `get_tensor_reuse` keeps in L1 for one core's m x k x n share with the L1
// (= L0) tile m0 x n0, against half of L1 (`L1_SIZE // dtype_byte // 2` elements): 2 when the
// whole share (its tiles rounded up) fits, 1 when a k-full panel of one tile does, 0 otherwise.
// Only when both are 1 is one of them streamed: A when its re-copy (A times B's tile count) is
// the smaller, else B (the counts are floors, as the source takes them). A kept operand is loaded
// once (`allocate_at` with `run_once_axes`); one that is not is loaded again for every tile of
// the other axis (`compute_at(tensor_c, l1_k_outer)`).
StaticReads StaticOperandReads(int64_t m, int64_t n, int64_t k, int64_t m0, int64_t n0, double l1_bytes,
                               double item_bytes) {
  const double half = l1_bytes / std::max(1.0, item_bytes) / 2;
  const auto CeilDiv = [](int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; };
  const int64_t mo = CeilDiv(m, m0), no = CeilDiv(n, n0);
  const double a_num = static_cast<double>(mo * m0 * k), b_num = static_cast<double>(no * n0 * k);
  const auto reuse = [&](double whole, int64_t tile) {
    return whole <= half ? 2 : static_cast<double>(tile * k) <= half ? 1 : 0;
  };
  int keep_a = reuse(a_num, m0), keep_b = reuse(b_num, n0);
  if (keep_a == 1 && keep_b == 1) {
    const double parts_a = static_cast<double>(m0 > 0 ? m / m0 : 1),
                 parts_b = static_cast<double>(n0 > 0 ? n / n0 : 1);
    (a_num * parts_b < b_num * parts_a ? keep_a : keep_b) = 0;
  }
  return {keep_a > 0 ? 1.0 : static_cast<double>(no), keep_b > 0 ? 1.0 : static_cast<double>(mo)};
}

}  // namespace npugap::analysis::perf::internal
