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
template <typename E>
size_t SmallestChild(const std::vector<E>& heap, size_t i) {
  const size_t n = heap.size();
  const size_t first = kHeapArity * i + 1;
  if (first >= n) return n;
  size_t child = first;
  const size_t last = std::min(first + kHeapArity, n);
  for (size_t c = first + 1; c < last; ++c)
    if (heap[c].t < heap[child].t) child = c;
  return child;
}

}  // namespace npugap::comm
