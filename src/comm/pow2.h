// Powers of two of a group size, shared by the cost formulas (analytical.cc) and the schedule
// expansion (schedule.cc), which must agree on the steps of halving-doubling and NHR / NB.
#pragma once

namespace npugap::comm {

// The least k with 2^k >= p (0 for p <= 1).
inline int CeilLog2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

// The largest power of two <= p (p >= 1).
inline int FloorPow2(int p) { return 1 << (CeilLog2(p + 1) - 1); }

}  // namespace npugap::comm
