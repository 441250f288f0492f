// Which L1 state CANN's cache tiling takes for one core's share once its L0 tile is known
// (ops/built-in/op_tiling/cache_tiling.cc, 2021: `GetL1Factors`, `L1StatusBothFullLoad`,
// `L1StatusAl1FullLoad`, `L1StatusBl1FullLoad`, `GetNearestFactor`; public copy in
// dengguojie/vue-element-admin), as far as the cube's time needs it: whether one operand's whole
// share stays in L1 while the other comes in k-full panels, one per L0 tile of its axis. CANN's
// GEMM cycle model (gemm/estimate/cache_tiling_cycle_model.cc, `AL1FullLoadMode` /
// `BL1FullLoadMode` with `bl1_k_full_load` / `al1_k_full_load`) loads each such panel before
// the MADs that use it: n_outer x (MTE2_B + m_outer x n_bl1 x k_outer x MAD).
//   - AL1 full load: A's share (m x k fractals) fits L1 beside one k_l0-deep B chunk; B then
//     takes what is left, double-buffered if both buffers fit: kbl1 = min(left / (n_l0 x db), k),
//     cut to bl1_times = min(kbl1 / k_l0, max_k_bl1) steps, then to the nearest divisor of the
//     k steps (`GetNearestFactor`, the largest at or below: LargestDivisorAtMost). B is k-full
//     when kbl1 = k: every operand is read once, the least load any state has (m + n), so the
//     tiler takes it unless both operands fit (both full load, taken on an equal load) or BL1's
//     state ties with more L1 tiles (m_al1 + n_bl1);
//   - max_k_bl1 = max(mte1Loop, ceil((ceil(kMinMte1Load / n_l0)) / k_l0)), mte1Loop =
//     50 / ((n_l0 == 1 ? 1 : k_l0) + (k_l0 == 1 ? 1 : m_l0)), kMinMte1Load = 32; the same for A
//     with m_l0. So a one-fractal m_l0 with a deep k_l0 (the vocabulary dW: 1 x 2 x 32) caps A's
//     chunk at one k_l0 step and A is not k-full there.
// The neither-full state is not derived: it is only ever taken here on a tie at m + n, which the
// source breaks by the L1 tile counts (not modelled: the panel state is taken).
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

constexpr int64_t kMinMte1Load = 32;  // cache_tiling.cc

// One operand's side of a full-load state: the other operand's whole share (`resident`
// fractals) stays in L1, and this one, `own0` fractals wide per L0 tile and `own` wide in all,
// takes what is left. Returns whether its chunk is k-full and, if so, its L1 tile count
// (n_bl1 / m_al1: the nearest divisor of its L0 tiles that fits); {false, 0} if the state fails.
struct PanelSide {
  bool k_full = false;
  int64_t l1_tiles = 0;
};
PanelSide SideBesideResident(const CacheL0Inputs& in, const CacheL0Tile& t, int64_t own0, int64_t own,
                             int64_t resident, int64_t max_k_times) {
  const double frac = 256 * in.in_bytes;
  const double held = static_cast<double>(resident * in.k) * frac;
  if (held + static_cast<double>(own0 * t.k) * frac > in.l1) return {};
  const double db = held + 2.0 * static_cast<double>(own0 * t.k) * frac <= in.l1 ? 2 : 1;
  const double left = in.l1 - held;
  const int64_t kl1 = std::min(static_cast<int64_t>(left / (static_cast<double>(own0) * frac * db)), in.k);
  const int64_t times = LargestDivisorAtMost(in.k / t.k, std::min(kl1 / t.k, max_k_times));
  if (times * t.k != in.k) return {false, 1};
  const int64_t fits = static_cast<int64_t>(left / (static_cast<double>(in.k * own0) * frac * db));
  return {true, LargestDivisorAtMost(own / own0, std::min(fits, own / own0))};
}

}  // namespace

CacheL1State CacheTilingL1(const CacheL0Inputs& in, const CacheL0Tile& t) {
  if (in.m <= 0 || in.n <= 0 || in.k <= 0 || t.m <= 0 || t.n <= 0 || t.k <= 0) return CacheL1State::kOther;
  const double frac = 256 * in.in_bytes;
  if (static_cast<double>((in.m + in.n) * in.k) * frac <= in.l1) return CacheL1State::kOther;  // both full
  const int64_t mte1_loop = 50 / ((t.n == 1 ? 1 : t.k) + (t.k == 1 ? 1 : t.m));
  const auto max_k = [&](int64_t own0) {
    return std::max(mte1_loop, ((kMinMte1Load + own0 - 1) / own0 + t.k - 1) / t.k);
  };
  // AL1 full load, B in k-full panels: load m + n, with m_al1 = m / m_l0 and B's n_bl1.
  const PanelSide b = SideBesideResident(in, t, t.n, in.n, in.m, max_k(t.n));
  // BL1 full load, A k-full: load n + m only when A's L1 tile (m_al1 x m_l0) holds all of m.
  const PanelSide a = SideBesideResident(in, t, t.m, in.m, in.n, max_k(t.m));
  const bool a_least = a.k_full && a.l1_tiles * t.m == in.m;
  // GetL1Factors keeps AL1's state on an equal load unless BL1's has more L1 tiles.
  if (b.k_full && !(a_least && a.l1_tiles + in.n / t.n > in.m / t.m + b.l1_tiles))
    return CacheL1State::kAResidentBPanels;
  return a_least ? CacheL1State::kBResidentAPanels : CacheL1State::kOther;
}

}  // namespace npugap::analysis::perf::internal
