// The flow simulator's queue of future events (a rank ready for its next step, a flow done with
// its latency): a 4-ary min-heap on time. Against std::priority_queue's binary heap it has half
// the levels, so a pop (the queue's hot operation: every event comes out once) walks half as many
// cache lines, and the four children of a node sit in one 64-byte line.
//
// Events of equal time may come out in another order than from a binary heap. That order is
// not part of the model (events within one merge window are solved together), and
// CommFlowPins checks that the pinned times and solve counts did not move.
#pragma once

#include "four_ary_heap.h"

#include <cstddef>
#include <vector>

namespace npugap::comm {

template <typename E>  // E has a double member t
class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  const E& top() const { return heap_[0]; }
  void push(const E& e) {
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const size_t parent = HeapParent(i);
      if (!(e.t < heap_[parent].t)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void pop() {
    const E e = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return;
    size_t i = 0;
    while (true) {
      const size_t child = SmallestChild(heap_, i);
      if (child >= n) break;
      if (!(heap_[child].t < e.t)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

 private:
  std::vector<E> heap_;
};

}  // namespace npugap::comm
