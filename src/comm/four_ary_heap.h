// Index arithmetic shared by the flow simulator's two 4-ary min-heaps on time (completions and
// events): half the levels of a binary heap, and the four children of a node share a cache line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace npugap::comm {

inline constexpr size_t kHeapArity = 4;

inline size_t HeapParent(size_t i) { return (i - 1) / kHeapArity; }

// The child of node i with the smallest time (the first of equal ones), or heap.size() if none.
// A node with all four children picks by a tournament, two independent pairs and then their
// winners, with each time loaded once: a scan that reloads the time of the best child so far
// makes every comparison wait on the one before (the pops of the event loop run this at every
// level). Equal times go to the lower index at each stage, so it picks what the scan picks.
template <typename E, typename Alloc>
size_t SmallestChild(const std::vector<E, Alloc>& heap, size_t i) {
  const size_t n = heap.size();
  const size_t first = kHeapArity * i + 1;
  if (first >= n) return n;
  static_assert(kHeapArity == 4);
  if (first + 4 <= n) {
    const double t0 = heap[first].t, t1 = heap[first + 1].t, t2 = heap[first + 2].t, t3 = heap[first + 3].t;
    const size_t a = t1 < t0 ? first + 1 : first;
    const double ta = t1 < t0 ? t1 : t0;
    const size_t b = t3 < t2 ? first + 3 : first + 2;
    const double tb = t3 < t2 ? t3 : t2;
    return tb < ta ? b : a;
  }
  size_t child = first;
  double best = heap[first].t;
  for (size_t c = first + 1; c < n; ++c)
    if (heap[c].t < best) {
      best = heap[c].t;
      child = c;
    }
  return child;
}

}  // namespace npugap::comm
