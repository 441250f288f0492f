// The L0 tile of CANN's cache tiling for one core's matmul share (ops/built-in/op_tiling/
// cache_tiling.cc, 2021: `GetL0Factors`, `GetL0FactorsCand`, `GetFinalMkn`, `GetLoadSize`; public
// copy in dengguojie/vue-element-admin). Written from that source's rules, in fractal counts:
//   - two candidates are searched, L0A / L0B / L0C all double-buffered, and L0C single-buffered
//     (its tile may take all of L0C); L0A and L0B stay double-buffered in both;
//   - per candidate, m_l0 is one of the two divisors of the share's m nearest a starting point
//     (the source's 11 fractals with L0C doubled, 16 single, at most 64), n_l0 the two largest
//     divisors of n that fit L0C beside m_l0 (and L0B), k_l0 the two largest divisors of k that
//     fit L0A and L0B; the combination that loads the fewest fractals into L1 is kept (then the
//     most MACs per step, then the fewest MTE1 loads);
//   - L0C's double buffer is turned off when the single-buffered candidate fills more of L0C or
//     loads less.
// The starting points (11, 16) and the 64-fractal cap are the source's constants for a core
// split without an L1 full-load factor (`GetParasCombo`, blockValue 0); they are taken as written.
#include <algorithm>
#include <array>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

// `GetTwoFactors`: the smallest divisor of `dim` above `base` (at most `most`), then the largest
// ones at or below `base`, two in all; 0 marks an empty slot.
std::array<int64_t, 2> NearDivisors(int64_t base, int64_t dim, int64_t most) {
  std::array<int64_t, 2> out = {0, 0};
  size_t count = 0;
  for (int64_t up = base + 1; up <= std::min(dim, most); ++up) {
    if (dim % up == 0) {
      out[count++] = up;
      break;
    }
  }
  for (int64_t down = base; down >= 1 && count < out.size(); --down) {
    if (dim % down == 0) out[count++] = down;
  }
  return out;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// `GetLoadSize`: fractals one core moves into L1 with this L0 tile. An operand whose k-full share
// fits L1 beside one L0 tile of the other is read once, else once per tile of the other axis.
int64_t L1LoadFractals(const CacheL0Inputs& in, int64_t m0, int64_t n0, int64_t k0) {
  const double frac = 256 * in.in_bytes;
  const auto fits = [&](int64_t fractals) { return static_cast<double>(fractals) * frac <= in.l1; };
  const bool a_full = fits(in.m * in.k + n0 * k0), b_full = fits(m0 * k0 + n0 * in.k);
  const bool both = fits(in.m * in.k + n0 * in.k);
  const int64_t b_reads = b_full ? in.n : CeilDiv(in.m, m0) * in.n;
  const int64_t a_reads = a_full ? in.m : CeilDiv(in.n, n0) * in.m;
  if (a_full && b_full && !both) {
    return std::min(in.n + CeilDiv(in.n, n0) * in.m, in.m + CeilDiv(in.m, m0) * in.n);
  }
  return a_reads + b_reads;
}

struct Candidate {
  CacheL0Tile tile;
  int64_t load = 0, l0c_use = 0, macs = 0, mte1 = 0;
};

// One candidate's best tile with L0C `l0c_buffers`-buffered and m_l0 searched from `start`.
Candidate Search(const CacheL0Inputs& in, int64_t l0c_buffers, int64_t start) {
  constexpr int64_t kMostAxis = 64;
  const double ab_frac = 256 * in.in_bytes, c_frac = 256 * 4.0;  // L0C holds fp32 sums
  const int64_t most_mk = static_cast<int64_t>(in.l0a / 2 / ab_frac);
  const int64_t most_nk = static_cast<int64_t>(in.l0b / 2 / ab_frac);
  const int64_t most_mn = static_cast<int64_t>(in.l0c / static_cast<double>(l0c_buffers) / c_frac);
  Candidate best;
  bool found = false;
  for (const int64_t m0 : NearDivisors(std::min(start, kMostAxis), in.m, kMostAxis)) {
    if (m0 == 0) continue;
    const int64_t n_most = std::min(most_mn / m0, most_nk);
    for (const int64_t n0 : NearDivisors(n_most, in.n, n_most)) {
      if (n0 == 0) continue;
      const int64_t k_most = std::min(most_mk / m0, most_nk / n0);
      for (const int64_t k0 : NearDivisors(k_most, in.k, k_most)) {
        if (k0 == 0) continue;
        Candidate c;
        c.tile = {m0, n0, k0, l0c_buffers == 2};
        c.load = L1LoadFractals(in, m0, n0, k0);
        c.l0c_use = static_cast<int64_t>(static_cast<double>(m0 * n0 * l0c_buffers) * c_frac * 100 / in.l0c);
        c.macs = m0 * n0 * k0;
        c.mte1 = (n0 != 1 ? k0 : 1) + (k0 != 1 ? m0 : 1);
        const bool better = !found || c.load < best.load || (c.load == best.load && c.macs > best.macs) ||
                            (c.load == best.load && c.macs == best.macs && c.mte1 < best.mte1);
        if (better) best = c, found = true;
      }
    }
  }
  if (!found) best.tile = {1, 1, 1, l0c_buffers == 2};
  return best;
}

}  // namespace

CacheL0Tile CacheTilingL0(const CacheL0Inputs& in) {
  if (in.m <= 0 || in.n <= 0 || in.k <= 0) return {};
  const Candidate doubled = Search(in, 2, 11), single = Search(in, 1, 16);
  return single.l0c_use > doubled.l0c_use || single.load < doubled.load ? single.tile : doubled.tile;
}

}  // namespace npugap::analysis::perf::internal
