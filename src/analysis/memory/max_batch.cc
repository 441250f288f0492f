#include "npugap/analysis/memory/max_batch.h"

namespace npugap::analysis::memory {

Expected<int64_t> LargestFittingBatch(const std::function<Expected<bool>(int64_t)>& fits, int64_t limit) {
  if (limit < 1) return int64_t{0};
  NPUGAP_ASSIGN_OR_RETURN(bool one, fits(1));
  if (!one) return int64_t{0};
  // Doubling finds a fitting `lo` and a failing `hi`; bisection closes the gap.
  int64_t lo = 1, hi = 0;
  while (hi == 0) {
    const int64_t next = lo > limit / 2 ? limit : lo * 2;
    if (next == lo) return limit;
    NPUGAP_ASSIGN_OR_RETURN(bool ok, fits(next));
    if (ok) {
      lo = next;
      if (lo == limit) return limit;
    } else {
      hi = next;
    }
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    NPUGAP_ASSIGN_OR_RETURN(bool ok, fits(mid));
    (ok ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace npugap::analysis::memory
